/**
 * `--resources` (config `resources`): mirroring part of the inventory. Only the chosen lists,
 * records and views are fetched and published; cross-checks needing another resource are skipped;
 * the snapshot's own files cover the chosen ones; a dropped resource's files go (the mass-removal
 * guard does not refuse it), an added one is fetched in full, incremental runs keep working.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SyncResult } from '../../src/sync/index.js';
import { runCli } from '../helpers/cli.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { snapshotData } from '../helpers/tree.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';
import { listFiles } from '../../src/verify/verify.js';

const ALL = ['applications', 'databases', 'operating_systems', 'servers', 'appservers'];

/** The resources a folder holds files of: lists, record folders, views. */
async function resourcesIn(dir: string): Promise<string[]> {
  const files = await listFiles(dir);
  const found = new Set<string>();
  for (const file of files) {
    const match = /^([a-z_]+)(?:\.json$|\/)/.exec(file);
    if (match && ALL.includes(match[1]!)) found.add(match[1]!);
  }
  return [...found].sort();
}

const total = (result: SyncResult): number => Object.values(result.records).reduce((a, b) => a + b, 0);
const quality = (dir: string): { records: Record<string, number>; findings: { resource: string; code: string }[] } => JSON.parse(readFileSync(join(dir, '_meta/quality.json'), 'utf8'));

