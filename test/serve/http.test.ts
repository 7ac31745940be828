/** HTTP behaviour of serve: safety, conditional requests, compression, HEAD, token, methods, hostile ids. */
import { request } from 'node:http';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type RunningServe } from '../../src/serve/index.js';
import { TOKEN } from '../helpers/upstream.js';
import { buildMirror } from './helpers.js';

const mirror = await buildMirror({ seed: 11, scale: 60, browser: true });
let serve: RunningServe;
const HOSTILE = ['../x', 'a/b', '.', '..', '%2e%2e', '日本', 'a(b)*', 'x'.repeat(400), 'sp ace?&#'];

/** A raw request (the path goes out exactly as written, unlike fetch, which normalizes it). */
function raw(base: string, path: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: options.method ?? 'GET', headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  const template = mirror.data.views.servers.get(mirror.data.order.servers[0]!)!;
  for (const id of HOSTILE) mirror.upstream.putRecord('servers', { ...template, id, name: `hostile-${id.slice(0, 20)}` });
  await mirror.sync();
  // Files that exist in the folder but are not part of the snapshot.
  mkdirSync(join(mirror.dir, '.inventory-mirror'), { recursive: true });
  writeFileSync(join(mirror.dir, '.inventory-mirror', 'lock'), '{"pid":1}');
  serve = await startServe({ dir: mirror.dir, quiet: true });
});

afterAll(async () => {
  await serve?.close();
});

