/**
 * Guards around one snapshot: hostile ids, the mass-removal guard, the lock, records deleted
 * during a sync, oversized and absurd bodies, and the token.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordFile } from '../../src/snapshot/paths.js';
import { singlePath } from '../../src/spec/resources.js';
import { listFiles, verifyFolder } from '../../src/verify/verify.js';
import { parseConfig } from '../../src/config/load.js';
import { runCli } from '../helpers/cli.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { allBytes, treeState } from '../helpers/tree.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';

const env = { INVENTORY_API_TOKEN: TOKEN };

export const HOSTILE_IDS = ['../x', 'a/b', '.', '..', '%2e%2e', 'sp ace', 'q?x=1', 'semi;colon', '日本', 'Case', 'case', 'x'.repeat(300), '..%2F..%2Fetc', 'nul\u0000byte', '#frag', 'back\\slash', '_filter'];

describe('hostile ids', () => {
  it('each gets its own file inside the folder, reachable by its contract name; nothing lands outside', async () => {
    const upstream = await useUpstream({ scale: 30 });
    for (const id of HOSTILE_IDS) upstream.putRecord('applications', { id, name: `app ${id.slice(0, 20)}`, description: 'hostile' });
    const parent = tempDir();
    const out = join(parent, 'mirror');
    await syncInto(upstream, out);
    expect((await listFiles(parent)).every((p) => p.startsWith('mirror/'))).toBe(true);
    for (const id of HOSTILE_IDS) {
      const body = JSON.parse(readFileSync(join(out, recordFile('applications', id)), 'utf8')) as { application: { id: string } };
      expect(body.application.id).toBe(id);
    }
    expect(await verifyFolder(out)).toMatchObject({ missing: [], altered: [], extra: [] });
  });
});

describe('mass-removal guard', () => {
  it('refuses to publish a resource losing more than half its records, unless told to', async () => {
    const upstream = await useUpstream({ scale: 40 });
    const out = tempDir();
    await syncInto(upstream, out);
    const before = await treeState(out);
    const ids = (JSON.parse(readFileSync(join(out, 'appservers.json'), 'utf8')) as { appservers: { id: string }[] }).appservers.map((a) => a.id);
    for (const id of ids.slice(0, Math.ceil(ids.length * 0.6))) upstream.removeRecord('appservers', id);
    const refused = await runCli(['sync', '--base-url', upstream.url, '--out', out], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/appservers would lose 12 of 20 records \(60%, over the 50% allowed by sync\.massRemoval\.maxShare\); nothing was published\. .*--allow-mass-removal/);
    expect(await treeState(out)).toEqual(before);
    const allowed = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--allow-mass-removal'], { env });
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(/ 12 removed/);
    expect(allowed.stdout).toMatch(/appservers +8 records/);
  });
});

describe('lock', () => {
  it('refuses a folder locked by a live process, naming it, and takes over a dead one with a warning', async () => {
    const upstream = await useUpstream({ scale: 20 });
    const out = tempDir();
    await syncInto(upstream, out);
    const lock = join(out, '.inventory-mirror', 'lock');
    (await import('node:fs')).mkdirSync(join(out, '.inventory-mirror'), { recursive: true });
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: (await import('node:os')).hostname(), command: 'sync', since: '2026-11-21T00:00:00.000Z' }));
    const busy = await runCli(['sync', '--base-url', upstream.url, '--out', out], { env });
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain(`is locked by sync (pid ${process.pid}`);
    expect(existsSync(lock)).toBe(true);

    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(lock, JSON.stringify({ pid: dead, host: (await import('node:os')).hostname(), command: 'sync', since: '2026-11-21T00:00:00.000Z' }));
    // What a sync killed between writing its lock aside and linking it leaves.
    writeFileSync(`${lock}.${dead}.tmp`, '{}');
    const taken = await runCli(['sync', '--base-url', upstream.url, '--out', out], { env });
    expect(taken.code).toBe(0);
    expect(taken.stderr).toContain(`warning: took over a stale lock of ${out} left by pid ${dead}`);
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(join(out, '.inventory-mirror'))).toBe(false);
  });
});

describe('a record deleted during the sync', () => {
  it('is left out of the list and the filtered views with a warning; the snapshot stays self-consistent', async () => {
    const upstream = await useUpstream({ scale: 40 });
    const out = tempDir();
    const listed = (await (await fetch(`${upstream.url}/servers.json`, { headers: { 'x-api-token': TOKEN } })).json()) as { servers: { id: string }[] };
    const victim = listed.servers[4]!.id;
    upstream.hideSingle('servers', victim);
    const result = await syncInto(upstream, out);
    expect(result.findings.groups).toContainEqual(expect.objectContaining({ resource: 'servers', code: 'gone', count: 1, examples: [{ id: victim, name: expect.any(String) }] }));
    expect(existsSync(join(out, `servers/${victim}.json`))).toBe(false);
    const ids = (path: string) => (JSON.parse(readFileSync(join(out, path), 'utf8')) as { servers: { id: string }[] }).servers.map((s) => s.id);
    expect(ids('servers.json')).not.toContain(victim);
    const views = (await listFiles(out)).filter((p) => p.startsWith('servers/_filter/'));
    for (const view of views) expect(ids(view)).not.toContain(victim);
    expect(ids('servers.json').every((id) => existsSync(join(out, `servers/${id}.json`)))).toBe(true);
    expect(result.records.servers).toBe(39);
  });

  it('one gone on a re-sync leaves the list and views kept from 304s; the next sync rewrites nothing, and one after it comes back publishes it again', async () => {
    const upstream = await useUpstream({ scale: 40 });
    const out = tempDir();
    await syncInto(upstream, out);
    const ids = (path: string) => (JSON.parse(readFileSync(join(out, path), 'utf8')) as { servers: { id: string }[] }).servers.map((s) => s.id);
    const victim = ids('servers.json')[4]!;
    const views = (await listFiles(out)).filter((p) => p.startsWith('servers/_filter/'));
    const showing = views.filter((view) => ids(view).includes(victim));
    // Its operating system's view and its by_virtual one at least.
    expect(showing.length).toBeGreaterThanOrEqual(2);
    const single = singlePath('servers', victim);
    upstream.override(single, { status: 404, body: '{"error":"Not Found"}' });

    const gone = await syncInto(upstream, out);
    expect(gone.findings.groups).toContainEqual(expect.objectContaining({ resource: 'servers', code: 'gone', count: 1 }));
    expect(existsSync(join(out, recordFile('servers', victim)))).toBe(false);
    expect(ids('servers.json')).not.toContain(victim);
    for (const view of views) expect(ids(view)).not.toContain(victim);
    expect(await verifyFolder(out)).toMatchObject({ missing: [], altered: [], extra: [] });

    // The service still lists it and still answers 404: the same snapshot, no file written again.
    const runFiles = (state: Map<string, unknown>) => new Map([...state].filter(([path]) => path !== '_meta/last-sync.json' && path !== '_meta/http-cache.json'));
    const before = runFiles(await treeState(out));
    const again = await syncInto(upstream, out);
    expect(again.status).toBe('unchanged');
    expect(again.findings.groups).toContainEqual(expect.objectContaining({ resource: 'servers', code: 'gone', count: 1 }));
    expect(runFiles(await treeState(out))).toEqual(before);

    // The lists and views published without it were not the service's bodies: asked for whole, they bring it back.
    upstream.override(single, undefined);
    const back = await syncInto(upstream, out);
    expect(back.findings.groups.filter((g) => g.code === 'gone')).toEqual([]);
    expect(existsSync(join(out, recordFile('servers', victim)))).toBe(true);
    expect(ids('servers.json')).toContain(victim);
    for (const view of showing) expect(ids(view)).toContain(victim);
  });
});

describe('absurd bodies', () => {
  it('an oversized body fails cleanly with the limit named', async () => {
    const upstream = await useUpstream({ scale: 200 });
    const out = tempDir();
    const settings = parseConfig({ sync: { maxBodyBytes: 20_000, retries: 0 } }, 'test').sync;
    await expect(syncInto(upstream, out, { settings })).rejects.toThrow(/GET \/\w+\.json sent \d+ bytes, over the limit of 20000 \(sync\.maxBodyBytes\)/);
    expect(await treeState(out)).toEqual(new Map());
  });

  it('an absurd record count fails before any single record is fetched', async () => {
    const upstream = await useUpstream({ scale: 40 });
    const out = tempDir();
    const settings = parseConfig({ sync: { maxRecords: 30 } }, 'test').sync;
    const before = upstream.requestCount();
    await expect(syncInto(upstream, out, { settings })).rejects.toThrow('GET /servers.json lists more than 30 records (sync.maxRecords); raise it if the inventory really is that large');
    expect(upstream.requestCount() - before).toBe(5);
  });

  it('deeply nested JSON fails cleanly, not with a crash', async () => {
    const upstream = await useUpstream({ scale: 10 });
    const out = tempDir();
    const deep = `{"applications":[{"id":"1","name":"x","description":${'['.repeat(200_000)}${']'.repeat(200_000)}}]}`;
    upstream.override('/applications.json', { status: 200, body: deep });
    const result = await runCli(['sync', '--base-url', upstream.url, '--out', out], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/GET \/applications\.json sent JSON nested deeper than 100 levels/);
    expect(result.stderr).not.toMatch(/internal error/);
  });
});

describe('the token', () => {
  it('comes from a file read once; a world-readable file is warned about; it appears nowhere a failing run leaves', async () => {
    const upstream = await useUpstream({ scale: 20 });
    const dir = tempDir();
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`);
    chmodSync(tokenFile, 0o644);
    const out = join(dir, 'out');
    const ok = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--token-file', tokenFile]);
    expect(ok.code).toBe(0);
    expect(ok.stderr).toMatch(/warning: token file .* is readable by every user; restrict it with chmod 600/);
    upstream.setFaults({ failPaths: ['/databases.json'] });
    try {
      const failing = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--token-file', tokenFile, '--config', writeConfig(dir)]);
      expect(failing.code).toBe(1);
      expect(failing.stdout + failing.stderr).not.toContain(TOKEN);
      expect(await allBytes(out)).not.toContain(TOKEN);
    } finally {
      upstream.setFaults(undefined);
    }
  });
});

function writeConfig(dir: string): string {
  const path = join(dir, 'fast.json');
  writeFileSync(path, JSON.stringify({ sync: { retries: 1, retryBaseMs: 5 } }));
  return path;
}
