/**
 * Incremental syncs (`sync.incremental`): a record is fetched only when it is new, its list item
 * changed, a record it refers to was added, changed or removed, or it is due in the rolling
 * refresh; whatever the lists and references show, the folder ends equal to a full sync's.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SyncResult } from '../../src/sync/index.js';
import { formatSummary } from '../../src/sync/summary.js';
import type { Upstream } from '../../src/upstream/index.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { snapshotData, treeState } from '../helpers/tree.js';
import { runCli, startCli } from '../helpers/cli.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';

const INCREMENTAL = { incremental: true, refreshRuns: 7 };

const incremental = (upstream: Upstream, out: string, settings: Record<string, unknown> = {}): Promise<SyncResult> => syncInto(upstream, out, { settings: { ...INCREMENTAL, ...settings } });

const total = (result: SyncResult): number => Object.values(result.records).reduce((a, b) => a + b, 0);

/** The folder's data equals a fresh full sync of the same service. */
async function expectEqualToFullSync(upstream: Upstream, out: string): Promise<void> {
  const fresh = tempDir();
  await syncInto(upstream, fresh);
  expect(await snapshotData(out)).toEqual(await snapshotData(fresh));
}

describe('incremental sync', () => {
  it('falls back to a full sync on a first sync, then asks for only ceil(records / N) records when nothing changed, rewriting nothing', async () => {
    const upstream = await useUpstream({ scale: 60, profile: 'realistic' });
    const out = tempDir();
    const first = await incremental(upstream, out);
    expect(first.fetch.mode).toBe('full');
    expect(first.fetch.fallbacks).toEqual(['the folder has no snapshot yet']);
    expect(first.fetch.fetched).toBe(total(first));
    const before = await treeState(out);

    const second = await incremental(upstream, out);
    const records = total(second);
    const due = Math.ceil(records / 7);
    expect(second.fetch).toMatchObject({ mode: 'incremental', records, fetched: due, fallbacks: [] });
    expect(second.fetch.reasons).toEqual({ new: 0, changed: 0, cascade: 0, refresh: due, recheck: 0 });
    // Five lists, every view, the refreshed records; nothing else.
    expect(second.requests).toBe(5 + second.views + due);
    expect(second.files.written).toBe(0);
    const after = await treeState(out);
    for (const meta of ['_meta/last-sync.json', '_meta/http-cache.json']) {
      before.delete(meta);
      after.delete(meta);
    }
    expect(after).toEqual(before);
    expect(formatSummary(second, 'sim')).toContain(`records: ${due} of ${records} fetched (refresh ${due}), incremental`);
  });

  it('fetches what the lists and references show changed, and ends equal to a full sync; the silent change within N runs', async () => {
    const upstream = await useUpstream({ scale: 120, profile: 'realistic' });
    const out = tempDir();
    await syncInto(upstream, out);
    const report = upstream.mutate({ seed: 3, share: 0.03 });
    expect(report.changed.operating_systems).toHaveLength(1);
    expect(report.silent.servers).toHaveLength(1);
    const silent = `servers/${report.silent.servers[0]}.json`;

    const result = await incremental(upstream, out, { refreshRuns: 3 });
    expect(result.fetch.mode).toBe('incremental');
    const added = Object.values(report.added).flat().length;
    expect(result.fetch.reasons.new).toBe(added);
    expect(result.fetch.reasons.changed).toBeGreaterThan(0);
    // The changed operating system's servers, the renamed or removed servers' databases, appservers, applications.
    expect(result.fetch.reasons.cascade).toBeGreaterThan(0);
    expect(result.fetch.fetched).toBeLessThan(total(result));

    // Everything but what no list shows is as a full sync publishes it; within 3 runs, that too.
    const fresh = tempDir();
    await syncInto(upstream, fresh);
    const want = await snapshotData(fresh);
    const mine = await snapshotData(out);
    const differing = [...want.keys()].filter((path) => want.get(path) !== mine.get(path));
    expect(differing.filter((path) => path !== silent && path !== '_meta/quality.json')).toEqual([]);
    for (let run = 0; run < 3 && (await snapshotData(out)).get(silent) !== want.get(silent); run++) await incremental(upstream, out, { refreshRuns: 3 });
    expect(await snapshotData(out)).toEqual(want);
  });

  it('follows a server rename to the databases, appservers and applications that name it, and a removal to the database still naming it', async () => {
    const upstream = await useUpstream({ scale: 80, profile: 'realistic' });
    const out = tempDir();
    await syncInto(upstream, out);
    const servers = (JSON.parse(readFileSync(join(out, 'servers.json'), 'utf8')) as { servers: { id: string; name: string }[] }).servers;
    const databases = (JSON.parse(readFileSync(join(out, 'databases.json'), 'utf8')) as { databases: { id: string; server_names: string[] }[] }).databases;
    const hosting = databases.find((db) => db.server_names.length > 1 && db.server_names.every((name) => servers.some((s) => s.name === name)))!;
    const [renamedName, removedName] = hosting.server_names;
    const renamed = servers.find((s) => s.name === renamedName)!;
    const removed = servers.find((s) => s.name === removedName)!;
    const server = JSON.parse(readFileSync(join(out, `servers/${renamed.id}.json`), 'utf8')) as { server: Record<string, unknown> };
    upstream.putRecord('servers', { ...server.server, id: renamed.id, name: `${renamed.name}-renamed` });
    upstream.removeRecord('servers', removed.id);

    const result = await incremental(upstream, out, { refreshRuns: 1000 });
    expect(result.fetch.reasons).toMatchObject({ new: 0, changed: 1, refresh: 1 });
    expect(result.fetch.reasons.cascade).toBeGreaterThanOrEqual(1);
    const db = JSON.parse(readFileSync(join(out, `databases/${hosting.id}.json`), 'utf8')) as { database: { servers: { id: string; name: string }[] } };
    expect(db.database.servers).toContainEqual({ id: renamed.id, name: `${renamed.name}-renamed` });
    expect(db.database.servers.map((s) => s.id)).not.toContain(removed.id);
    await expectEqualToFullSync(upstream, out);
  });

  it('says why it falls back: no usable run metadata, another service, lists without updated_at', async () => {
    const upstream = await useUpstream({ scale: 30, profile: 'realistic' });
    const out = tempDir();
    await syncInto(upstream, out);
    rmSync(join(out, '_meta/http-cache.json'));
    const missing = await incremental(upstream, out);
    expect(missing.fetch.mode).toBe('full');
    expect(missing.fetch.fallbacks[0]).toMatch(/no usable run metadata/);
    expect(missing.fetch.fetched).toBe(total(missing));

    const other = await useUpstream({ scale: 30, profile: 'realistic' });
    const moved = await incremental(other, out);
    expect(moved.fetch.fallbacks).toEqual([`the snapshot came from another service (${upstream.url})`]);
    expect(moved.fetch.fetched).toBe(total(moved));

    const exact = await useUpstream({ scale: 30, profile: 'exact', extraFields: false });
    const plain = tempDir();
    await syncInto(exact, plain);
    const result = await incremental(exact, plain);
    expect(result.fetch.mode).toBe('incremental');
    expect(result.fetch.fallbacks).toContain('servers: its list items carry no updated_at, so every record is asked for');
    expect(result.fetch.reasons.recheck).toBe(Object.values(result.records).reduce((a, b) => a + b, 0));
  });

  it('keeps the run metadata small: under 150 bytes per record', async () => {
    const upstream = await useUpstream({ scale: 200, profile: 'realistic' });
    const out = tempDir();
    const result = await syncInto(upstream, out);
    const bytes = readFileSync(join(out, '_meta/http-cache.json')).length;
    expect(bytes / total(result)).toBeLessThan(150);
  });
});

