/**
 * Serving from disk: a file is sent only when it holds the bytes of the snapshot being served.
 * Links inside the folder are refused at start and never read through; a file altered after the
 * load is not served (503 after a bounded wait) until it matches a snapshot again, by being put
 * back or by a publish; never wrong bytes.
 */
import { readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeJson } from '../../src/json/encode.js';
import { startServe, type RunningServe } from '../../src/serve/index.js';
import { tempDir } from '../helpers/tmp.js';
import { TOKEN } from '../helpers/upstream.js';
import { buildMirror, fetchJson } from './helpers.js';

const mirror = await buildMirror({ seed: 17, scale: 60 });

async function get(serve: RunningServe, path: string): Promise<{ status: number; body: Buffer; retryAfter: string | null }> {
  const res = await fetch(serve.url + path, { headers: { 'Accept-Encoding': 'identity' } });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), retryAfter: res.headers.get('retry-after') };
}

/** Replaces `path` (inside the mirror) by a link to a copy of itself elsewhere; undoes it after `run`. */
async function withLink(path: string, run: () => Promise<void>): Promise<void> {
  const outside = tempDir('im-outside-');
  const real = join(mirror.dir, path);
  const moved = join(outside, 'moved');
  renameSync(real, moved);
  symlinkSync(moved, real);
  try {
    await run();
  } finally {
    rmSync(real);
    renameSync(moved, real);
  }
}

describe('links inside the folder', () => {
  it('a snapshot folder that is a link: serve refuses to start, naming it', async () => {
    await withLink('servers/_filter', async () => {
      await expect(startServe({ dir: mirror.dir, quiet: true })).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/servers\/_filter is a symbolic link/) });
    });
    await withLink('servers', async () => {
      await expect(startServe({ dir: mirror.dir, quiet: true })).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/servers is a symbolic link/) });
    });
  });

  it('a list file or the manifest that is a link: refused at start, naming it', async () => {
    for (const path of ['servers.json', '_meta/manifest.json']) {
      await withLink(path, async () => {
        await expect(startServe({ dir: mirror.dir, quiet: true }), path).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining(`${path} is a symbolic link`) });
      });
    }
  });

  it('a record or view that became a link is not read through, even to the same bytes', async () => {
    const serve = await startServe({ dir: mirror.dir, quiet: true, waitMs: 200 });
    try {
      const record = `servers/${mirror.data.order.servers[4]}.json`;
      for (const [path, url] of [
        [record, `/${record}`],
        ['servers/_filter/by_virtual/0.json', '/servers.json?by_virtual=0'],
        ['servers/_filter/by_virtual/1.json', '/servers.json?by_virtual=1&search=a'],
      ] as const) {
        await withLink(path, async () => {
          const res = await get(serve, url);
          expect(res.status, url).toBe(503);
          expect(res.retryAfter).toBe('1');
        });
        const res = await get(serve, url);
        expect(res.status, url).toBe(200);
      }
    } finally {
      await serve.close();
    }
  });
});

describe('a file altered on disk after the load', () => {
  it('is not served until it matches the snapshot again; what was already read stays right', async () => {
    const serve = await startServe({ dir: mirror.dir, quiet: true, waitMs: 200 });
    const ids = mirror.data.order.servers;
    const cold = join(mirror.dir, `servers/${ids[10]}.json`);
    const warm = join(mirror.dir, `servers/${ids[11]}.json`);
    const list = join(mirror.dir, 'servers.json');
    const originals = new Map([cold, warm, list].map((file) => [file, readFileSync(file)]));
    try {
      // Read once, so its bytes are in the cache.
      expect((await get(serve, `/servers/${ids[11]}.json`)).body.equals(originals.get(warm)!)).toBe(true);
      const searched = `/servers.json?search=${encodeURIComponent(String(mirror.data.views.servers.get(ids[3]!)!.name).slice(0, 5))}`;
      for (const file of [cold, warm]) {
        const wrong = Buffer.from(originals.get(file)!.toString().replace(/"name": "/, '"name": "X'));
        writeFileSync(file, wrong);
      }
      // In place: the held list file itself changes (a publish never does that; something else might).
      writeFileSync(list, Buffer.from(originals.get(list)!.toString().replace(/"name": "(.)/g, '"name": "Q')));

      const coldAnswer = await get(serve, `/servers/${ids[10]}.json`);
      expect(coldAnswer.status).toBe(503);
      expect(coldAnswer.retryAfter).toBe('1');
      expect(coldAnswer.body.toString()).toContain('error');
      const warmAnswer = await get(serve, `/servers/${ids[11]}.json`);
      expect(warmAnswer.status).toBe(200);
      expect(warmAnswer.body.equals(originals.get(warm)!)).toBe(true);
      expect((await get(serve, searched)).status).toBe(503);
      expect((await get(serve, '/servers.json')).status).toBe(503);

      for (const [file, bytes] of originals) writeFileSync(file, bytes);
      const back = await get(serve, `/servers/${ids[10]}.json`);
      expect(back.status).toBe(200);
      expect(back.body.equals(originals.get(cold)!)).toBe(true);
      expect((await get(serve, '/servers.json')).body.equals(originals.get(list)!)).toBe(true);
      const answer = await get(serve, searched);
      expect(answer.status).toBe(200);
      const theirs = await fetchJson(mirror.upstream.url, searched, { 'X-Api-Token': TOKEN });
      expect(answer.body.equals(encodeJson(theirs.body))).toBe(true);
    } finally {
      for (const [file, bytes] of originals) writeFileSync(file, bytes);
      await serve.close();
    }
  });

  it('waits for the publish that replaces it and answers from the new snapshot', async () => {
    const serve = await startServe({ dir: mirror.dir, quiet: true, pollMs: 60_000, waitMs: 30_000 });
    try {
      const id = mirror.data.order.servers[20]!;
      const path = `/servers/${encodeURIComponent(id)}.json`;
      const before = serve.snapshot();
      const view = mirror.data.views.servers.get(id)!;
      mirror.upstream.putRecord('servers', { ...view, id, name: 'renamed-by-the-test' });
      // What a publish looks like from here: the record's file is replaced before the manifest is.
      writeFileSync(join(mirror.dir, path.slice(1)), 'not yet the new record\n');
      const answer = get(serve, path);
      await mirror.sync();
      const res = await answer;
      expect(res.status).toBe(200);
      expect(serve.snapshot().publishedAt.getTime()).toBeGreaterThan(before.publishedAt.getTime());
      const theirs = await fetchJson(mirror.upstream.url, path, { 'X-Api-Token': TOKEN });
      expect(res.body.equals(encodeJson(theirs.body))).toBe(true);
      expect(JSON.parse(res.body.toString()).server.name).toBe('renamed-by-the-test');
    } finally {
      await serve.close();
    }
  });
});

describe('a folder made of something else', () => {
  it('a FIFO where a record should be does not hang a request', async () => {
    const { execFileSync } = await import('node:child_process');
    const serve = await startServe({ dir: mirror.dir, quiet: true, waitMs: 200 });
    const file = join(mirror.dir, `servers/${mirror.data.order.servers[30]}.json`);
    const saved = readFileSync(file);
    try {
      rmSync(file);
      execFileSync('mkfifo', [file]);
      expect((await get(serve, `/servers/${mirror.data.order.servers[30]}.json`)).status).toBe(503);
    } finally {
      rmSync(file, { force: true });
      writeFileSync(file, saved);
      await serve.close();
    }
  });
});
