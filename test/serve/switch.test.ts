/**
 * Snapshot switch under load: while requests run, a second sync publishes new data; every answer
 * is 200 and each list is wholly the old or wholly the new snapshot.
 */
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServe } from '../../src/serve/index.js';
import { buildMirror, TOKEN, type Mirror } from './helpers.js';

let mirror: Mirror;
let serve: RunningServe;

beforeAll(async () => {
  mirror = await buildMirror({ seed: 5, scale: 150 });
  serve = await startServe({ dir: mirror.dir, quiet: true, pollMs: 50 });
});

afterAll(async () => {
  await serve?.close();
  await mirror?.close();
});

async function upstreamIds(path: string): Promise<string> {
  const res = await fetch(mirror.upstream.url + path, { headers: { 'X-Api-Token': TOKEN } });
  const body = (await res.json()) as Record<string, { id: string }[]>;
  return Object.values(body)[0]!.map((r) => r.id).join(',');
}

describe('snapshot switch', () => {
  it('answers from the old or the new snapshot, never a mix, and then from the new one', async () => {
    const paths = ['/servers.json', '/applications.json', '/servers.json?by_virtual=1', '/servers.json?by_system=1&search=a'];
    const before = new Map(await Promise.all(paths.map(async (p) => [p, await upstreamIds(p)] as const)));
    const report = mirror.upstream.mutate({ seed: 3, share: 0.1 });
    expect(report.added.servers.length + report.removed.servers.length).toBeGreaterThan(0);
    const after = new Map(await Promise.all(paths.map(async (p) => [p, await upstreamIds(p)] as const)));
    for (const p of paths) expect(after.get(p), p).not.toBe(before.get(p));
    const kept = mirror.data.order.servers.find((id) => !report.removed.servers.includes(id))!;

    const agent = new Agent({ connections: 8 });
    const seen = { old: 0, new: 0, singles: 0 };
    let syncing = true;
    const sync = mirror.sync().finally(() => {
      syncing = false;
    });
    const deadline = Date.now() + 10_000;
    let sent = 0;
    let afterSync = 0;
    try {
      // Keep loading until the sync is done and the new snapshot has been seen for a while.
      while (sent < 2000 && Date.now() < deadline && (syncing || afterSync < 200 || seen.new === 0)) {
        const batch = Array.from({ length: 8 }, async (_, i) => {
          const single = (sent + i) % 5 === 4;
          const path = single ? `/servers/${kept}.json` : paths[(sent + i) % paths.length]!;
          const res = await request(serve.url + path, { dispatcher: agent });
          const text = await res.body.text();
          expect(res.statusCode, path).toBe(200);
          if (single) {
            seen.singles += 1;
            return;
          }
          const ids = Object.values(JSON.parse(text) as Record<string, { id: string }[]>)[0]!.map((r) => r.id).join(',');
          if (ids === before.get(path)) seen.old += 1;
          else if (ids === after.get(path)) seen.new += 1;
          else throw new Error(`${path}: a list that is neither the old nor the new snapshot`);
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
    expect(seen.singles).toBeGreaterThan(0);
    await serve.refresh();
    for (const p of paths) {
      const res = await fetch(serve.url + p);
      const ids = Object.values((await res.json()) as Record<string, { id: string }[]>)[0]!.map((r) => r.id).join(',');
      expect(ids, p).toBe(after.get(p));
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
    expect(serve.snapshot()).toBe(before);
    expect((await fetch(`${serve.url}/servers.json`)).status).toBe(200);
    rmSync(join(mirror.dir, '.inventory-mirror'), { recursive: true, force: true });
    await serve.refresh();
    expect(serve.snapshot()).not.toBe(before);
    expect(serve.snapshot().lastModified.getTime()).toBeGreaterThan(before.lastModified.getTime());
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