describe('incremental sync from the command line', () => {
  it('sync --incremental prints why records were fetched; a bad --refresh-runs is a usage error naming the flag', async () => {
    const upstream = await useUpstream({ scale: 40, profile: 'realistic' });
    const out = tempDir();
    const env = { INVENTORY_API_TOKEN: TOKEN };
    const first = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--incremental'], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('not incremental: the folder has no snapshot yet');
    const second = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--incremental', '--refresh-runs', '4'], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/records: \d+ of \d+ fetched \(refresh \d+\), incremental/);
    expect(second.stdout).toContain('files 0 written, 0 removed');
    const bad = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--incremental', '--refresh-runs', '0'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--refresh-runs/);
  });

  it('schedule runs incremental syncs when asked: the first in full, the next ones asking for a share of the records', async () => {
    const upstream = await useUpstream({ scale: 40, profile: 'realistic' });
    const out = tempDir();
    const child = startCli(['schedule', '--cron', '* * * * * *', '--run-at-start', '--incremental', '--refresh-runs', '5', '--base-url', upstream.url, '--out', out], { env: { INVENTORY_API_TOKEN: TOKEN } });
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    try {
      const deadline = Date.now() + 60_000;
      while (stdout.split('\n').filter(Boolean).length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    const runs = stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { status: string; mode: string; fetched: number; records: Record<string, number> });
    expect(runs.length).toBeGreaterThanOrEqual(2);
    const records = Object.values(runs[0]!.records).reduce((a, b) => a + b, 0);
    expect(runs[0]).toMatchObject({ status: 'ok', mode: 'full', fetched: records });
    expect(runs[1]).toMatchObject({ status: 'unchanged', mode: 'incremental', fetched: Math.ceil(records / 5) });
  });
});