describe('serve over HTTP', () => {
  it('never answers outside the snapshot: traversal, encoded slashes, NUL, long paths, work files', async () => {
    const refused = [
      '/../../etc/passwd',
      '/servers/../../etc/passwd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/servers/_filter/%2e%2e/%2e%2e/servers.json',
      '/servers/_filter/by_system%2F..%2F..%2Fservers.json',
      '/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      '/servers/1.json%00.json',
      '/servers.json%00',
      `/servers/${'a'.repeat(9000)}.json`,
      '/.inventory-mirror/lock',
      '/%2einventory-mirror/lock',
      '/.gitignore',
      '/.git/config',
      '/_meta/last-sync.json',
      '/_meta/manifest.sig',
      '/etc/passwd',
      '/applications.xml',
      '/applications.csv',
    ];
    for (const path of refused) {
      const res = await raw(serve.url, path);
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
      expect(res.body.toString(), path).not.toContain('root:');
    }
    expect((await raw(serve.url, '/applications.xml')).status).toBe(404);
    expect((await raw(serve.url, '/_meta/manifest.json')).status).toBe(200);
    expect((await raw(serve.url, '/_meta/filters.json')).status).toBe(200);
    expect((await raw(serve.url, '/servers/_filter/by_system/1.json')).status).toBe(200);
  });

  it('hostile ids are reachable at their API path, with the service body', async () => {
    for (const id of HOSTILE) {
      const path = `/servers/${encodeURIComponent(id)}.json`;
      const ours = await raw(serve.url, path);
      const theirs = await raw(mirror.upstream.url, path, { headers: { 'X-Api-Token': TOKEN } });
      expect(ours.status, path).toBe(200);
      expect(JSON.parse(ours.body.toString()), path).toEqual(JSON.parse(theirs.body.toString()));
    }
  });

  it('answers with the JSON type, a strong ETag, Last-Modified; 304 on If-None-Match and If-Modified-Since', async () => {
    for (const path of ['/servers.json', `/servers/${mirror.data.order.servers[2]}.json`, '/servers.json?by_system=2&search=a']) {
      const first = await raw(serve.url, path);
      expect(first.status).toBe(200);
      expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
      const etag = String(first.headers.etag);
      expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
      const lastModified = String(first.headers['last-modified']);
      expect(new Date(lastModified).getTime()).toBeGreaterThan(0);
      const byTag = await raw(serve.url, path, { headers: { 'If-None-Match': etag } });
      expect(byTag.status).toBe(304);
      expect(byTag.body.length).toBe(0);
      expect((await raw(serve.url, path, { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
      expect((await raw(serve.url, path, { headers: { 'If-Modified-Since': lastModified } })).status).toBe(304);
      expect((await raw(serve.url, path, { headers: { 'If-Modified-Since': 'Thu, 01 Jan 2015 00:00:00 GMT' } })).status).toBe(200);
    }
  });

  it('answers / with the offline page', async () => {
    const res = await raw(serve.url, '/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body.equals(readFileSync(join(mirror.dir, 'index.html')))).toBe(true);
  });

  it('sends each file type of the mirror with its content type, byte for byte', async () => {
    const types: [string, string][] = [
      ['/servers.json', 'application/json; charset=utf-8'],
      ['/_meta/manifest.json', 'application/json; charset=utf-8'],
      ['/servers/_filter/by_virtual/1.json', 'application/json; charset=utf-8'],
      ['/index.html', 'text/html; charset=utf-8'],
      ['/_browser/app.css', 'text/css; charset=utf-8'],
      ['/_browser/app.js', 'text/javascript; charset=utf-8'],
      ['/_browser/data.js', 'text/javascript; charset=utf-8'],
      ['/_browser/records/servers/0.js', 'text/javascript; charset=utf-8'],
    ];
    for (const [path, type] of types) {
      const res = await raw(serve.url, path);
      expect(res.status, path).toBe(200);
      expect(res.headers['content-type'], path).toBe(type);
      expect(res.body.equals(readFileSync(join(mirror.dir, path.slice(1)))), path).toBe(true);
      const zipped = await raw(serve.url, path, { headers: { 'Accept-Encoding': 'gzip' } });
      expect(zipped.headers['content-type'], path).toBe(type);
      if (res.body.length >= 256) expect(gunzipSync(zipped.body).equals(res.body), path).toBe(true);
    }
  });

  it('ignores query parameters a resource does not know, as the service does', async () => {
    const plain = await raw(serve.url, '/servers.json');
    for (const path of ['/servers.json?color=red', '/servers.json?color=red&flag', '/operating_systems.json?search=linux']) {
      const res = await raw(serve.url, path);
      expect(res.status, path).toBe(200);
      if (path.startsWith('/servers')) expect(res.body.equals(plain.body), path).toBe(true);
    }
    const view = await raw(serve.url, '/servers.json?by_virtual=1');
    expect((await raw(serve.url, '/servers.json?color=red&by_virtual=1&x=')).body.equals(view.body)).toBe(true);
  });

  it('bodies streamed from disk (past streamAboveBytes) are the same bytes, in every coding and for HEAD', async () => {
    const streaming = await startServe({ dir: mirror.dir, quiet: true, streamAboveBytes: 1000, cacheBytes: 4000 });
    try {
      const paths = ['/servers.json', '/_meta/manifest.json', '/servers.json?by_virtual=1', '/servers.json?search=a', '/servers.json?by_system=1&search=e', '/databases.json?include=servers&by_name=a', '/_browser/tables/servers/0.js', '/_browser/app.js'];
      for (const path of paths) {
        const expected = await raw(serve.url, path);
        expect(expected.body.length, path).toBeGreaterThan(1000);
        for (const round of [1, 2]) {
          const plain = await raw(streaming.url, path);
          expect(plain.status, path).toBe(200);
          expect(plain.headers['content-length'], path).toBe(String(expected.body.length));
          expect(plain.headers.etag, path).toBe(expected.headers.etag);
          expect(plain.body.equals(expected.body), `${path} round ${round}`).toBe(true);
          for (const [coding, decode] of [['gzip', gunzipSync], ['br', brotliDecompressSync]] as const) {
            const packed = await raw(streaming.url, path, { headers: { 'Accept-Encoding': coding } });
            expect(packed.headers['content-encoding'], path).toBe(coding);
            expect(decode(packed.body).equals(expected.body), `${path} ${coding}`).toBe(true);
          }
          const head = await raw(streaming.url, path, { method: 'HEAD' });
          expect(head.body.length).toBe(0);
          expect(head.headers['content-length']).toBe(String(expected.body.length));
          expect((await raw(streaming.url, path, { headers: { 'If-None-Match': String(expected.headers.etag) } })).status).toBe(304);
        }
      }
    } finally {
      await streaming.close();
    }
  });

  it('gzip and brotli decode to the same body, with Vary; HEAD sends headers only', async () => {
    const plain = await raw(serve.url, '/servers.json');
    for (const [coding, decode] of [['gzip', gunzipSync], ['br', brotliDecompressSync]] as const) {
      const res = await raw(serve.url, '/servers.json', { headers: { 'Accept-Encoding': coding } });
      expect(res.headers['content-encoding']).toBe(coding);
      expect(res.headers.vary).toBe('Accept-Encoding');
      expect(decode(res.body).equals(plain.body)).toBe(true);
      const again = await raw(serve.url, '/servers.json', { headers: { 'Accept-Encoding': coding, 'If-None-Match': String(res.headers.etag) } });
      expect(again.status).toBe(304);
    }
    expect((await raw(serve.url, '/servers.json', { headers: { 'Accept-Encoding': 'gzip;q=0, br;q=0' } })).headers['content-encoding']).toBeUndefined();
    const head = await raw(serve.url, '/servers.json', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(Number(head.headers['content-length'])).toBe(plain.body.length);
  });

  it('other methods answer 405 with Allow', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await raw(serve.url, '/servers.json', { method });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
      expect(JSON.parse(res.body.toString()).error).toContain(method);
    }
  });

  it('with a token, every request must carry it', async () => {
    const guarded = await startServe({ dir: mirror.dir, quiet: true, token: 's3cret-token' });
    try {
      const missing = await raw(guarded.url, '/servers.json');
      expect(missing.status).toBe(401);
      expect(missing.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(missing.body.toString()).not.toContain('s3cret');
      expect((await raw(guarded.url, '/servers.json', { headers: { 'X-Api-Token': 's3cret-tokeN' } })).status).toBe(401);
      expect((await raw(guarded.url, '/servers.json', { headers: { 'X-Api-Token': 's3cret' } })).status).toBe(401);
      expect((await raw(guarded.url, '/servers.json', { method: 'POST' })).status).toBe(401);
      expect((await raw(guarded.url, '/servers.json', { headers: { 'X-Api-Token': 's3cret-token' } })).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });

  it('logs one line per request and a start line', async () => {
    const lines: string[] = [];
    const logged = await startServe({ dir: mirror.dir, log: (line) => lines.push(line) });
    try {
      await raw(logged.url, '/servers.json?by_virtual=1');
      await raw(logged.url, '/nothing.json');
    } finally {
      await logged.close();
    }
    // Every line starts with the time; request lines then name the client.
    const time = String.raw`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`;
    expect(lines[0]).toMatch(new RegExp(String.raw`^${time} serving .+ \(\d+ files, snapshot of \d{4}-.+\) on http://127\.0\.0\.1:\d+$`));
    expect(lines[1]).toMatch(new RegExp(String.raw`^${time} 127\.0\.0\.1 GET /servers\.json\?by_virtual=1 200 \d+ [\d.]+ms$`));
    expect(lines[2]).toMatch(new RegExp(String.raw`^${time} 127\.0\.0\.1 GET /nothing\.json 404 \d+ [\d.]+ms$`));
  });

  it('a folder without a manifest is a configuration error', async () => {
    const empty = join(mirror.dir, '_filter-none');
    mkdirSync(empty);
    await expect(startServe({ dir: empty })).rejects.toMatchObject({ code: 'E_CONFIG', exitCode: 2, message: expect.stringContaining('not a published snapshot') });
  });
});