describe('choosing resources', () => {
  it('a name the service does not have is a usage or config error naming it and listing the valid ones', async () => {
    const dir = tempDir();
    const flag = await runCli(['sync', '--base-url', 'http://127.0.0.1:9', '--out', join(dir, 'out'), '--resources', 'servers,server'], { env: { INVENTORY_API_TOKEN: TOKEN }, cwd: dir });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('unknown resource "server"');
    expect(flag.stderr).toContain('applications, databases, operating_systems, servers, appservers');
    expect(flag.stderr.trim().split('\n')).toHaveLength(1);

    const config = join(dir, 'mirror.json');
    writeFileSync(config, JSON.stringify({ resources: ['hosts'] }));
    const file = await runCli(['sync', '--config', config, '--base-url', 'http://127.0.0.1:9', '--out', join(dir, 'out')], { env: { INVENTORY_API_TOKEN: TOKEN }, cwd: dir });
    expect(file.code).toBe(2);
    expect(file.stderr).toContain(`${config}: resources[0]: unknown resource "hosts"`);
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('mirrors only the chosen lists, records and views; quality, summary and the page cover only them', async () => {
    const upstream = await useUpstream({ scale: 60, profile: 'realistic' });
    const out = tempDir();
    const result = await syncInto(upstream, out, { resources: ['servers', 'operating_systems'], browser: true });
    expect(await resourcesIn(out)).toEqual(['operating_systems', 'servers']);
    expect(Object.keys(result.records).sort()).toEqual(['operating_systems', 'servers']);
    // Two lists, every server view, every record of the two: nothing of the other three.
    expect(result.requests).toBe(2 + result.views + total(result));
    const filters = JSON.parse(readFileSync(join(out, '_meta/filters.json'), 'utf8')) as { filters: { resource: string }[] };
    expect(new Set(filters.filters.map((f) => f.resource))).toEqual(new Set(['servers']));
    expect(Object.keys(quality(out).records).sort()).toEqual(['operating_systems', 'servers']);
    expect(readFileSync(join(out, '_browser/data.js'), 'utf8')).toContain('"order":["operating_systems","servers"]');
    const verified = await runCli(['verify', '--dir', out]);
    expect(verified.code).toBe(0);
  });

  it('the command line: --resources, its summary and --metrics-file name only the chosen resources', async () => {
    const upstream = await useUpstream({ scale: 20 });
    const dir = tempDir();
    const metrics = join(dir, 'inventory.prom');
    const run = await runCli(['sync', '--base-url', upstream.url, '--out', join(dir, 'out'), '--resources', 'operating_systems, servers', '--metrics-file', metrics], { env: { INVENTORY_API_TOKEN: TOKEN } });
    expect(run.code).toBe(0);
    const counted = run.stdout.split('\n').flatMap((line) => /^ {2}([a-z_]+) +\d+ records$/.exec(line)?.[1] ?? []);
    expect(counted).toEqual(['operating_systems', 'servers']);
    const series = readFileSync(metrics, 'utf8').split('\n').flatMap((line) => /^inventory_mirror_records\{(?:mirror="[^"]*",)?resource="([a-z_]+)"\}/.exec(line)?.[1] ?? []);
    expect(series).toEqual(['operating_systems', 'servers']);
  });

  it('skips the cross-checks whose other side is not mirrored, never reporting them as findings', async () => {
    const upstream = await useUpstream({ scale: 60, profile: 'realistic' });
    const out = tempDir();
    const result = await syncInto(upstream, out, { resources: ['appservers', 'databases'] });
    expect(result.records.appservers).toBeGreaterThan(0);
    expect(result.findings.groups.filter((g) => g.code === 'dangling_ref')).toEqual([]);
    expect(quality(out).findings.filter((g) => g.code === 'dangling_ref')).toEqual([]);
  });

  it('removes a dropped resource without the mass-removal guard refusing it, fetches an added one in full, incrementally too', async () => {
    const upstream = await useUpstream({ scale: 60, profile: 'realistic' });
    const out = tempDir();
    const settings = { incremental: true, refreshRuns: 7 };
    await syncInto(upstream, out, { settings });
    expect(await resourcesIn(out)).toEqual([...ALL].sort());

    // Dropped on purpose: published, its files gone, and no change set calls its records removed.
    // A server removed at the same time: records were removed, and only mirrored ones count.
    const servers = (JSON.parse(readFileSync(join(out, 'servers.json'), 'utf8')) as { servers: { id: string }[] }).servers;
    upstream.removeRecord('servers', servers.at(-1)!.id);
    const dropped = await syncInto(upstream, out, { settings, resources: ['servers'] });
    expect(dropped.status).toBe('published');
    expect(await resourcesIn(out)).toEqual(['servers']);
    expect(dropped.changes.appservers.removed).toEqual([]);
    const history = JSON.parse(readFileSync(join(out, '_meta/changes.json'), 'utf8')) as { changes: { counts?: Record<string, unknown> }[] };
    expect(history.changes[0]?.counts).toEqual({ servers: { added: 0, removed: 1, changed: 0 } });
    // Incremental on the subset: servers embed their operating system, but one no longer mirrored
    // is no change: only what referred to the removed server is fetched again, not every server.
    expect(dropped.fetch).toMatchObject({ mode: 'incremental', fallbacks: [] });
    expect(dropped.records.servers).toBe(servers.length - 1);
    expect(dropped.fetch.reasons.cascade).toBeLessThan(servers.length / 4);

    // Unchanged, incremental: one list, the server views, the rolling refresh.
    const quiet = await syncInto(upstream, out, { settings, resources: ['servers'] });
    const due = Math.ceil(total(quiet) / 7);
    expect(quiet.fetch).toMatchObject({ mode: 'incremental', fetched: due });
    expect(quiet.requests).toBe(1 + quiet.views + due);
    expect(quiet.files.written).toBe(0);

    // Added back: every appserver and system is new, and the folder equals a fresh sync of the three.
    const added = await syncInto(upstream, out, { settings, resources: ['servers', 'operating_systems', 'appservers'] });
    expect(added.fetch.reasons.new).toBe(added.records.appservers! + added.records.operating_systems!);
    const fresh = tempDir();
    await syncInto(upstream, fresh, { resources: ['appservers', 'servers', 'operating_systems'] });
    expect(await snapshotData(out)).toEqual(await snapshotData(fresh));
  });
});
