/** The pure parts of push: the destination, content types, what to trust, what to head, and the plan's phases. */
import { describe, expect, it } from 'vitest';
import { contentType } from '../../src/push/content-type.js';
import { parseLocation } from '../../src/push/location.js';
import { isPushed, needsHead, PENDING_FILE, pendingPaths, planPush, remoteState, type LocalFile } from '../../src/push/plan.js';
import { scrub, registerSecret, childEnv } from '../../src/util/secrets.js';

const file = (path: string, sha = 'a', size = 10): LocalFile => ({ path, sha256: sha.repeat(64).slice(0, 64), size });

describe('parseLocation', () => {
  it('splits bucket and prefix, and names the flag when it is not an s3:// URL', () => {
    expect(parseLocation('s3://mirror', '--to')).toEqual({ bucket: 'mirror', prefix: '' });
    expect(parseLocation('s3://mirror/a/b/', '--to')).toEqual({ bucket: 'mirror', prefix: 'a/b/' });
    expect(() => parseLocation('https://mirror/x', '--to')).toThrow('--to: expected s3://BUCKET or s3://BUCKET/PREFIX, got "https://mirror/x"');
    expect(() => parseLocation('s3://Mirror_1/x', 'push.to')).toThrow('push.to: "Mirror_1" is not a bucket name');
    expect(() => parseLocation('s3://mirror/a/../b', '--to')).toThrow('--to: the prefix "a/../b" must be a relative path');
  });
});

describe('contentType', () => {
  it('is by extension, JSON and pages in UTF-8', () => {
    expect(contentType('servers/_filter/by_arch/x86_64.json')).toBe('application/json; charset=utf-8');
    expect(contentType('index.html')).toBe('text/html; charset=utf-8');
    expect(contentType('_meta/manifest.sig')).toBe('application/octet-stream');
    expect(contentType('servers/a.b/c')).toBe('application/octet-stream');
  });
});

describe('remoteState and needsHead', () => {
  it('trusts a manifest entry only when the object has its size and no interrupted push named it', () => {
    const manifest = new Map([file('servers/1.json', 'a'), file('servers/2.json', 'b'), file('servers/3.json', 'c', 12)].map((f) => [f.path, f]));
    const listing = new Map([
      ['servers/1.json', 10],
      ['servers/2.json', 10],
      ['servers/3.json', 10],
    ]);
    const remote = remoteState(listing, manifest, new Set(['servers/2.json']));
    expect(remote.get('servers/1.json')).toEqual({ size: 10, sha256: file('x', 'a').sha256 });
    expect(remote.get('servers/2.json')).toEqual({ size: 10, sha256: undefined });
    expect(remote.get('servers/3.json')).toEqual({ size: 10, sha256: undefined });
    // 2 (same size, unknown), and 4 (listed by the manifest, not by the listing); 3 has another size: uploaded without asking.
    const local = [file('servers/1.json', 'a'), file('servers/2.json', 'b'), file('servers/3.json', 'c', 11), file('servers/4.json'), file('servers/5.json')];
    manifest.set('servers/4.json', file('servers/4.json'));
    expect(needsHead(local, remote, manifest)).toEqual(['servers/2.json', 'servers/4.json']);
  });
});

describe('planPush', () => {
  it('records, then views and other files, then the manifest and signature; deletes only what is ours', () => {
    const files = [file('servers.json', 'b'), file('servers/1.json', 'b'), file('servers/_filter/by_arch/x.json', 'b'), file('_meta/quality.json', 'b'), file('applications/7.json', 'a')];
    const meta = [file('_meta/manifest.json', 'c'), file('_meta/manifest.sig', 'd')];
    const remote = new Map([
      ['applications/7.json', { size: 10, sha256: file('x', 'a').sha256 }],
      ['servers/9.json', { size: 10 }],
      ['stray.txt', { size: 3 }],
      ['_meta/redaction.json', { size: 3 }],
      ['_meta/notes.txt', { size: 3 }],
      [PENDING_FILE, { size: 3 }],
      ['_meta/manifest.json', { size: 10, sha256: file('x', 'z').sha256 }],
    ]);
    const plan = planPush({ files, meta, remote, oldManifest: new Set(['servers/9.json', '_meta/redaction.json']) });
    expect(plan.records.map((f) => f.path)).toEqual(['servers/1.json']);
    expect(plan.views.map((f) => f.path)).toEqual(['servers.json', 'servers/_filter/by_arch/x.json', '_meta/quality.json']);
    expect(plan.meta.map((f) => f.path)).toEqual(['_meta/manifest.json', '_meta/manifest.sig']);
    expect(plan.deletions).toEqual(['_meta/redaction.json', 'servers/9.json', 'stray.txt']);
    expect(plan.unchanged).toBe(1);
  });

  it('of a bucket that already holds the snapshot: nothing to do', () => {
    const files = [file('servers/1.json')];
    const meta = [file('_meta/manifest.json', 'c')];
    const remote = new Map([...files, ...meta].map((f) => [f.path, { size: f.size, sha256: f.sha256 }]));
    expect(planPush({ files, meta, remote, oldManifest: new Set(['servers/1.json']) })).toEqual({ records: [], views: [], meta: [], deletions: [], unchanged: 2 });
  });

  it('leaves the folder\'s dotfiles out, not a record whose id starts with a dot', () => {
    expect(['.gitignore', '.gitattributes', 'servers.json', 'servers/.x.json'].filter(isPushed)).toEqual(['servers.json', 'servers/.x.json']);
  });
});

describe('pendingPaths', () => {
  it('names what this push changes and what an interrupted one named before, so two interruptions in a row leave nothing trusted wrongly', () => {
    expect(pendingPaths([file('servers/2.json'), file('servers.json')], ['servers/9.json', 'servers/2.json'])).toEqual(['servers.json', 'servers/2.json', 'servers/9.json']);
  });
});

describe('AWS secrets', () => {
  it('never reach a child process, and registered values are scrubbed', () => {
    const env = childEnv({}, { PATH: '/bin', AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 's3cr3t-value', AWS_SESSION_TOKEN: 'session-token-value' });
    expect(env).toEqual({ PATH: '/bin', AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE' });
    registerSecret('s3cr3t-value-for-scrub');
    expect(scrub('signed with s3cr3t-value-for-scrub')).toBe('signed with [secret]');
  });
});
