import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { tempDir } from '../helpers/tmp.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';
import { runCli } from '../helpers/cli.js';

// No global or system git config: the test must not depend on (or touch) the machine's identity.
const GIT_ENV = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' });
}

const upstream = await useUpstream({ scale: 50, seed: 9 });

describe('sync --git (built CLI)', () => {
  it('commits exactly the snapshot when it changed, nothing otherwise', async () => {
    const repo = tempDir();
    git(repo, 'init', '--quiet');
    const out = join(repo, 'mirror');
    const env = { INVENTORY_API_TOKEN: TOKEN, ...GIT_ENV };
    // Something the user staged elsewhere in the repository must stay out of our commits.
    writeFileSync(join(repo, 'notes.txt'), 'mine\n');
    git(repo, 'add', 'notes.txt');

    const first = await runCli(['sync', '--git', '--base-url', upstream.url, '--out', out], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(git(repo, 'log', '--format=%s|%an <%ae>')).toMatch(/^inventory: first snapshot \(.*servers \+50.*\)\|inventory-mirror <inventory-mirror@localhost>\n$/);
    const firstFiles = git(repo, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n');
    expect(firstFiles).toContain('mirror/_meta/manifest.json');
    expect(firstFiles).toContain('mirror/_meta/changes.json');
    expect(firstFiles).not.toContain('mirror/_meta/last-sync.json');
    expect(firstFiles).not.toContain('notes.txt');
    expect(git(repo, 'status', '--porcelain')).toBe('A  notes.txt\n');

    const mutation = upstream.mutate({ seed: 4, share: 0.04 });
    const second = await runCli(['sync', '--git', '--base-url', upstream.url, '--out', out], { env });
    expect(second.code, second.stderr).toBe(0);
    const message = git(repo, 'log', '-1', '--format=%B');
    const s = mutation;
    expect(message.split('\n')[0]).toContain(`servers +${s.added.servers.length} -${s.removed.servers.length} ~${s.changed.servers.length}`);
    for (const id of s.changed.servers) expect(message).toMatch(new RegExp(`^~ servers ${id} \\(.+\\): `, "m"));
    for (const id of s.removed.servers) expect(message).toMatch(new RegExp(`^- servers ${id} \\(.+\\)$`, "m"));
    const changedFiles = git(repo, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort();
    // Every changed record file is in the commit, and every file of the commit is one the sync rewrote or removed.
    for (const r of ['servers', 'applications', 'databases', 'appservers'] as const) {
      for (const id of [...s.added[r], ...s.removed[r], ...s.changed[r]]) expect(changedFiles).toContain(`mirror/${r}/${id}.json`);
    }
    const committed = new Set(changedFiles);
    expect(git(repo, 'diff', '--name-only', 'HEAD~1', 'HEAD').trim().split('\n').sort()).toEqual([...committed].sort());
    expect(git(repo, 'status', '--porcelain')).toBe('A  notes.txt\n');

    const head = git(repo, 'rev-parse', 'HEAD');
    const third = await runCli(['sync', '--git', '--base-url', upstream.url, '--out', out], { env });
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout).toContain('changes: none');
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(repo, 'status', '--porcelain')).toBe('A  notes.txt\n');

    // A failing sync (one path answers 500, no retries) commits nothing and leaves the folder as it was.
    upstream.mutate({ seed: 5, share: 0.04 });
    const config = join(tempDir(), 'failing.json');
    writeFileSync(config, JSON.stringify({ sync: { retries: 0 }, git: { commit: true, author: 'Mirror Bot <bot@example.com>' } }));
    upstream.override('/operating_systems.json', { status: 500, body: '{"error":"boom"}' });
    try {
      const failed = await runCli(['sync', '--config', config, '--base-url', upstream.url, '--out', out], { env });
      expect(failed.code).toBe(1);
    } finally {
      upstream.override('/operating_systems.json', undefined);
    }
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(repo, 'status', '--porcelain')).toBe('A  notes.txt\n');

    const fixed = await runCli(['sync', '--config', config, '--base-url', upstream.url, '--out', out], { env });
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(git(repo, 'log', '-1', '--format=%an <%ae>').trim()).toBe('Mirror Bot <bot@example.com>');
  });

  it('refuses --git up front when the folder is outside a work tree (exit 2, nothing fetched)', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'x'));
    const before = upstream.requestCount();
    const result = await runCli(['sync', '--git', '--base-url', upstream.url, '--out', join(dir, 'x', 'out')], { env: { INVENTORY_API_TOKEN: TOKEN, ...GIT_ENV, GIT_CEILING_DIRECTORIES: dir } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('not inside a git work tree');
    expect(upstream.requestCount()).toBe(before);
  });
});
