/** The pure parts of push: the destination, content types, when the bucket is current, what to do per file, what to delete, the marker. */
import { describe, expect, it } from 'vitest';
import { contentType } from '../../src/push/content-type.js';
import { parseLocation } from '../../src/push/location.js';
import { Action, bucketIsCurrent, fileAction, isDeletable, isPushed, MAX_PENDING_PATHS, nextPending, NO_SIGNATURE, PENDING_FILE, type LocalFile } from '../../src/push/plan.js';
import { decodePending, encodePending } from '../../src/push/remote.js';
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

describe('bucketIsCurrent', () => {
  const manifest = file('_meta/manifest.json', 'c', 500);
  const signature = file('_meta/manifest.sig', 'd', 64);
  it('holds only for the local manifest pushed with the local signature, and no unfinished push', () => {
    const head = { size: 500, sha256: manifest.sha256, signature: NO_SIGNATURE };
    expect(bucketIsCurrent(head, false, manifest, undefined)).toBe(true);
    expect(bucketIsCurrent(head, true, manifest, undefined)).toBe(false);
    expect(bucketIsCurrent(undefined, false, manifest, undefined)).toBe(false);
    expect(bucketIsCurrent({ ...head, sha256: file('x', 'e').sha256 }, false, manifest, undefined)).toBe(false);
    expect(bucketIsCurrent(head, false, manifest, signature)).toBe(false);
    expect(bucketIsCurrent({ ...head, signature: signature.sha256 }, false, manifest, signature)).toBe(true);
    // Pushed by a push that did not mark every push (or by another tool): it proves nothing.
    expect(bucketIsCurrent({ size: 500, sha256: manifest.sha256 }, false, manifest, undefined)).toBe(false);
  });
});

describe('fileAction', () => {
  it('keeps what the bucket\'s manifest vouches for, asks where only the size agrees or the listing missed a trusted key, uploads the rest', () => {
    expect(fileAction(10, 10, true)).toBe(Action.Keep);
    expect(fileAction(10, 10, false)).toBe(Action.Head);
    expect(fileAction(10, undefined, true)).toBe(Action.Head);
    expect(fileAction(10, undefined, false)).toBe(Action.Upload);
    expect(fileAction(10, 11, true)).toBe(Action.Upload);
  });
});

describe('isDeletable', () => {
  it('deletes what is ours: anything outside _meta/, and under it only what the old manifest listed and a stale signature', () => {
    expect(['stray.txt', 'servers/9.json', '_meta/notes.txt', '_meta/manifest.sig', '_meta/manifest.json', PENDING_FILE].filter((path) => isDeletable(path, false))).toEqual(['stray.txt', 'servers/9.json', '_meta/manifest.sig']);
    expect(isDeletable('_meta/redaction.json', true)).toBe(true);
  });

  it('leaves the folder\'s dotfiles out, not a record whose id starts with a dot', () => {
    expect(['.gitignore', '.gitattributes', 'servers.json', 'servers/.x.json'].filter(isPushed)).toEqual(['servers.json', 'servers/.x.json']);
  });
});

describe('nextPending', () => {
  it('names what this push changes and what an interrupted one named before, so two interruptions in a row leave nothing trusted wrongly', () => {
    expect(nextPending(['servers/2.json', 'servers.json'], new Set(['servers/9.json', 'servers/2.json']), true)).toEqual(['servers.json', 'servers/2.json', 'servers/9.json']);
    expect(nextPending(['servers/2.json'], undefined, true)).toEqual(['servers/2.json']);
  });

  it('says "all" over a bucket without a manifest, after an earlier "all", and beyond the limit', () => {
    expect(nextPending(['servers/2.json'], undefined, false)).toBe('all');
    expect(nextPending([], 'all', true)).toBe('all');
    expect(nextPending(Array.from({ length: MAX_PENDING_PATHS + 1 }, (_, i) => `servers/${i}.json`), undefined, true)).toBe('all');
  });

  it('reads back what it writes; a marker it cannot read trusts nothing', () => {
    expect(decodePending(encodePending(['servers/2.json']))).toEqual(new Set(['servers/2.json']));
    expect(decodePending(encodePending('all'))).toBe('all');
    expect(decodePending(Buffer.from('{"format":2}'))).toBe('all');
    expect(decodePending(Buffer.from('not json'))).toBe('all');
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
