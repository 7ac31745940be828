/**
 * Conditional requests: a re-sync asks "changed since?" with the stored ETags; 304s reuse the
 * published files, and the result is the same snapshot a fresh sync would publish.
 */
import { readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { snapshotData, treeState } from '../helpers/tree.js';
import { useUpstream } from '../helpers/upstream.js';
import { keepsCtimes } from '../../src/snapshot/stamps.js';
import { verifyFolder } from '../../src/verify/verify.js';


describe('conditional requests', () => {
  it('an unchanged service answers 304 everywhere and nothing is rewritten', async () => {
    const upstream = await useUpstream({ scale: 50 });
    const out = tempDir();
    const first = await syncInto(upstream, out);
    expect(first.notModified).toBe(0);
    const before = await treeState(out);
    const second = await syncInto(upstream, out);
    expect(second.notModified).toBe(second.requests);
    expect(second.bytesReceived).toBe(0);
    expect(second.files.written).toBe(0);
    const after = await treeState(out);
    // Run metadata: the second also stamps the folders it found as the first left them (see stamps.ts).
    for (const meta of ['_meta/last-sync.json', '_meta/http-cache.json']) {
      before.delete(meta);
      after.delete(meta);
    }
    expect(after).toEqual(before);
  });

  it('after changes upstream, only changed bodies travel and the snapshot equals a fresh sync', async () => {
    const upstream = await useUpstream({ scale: 80 });
    const out = tempDir();
    await syncInto(upstream, out);
    const report = upstream.mutate({ seed: 5, share: 0.05 });
    const result = await syncInto(upstream, out);
    const changedRecords = Object.values(report.changed).flat().length + Object.values(report.added).flat().length;
    expect(result.notModified).toBeGreaterThan(result.requests / 2);
    expect(result.requests - result.notModified).toBeGreaterThanOrEqual(changedRecords);
    const fresh = tempDir();
    await syncInto(upstream, fresh);
    expect(await snapshotData(out)).toEqual(await snapshotData(fresh));
  });

  it('a published file that no longer matches its manifest is fetched again, not reused', async () => {
    const upstream = await useUpstream({ scale: 30 });
    const out = tempDir();
    await syncInto(upstream, out);
    const file = join(out, 'servers.json');
    const good = readFileSync(file);
    writeFileSync(file, good.toString('utf8').replace('"servers"', '"servers" ').replace(/\n$/, ''));
    const result = await syncInto(upstream, out);
    expect(result.files.sample.written).toEqual(['servers.json']);
    expect(readFileSync(file).equals(good)).toBe(true);
  });

  it('carries the findings of a body over on its 304, so a re-sync reports what the first did', async () => {
    const upstream = await useUpstream({ scale: 20 });
    upstream.putRecord('applications', { id: 'w1', name: 'warned', description: 42 });
    const out = tempDir();
    const first = await syncInto(upstream, out);
    const second = await syncInto(upstream, out);
    expect(second.notModified).toBe(second.requests);
    expect(second.findings).toEqual(first.findings);
    expect(first.findings.groups).toContainEqual(expect.objectContaining({ resource: 'applications', field: 'description', code: 'wrong_type', examples: [{ id: 'w1', name: 'warned', value: '42' }] }));
  });

  it('a kept file deleted from the folder is fetched and written again', async () => {
    const upstream = await useUpstream({ scale: 30 });
    const out = tempDir();
    await syncInto(upstream, out);
    const name = `servers/${readdirSync(join(out, 'servers')).find((n) => n.endsWith('.json'))!}`;
    const file = join(out, name);
    const good = readFileSync(file);
    rmSync(file);
    const result = await syncInto(upstream, out);
    expect(result.files.sample.written).toEqual([name]);
    expect(readFileSync(file).equals(good)).toBe(true);
  });

  it('a kept file deleted after a sync that stamped its folder unchanged is fetched and written again', async () => {
    const upstream = await useUpstream({ scale: 30 });
    const out = tempDir();
    await syncInto(upstream, out);
    // Past the moment a change is too recent to stamp (see stamps.ts): this sync stamps the folders it finds as the first left them.
    await new Promise((resolve) => setTimeout(resolve, 150));
    await syncInto(upstream, out);
    const stamped = Object.keys((JSON.parse(readFileSync(join(out, '_meta/http-cache.json'), 'utf8')) as { stamps: Record<string, string> }).stamps);
    // Stamps are taken only where ctimes can be trusted (see stamps.ts); the file comes back either way.
    if (await keepsCtimes(out)) expect(stamped).toEqual(expect.arrayContaining(['servers', 'applications', 'servers.json', '_meta/manifest.json']));
    const name = `servers/${readdirSync(join(out, 'servers')).find((n) => n.endsWith('.json'))!}`;
    const good = readFileSync(join(out, name));
    rmSync(join(out, name));
    const result = await syncInto(upstream, out, { settings: { incremental: true } });
    expect(result.files.sample.written).toEqual([name]);
    expect(readFileSync(join(out, name)).equals(good)).toBe(true);
    expect(await verifyFolder(out)).toMatchObject({ missing: [], altered: [], extra: [] });
  });

  it('after a reboot since the last sync (power loss may have cut files short), a kept file of the wrong size is written again', async () => {
    const upstream = await useUpstream({ scale: 30 });
    const out = tempDir();
    await syncInto(upstream, out);
    const name = `applications/${readdirSync(join(out, 'applications')).find((n) => n.endsWith('.json'))!}`;
    const file = join(out, name);
    const good = readFileSync(file);
    truncateSync(file, 0);
    const lastSync = join(out, '_meta', 'last-sync.json');
    writeFileSync(lastSync, readFileSync(lastSync, 'utf8').replace(/"bootId": "[^"]*"/, '"bootId": "an-earlier-boot"'));
    const result = await syncInto(upstream, out);
    expect(result.files.sample.written).toEqual([name]);
    expect(readFileSync(file).equals(good)).toBe(true);
    expect(await verifyFolder(out)).toMatchObject({ missing: [], altered: [], extra: [] });
  });

  it('a record whose list item changed is fetched and checked against it again', async () => {
    const upstream = await useUpstream({ scale: 20 });
    const out = tempDir();
    await syncInto(upstream, out);
    const list = JSON.parse(readFileSync(join(out, 'servers.json'), 'utf8')) as { servers: { id: string; name: string }[] };
    const victim = list.servers[1]!;
    const altered = { ...list, servers: list.servers.map((s) => (s.id === victim.id ? { ...s, name: 'renamed-in-the-list-only' } : s)) };
    upstream.override('/servers.json', { status: 200, body: JSON.stringify(altered) });
    const second = await syncInto(upstream, out);
    // The list and the one record whose item changed travel; everything else answers 304.
    expect(second.notModified).toBe(second.requests - 2);
    const mismatches = (result: typeof second) => result.findings.groups.filter((g) => g.code === 'view_mismatch');
    expect(mismatches(second)).toEqual([expect.objectContaining({ resource: 'servers', field: 'name', count: 1, examples: [{ id: victim.id, name: 'renamed-in-the-list-only', value: expect.stringContaining('renamed-in-the-list-only') }] })]);

    upstream.override('/servers.json', undefined);
    const third = await syncInto(upstream, out);
    expect(mismatches(third)).toEqual([]);
    expect(await snapshotData(out)).toEqual(await snapshotData(await freshSync(upstream)));
  });

  it('a record whose single view changed under an unchanged list is fetched and checked against its item in the kept list', async () => {
    const upstream = await useUpstream({ scale: 20 });
    const out = tempDir();
    await syncInto(upstream, out);
    const list = JSON.parse(readFileSync(join(out, 'servers.json'), 'utf8')) as { servers: { id: string; name: string }[] };
    const victim = list.servers[2]!;
    const single = JSON.parse(readFileSync(join(out, 'servers', `${victim.id}.json`), 'utf8')) as { server: { name: string } };
    upstream.override(`/servers/${victim.id}.json`, { status: 200, body: JSON.stringify({ server: { ...single.server, name: 'renamed-in-the-single-view' } }) });
    const second = await syncInto(upstream, out);
    // The list answers 304 and is kept; only the record travels.
    expect(second.notModified).toBe(second.requests - 1);
    expect(second.findings.groups.filter((g) => g.code === 'view_mismatch')).toEqual([
      expect.objectContaining({ resource: 'servers', field: 'name', count: 1, examples: [{ id: victim.id, name: victim.name, value: expect.stringContaining(victim.name) }] }),
    ]);
  });

  it('records kept without the digest of the list item they were checked against are fetched and checked again', async () => {
    const upstream = await useUpstream({ scale: 20 });
    const out = tempDir();
    await syncInto(upstream, out);
    const cacheFile = join(out, '_meta', 'http-cache.json');
    const cache = JSON.parse(readFileSync(cacheFile, 'utf8')) as { hasItem: string };
    const records = Buffer.from(cache.hasItem, 'base64').filter((has) => has === 1).length;
    expect(records).toBeGreaterThan(20);
    writeFileSync(cacheFile, JSON.stringify({ ...cache, hasItem: Buffer.alloc(Buffer.from(cache.hasItem, 'base64').length).toString('base64') }));
    const second = await syncInto(upstream, out);
    expect(second.requests - second.notModified).toBe(records);
    expect(second.files.written).toBe(0);
    const third = await syncInto(upstream, out);
    expect(third.notModified).toBe(third.requests);
  });
});

async function freshSync(upstream: Parameters<typeof syncInto>[0]): Promise<string> {
  const dir = tempDir();
  await syncInto(upstream, dir);
  return dir;
}

