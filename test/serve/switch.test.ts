/**
 * Snapshot switch under load: while lists, queries and records are asked for, a second sync
 * publishes new data; every answer is byte for byte the old or the new snapshot's, never a mix.
 */
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeJson } from '../../src/json/encode.js';
import { startServe, type RunningServe } from '../../src/serve/index.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';
import { buildMirror } from './helpers.js';

const mirror = await buildMirror({ seed: 5, scale: 150 });
let serve: RunningServe;

beforeAll(async () => {
  serve = await startServe({ dir: mirror.dir, quiet: true, pollMs: 50 });
});

afterAll(async () => {
  await serve?.close();
});

/** What the service answers for `path`: status and, for 200, the body as the mirror publishes it. */
async function upstream(path: string): Promise<{ status: number; bytes: Buffer | undefined }> {
  const res = await fetch(mirror.upstream.url + path, { headers: { 'X-Api-Token': TOKEN } });
  const text = await res.text();
  return { status: res.status, bytes: res.status === 200 ? encodeJson(JSON.parse(text)) : undefined };
}

describe('snapshot switch', () => {
  it('answers from the old or the new snapshot, never a mix, and then from the new one', async () => {
    // Lists, views and queries (the substring ones cut from the held list files), and records:
    // kept, changed, removed and added by the publish, most of them not read before it.
    const lists = ['/servers.json', '/applications.json', '/servers.json?by_virtual=1', '/servers.json?by_system=1&search=a', '/servers.json?search=ar', '/appservers.json?by_dns=example&by_name=a', '/databases.json?include=servers&by_name=a'];
    const ids = mirror.data.order.servers;
    const report = mirror.upstream.mutate({ seed: 3, share: 0.1 });
    const changed = report.changed.servers.slice(0, 12);
    const removed = report.removed.servers.slice(0, 6);
    const added = report.added.servers.slice(0, 6);
    const kept = ids.filter((id) => !report.removed.servers.includes(id) && !report.changed.servers.includes(id)).slice(0, 12);
    expect(changed.length * removed.length * added.length).toBeGreaterThan(0);
    const records = [...changed, ...removed, ...added, ...kept].map((id) => `/servers/${encodeURIComponent(id)}.json`);
    const paths = [...lists, ...records];
    const after = new Map(await Promise.all(paths.map(async (p) => [p, await upstream(p)] as const)));
    // The service's answers before the mutation, from a second upstream with the same data.
    const previous = await useUpstream({ seed: 5, scale: 150, profile: 'exact' });
    const before = new Map(
      await Promise.all(
        paths.map(async (p) => {
          const res = await fetch(previous.url + p, { headers: { 'X-Api-Token': TOKEN } });
          const text = await res.text();
          return [p, { status: res.status, bytes: res.status === 200 ? encodeJson(JSON.parse(text)) : undefined }] as const;
        }),
      ),
    );
    for (const p of lists) expect(after.get(p)!.bytes!.equals(before.get(p)!.bytes!), p).toBe(false);

    const agent = new Agent({ connections: 8 });
    const seen = { old: 0, new: 0, oldRecords: 0, newRecords: 0 };
    let syncing = true;
    const sync = mirror.sync().finally(() => {
      syncing = false;
    });
    const deadline = Date.now() + 20_000;
    let sent = 0;
    let afterSync = 0;
    const same = (a: { status: number; bytes: Buffer | undefined }, status: number, body: Buffer): boolean => a.status === status && (status !== 200 || a.bytes!.equals(body));
    try {
      // Keep loading until the sync is done and the new snapshot's lists and records have both
      // been seen for a while (on a loaded machine the sync can take longer than thousands of requests).
      while (sent < 20_000 && Date.now() < deadline && (syncing || afterSync < 200 || seen.new === 0 || seen.newRecords === 0)) {
        const batch = Array.from({ length: 8 }, async (_, i) => {
          const path = paths[(sent + i) % paths.length]!;
          const res = await request(serve.url + path, { dispatcher: agent });
          const body = Buffer.from(await res.body.arrayBuffer());
          const record = !lists.includes(path);
          if (same(before.get(path)!, res.statusCode, body) && same(after.get(path)!, res.statusCode, body)) return;
          if (same(before.get(path)!, res.statusCode, body)) seen[record ? 'oldRecords' : 'old'] += 1;
          else if (same(after.get(path)!, res.statusCode, body)) seen[record ? 'newRecords' : 'new'] += 1;
          else throw new Error(`${path}: ${res.statusCode}, an answer that is neither the old nor the new snapshot's`);
        });
        await Promise.all(batch);
        sent += batch.length;
        if (!syncing) afterSync += batch.length;
      }
      await sync;
    } finally {
      await agent.close();
    }
    expect(seen.old).toBeGreaterThan(0);
    expect(seen.new).toBeGreaterThan(0);
    expect(seen.oldRecords).toBeGreaterThan(0);
    expect(seen.newRecords).toBeGreaterThan(0);
    await serve.refresh();
    for (const p of paths) {
      const res = await fetch(serve.url + p);
      const body = Buffer.from(await res.arrayBuffer());
      expect(same(after.get(p)!, res.status, body), p).toBe(true);
    }
  });

  it('keeps serving the previous snapshot while a journal says a publish is in progress', async () => {
    const { writeFileSync, mkdirSync, rmSync, utimesSync } = await import('node:fs');
    const { join } = await import('node:path');
    const before = serve.snapshot();
    mkdirSync(join(mirror.dir, '.inventory-mirror'), { recursive: true });
    writeFileSync(join(mirror.dir, '.inventory-mirror', 'journal.json'), '{"format":2,"puts":[],"removes":[]}');
    const manifest = join(mirror.dir, '_meta', 'manifest.json');
    utimesSync(manifest, new Date(), new Date(Date.now() + 5_000));
    await serve.refresh();
    expect(serve.snapshot()).toEqual(before);
    expect((await fetch(`${serve.url}/servers.json`)).status).toBe(200);
    rmSync(join(mirror.dir, '.inventory-mirror'), { recursive: true, force: true });
    await serve.refresh();
    expect(serve.snapshot().publishedAt.getTime()).toBeGreaterThan(before.publishedAt.getTime());
  });

  it('at start, finishes an interrupted publish left without a live writer', async () => {
    const { writeFileSync, mkdirSync, existsSync } = await import('node:fs');
    const { join } = await import('node:path');
    mkdirSync(join(mirror.dir, '.inventory-mirror'), { recursive: true });
    writeFileSync(join(mirror.dir, '.inventory-mirror', 'journal.json'), '{"format":2,"puts":[],"removes":[]}');
    const lines: string[] = [];
    const again = await startServe({ dir: mirror.dir, quiet: true, log: (line) => lines.push(line) });
    try {
      expect(existsSync(join(mirror.dir, '.inventory-mirror', 'journal.json'))).toBe(false);
      expect(lines[0]).toContain('finished a publish');
      expect((await fetch(`${again.url}/servers.json`)).status).toBe(200);
    } finally {
      await again.close();
    }
  });
});
