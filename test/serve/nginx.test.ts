/**
 * The generated nginx configuration, run by a real nginx over a real mirror: every list, record
 * (hostile ids included) and precomputed view answers the mirror's file at the service's URL.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { parseManifest } from '../../src/publish/manifest.js';
import { buildMirror, type Mirror } from './helpers.js';

const hasNginx = spawnSync('nginx', ['-v']).status === 0;
if (!hasNginx) console.warn('nginx is not on PATH: the nginx-conf test is skipped (apt-get install -y nginx)');

const HOSTILE = ['../x', 'a/b', '.', '..', '.hidden', '%2e%2e', '日本', 'a(b)*', "it's!", 'x'.repeat(400), 'sp ace?&#', '_filter'];

let mirror: Mirror;
let nginx: ChildProcess | undefined;
let base = '';
let work = '';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function nginxConf(dir: string, port: number): Promise<string> {
  let out = '';
  let err = '';
  const sink = (append: (s: string) => void): Writable => new Writable({ write: (chunk, _enc, done) => (append(String(chunk)), done()) });
  const status = await main(['nginx-conf', '--dir', dir, '--port', String(port)], { stdout: sink((s) => (out += s)), stderr: sink((s) => (err += s)), env: {}, cwd: dir, isTTY: false });
  if (status !== 0) throw new Error(`nginx-conf exited ${status}: ${err}`);
  return out;
}

async function waitFor(url: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (nginx?.exitCode !== null) throw new Error(`nginx exited: ${readFileSync(join(work, 'error.log'), 'utf8')}`);
    const ok = await fetch(url).then(() => true, () => false);
    if (ok) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error('nginx did not start listening');
}

describe.skipIf(!hasNginx)('nginx-conf under a real nginx', () => {
  beforeAll(async () => {
    mirror = await buildMirror({ seed: 13, scale: 60 });
    const template = mirror.data.views.servers.get(mirror.data.order.servers[0]!)!;
    for (const id of HOSTILE) mirror.upstream.putRecord('servers', { ...template, id, name: `hostile-${id.slice(0, 20)}` });
    await mirror.sync();
    work = mkdtempSync(join(tmpdir(), 'im-nginx-'));
    for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(work, sub));
    const port = await freePort();
    const site = await nginxConf(mirror.dir, port);
    const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${join(work, kind === 'client_body' ? 'body' : kind)};`).join('\n');
    writeFileSync(join(work, 'nginx.conf'), `${process.getuid?.() === 0 ? 'user root;\n' : ''}events { worker_connections 64; }\nhttp {\n  access_log ${join(work, 'access.log')};\n${temp}\n${site}\n}\n`);
    nginx = spawn('nginx', ['-p', work, '-c', join(work, 'nginx.conf'), '-g', `daemon off; pid ${join(work, 'nginx.pid')}; error_log ${join(work, 'error.log')};`], { stdio: 'ignore' });
    base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/servers.json`);
  });

  afterAll(async () => {
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((done) => nginx!.once('exit', done));
      nginx.kill('SIGTERM');
      await exited;
    }
    if (work) rmSync(work, { recursive: true, force: true });
    await mirror?.close();
  });

  it('answers every list, record and view with the mirror file', async () => {
    const manifest = parseManifest(readFileSync(join(mirror.dir, '_meta', 'manifest.json')))!;
    const requests: [string, string][] = [];
    for (const resource of ['applications', 'databases', 'operating_systems', 'servers', 'appservers']) {
      requests.push([`/${resource}.json`, `${resource}.json`]);
      for (const record of (JSON.parse(readFileSync(join(mirror.dir, `${resource}.json`), 'utf8')) as Record<string, { id: string }[]>)[resource]!) {
        requests.push([`/${resource}/${encodeURIComponent(record.id)}.json`, '']);
      }
    }
    const index = JSON.parse(readFileSync(join(mirror.dir, '_meta', 'filters.json'), 'utf8')) as { filters: { path: string; file: string }[] };
    for (const view of index.filters) requests.push([view.path, view.file]);
    requests.push(['/_meta/filters.json', '_meta/filters.json']);
    expect(requests.length).toBeGreaterThan(100);
    for (const [path, file] of requests) {
      const res = await fetch(base + path);
      const body = Buffer.from(await res.arrayBuffer());
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toBe('application/json; charset=utf-8');
      if (file) expect(body.equals(readFileSync(join(mirror.dir, file))), path).toBe(true);
      else expect(manifest.files[Object.keys(manifest.files).find((f) => readFileSync(join(mirror.dir, f)).equals(body))!], path).toBeDefined();
    }
    for (const id of HOSTILE) {
      const res = await fetch(`${base}/servers/${encodeURIComponent(id)}.json`);
      expect(((await res.json()) as { server: { id: string } }).server.id).toBe(id);
    }
  });

  it('refuses what the mirror cannot answer and what is not part of the snapshot', async () => {
    // fetch resolves dot segments (also encoded ones) before sending, as browsers do.
    const cases: [string, number][] = [
      ['/servers/no-such-id.json', 404],
      ['/applications.xml', 404],
      ['/.gitignore', 404],
      ['/.inventory-mirror/lock', 404],
      ['/_meta/last-sync.json', 404],
      ['/%2e%2e/%2e%2e/etc/passwd', 404],
      ['/servers/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd.json', 400],
      ['/servers.json?search=web', 400],
      ['/servers.json?by_system=1&by_virtual=1', 400],
    ];
    for (const [path, status] of cases) {
      const res = await fetch(base + path);
      const text = await res.text();
      expect(res.status, path).toBe(status);
      expect(text, path).not.toContain('root:');
    }
    const post = await fetch(`${base}/servers.json`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('sends ETags, honours If-None-Match, gzips on request and answers HEAD', async () => {
    const first = await fetch(`${base}/servers.json`, { headers: { 'Accept-Encoding': 'identity' } });
    const plain = Buffer.from(await first.arrayBuffer());
    const etag = first.headers.get('etag')!;
    expect(etag).toBeTruthy();
    expect((await fetch(`${base}/servers.json`, { headers: { 'If-None-Match': etag } })).status).toBe(304);
    const zipped = await fetch(`${base}/servers.json`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.headers.get('vary')).toBe('Accept-Encoding');
    expect(Buffer.from(await zipped.arrayBuffer()).equals(plain)).toBe(true);
    const head = await fetch(`${base}/servers.json`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });
});
