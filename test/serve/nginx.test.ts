/**
 * The generated nginx configuration, run by a real nginx over a real mirror: every list, record
 * (hostile ids included) and precomputed view answers the mirror's file at the service's URL.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { parseManifest } from '../../src/snapshot/manifest.js';
import { querySpellings } from '../../src/serve/nginx.js';
import { hasNginx, startNginx, type RunningNginx } from '../../bench/lib/nginx-process.js';
import { buildMirror, type Mirror } from './helpers.js';

const nginxInstalled = hasNginx();
if (!nginxInstalled) console.warn('nginx is not on PATH: the nginx-conf test is skipped (apt-get install -y nginx)');

const HOSTILE = ['../x', 'a/b', '.', '..', '.hidden', '%2e%2e', '日本', 'a(b)*', "it's!", 'x'.repeat(400), 'sp ace?&#', '_filter'];

let mirror: Mirror;
// Built only where nginx runs: elsewhere the tests below are skipped.
if (nginxInstalled) mirror = await buildMirror({ seed: 13, scale: 60, browser: true });
let nginx: RunningNginx | undefined;
let base = '';

/** The server block as the `nginx-conf` command prints it (listening on `--port PORT`, or on `--listen HOST:PORT`). */
async function nginxConf(dir: string, port: number, host?: string): Promise<string> {
  let out = '';
  let err = '';
  const sink = (append: (s: string) => void): Writable => new Writable({ write: (chunk, _enc, done) => (append(String(chunk)), done()) });
  const where = host === undefined ? ['--port', String(port)] : ['--listen', `${host}:${port}`];
  const status = await main(['nginx-conf', '--dir', dir, ...where], { stdout: sink((s) => (out += s)), stderr: sink((s) => (err += s)), env: {}, cwd: dir, isTTY: false });
  if (status !== 0) throw new Error(`nginx-conf exited ${status}: ${err}`);
  return out;
}

describe.skipIf(!nginxInstalled)('nginx-conf under a real nginx', () => {
  beforeAll(async () => {
    const template = mirror.data.views.servers.get(mirror.data.order.servers[0]!)!;
    for (const id of HOSTILE) mirror.upstream.putRecord('servers', { ...template, id, name: `hostile-${id.slice(0, 20)}` });
    await mirror.sync();
    nginx = await startNginx(mirror.dir, { site: (port) => nginxConf(mirror.dir, port), accessLog: true });
    base = nginx.url;
  });

  afterAll(async () => {
    await nginx?.stop();
  });

  it('answers every list, record and view with the mirror file', async () => {
    const manifest = parseManifest(readFileSync(join(mirror.dir, '_meta', 'manifest.json')))!.table;
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
      else expect([...manifest.paths()].find((f) => readFileSync(join(mirror.dir, f)).equals(body)), path).toBeDefined();
    }
    for (const id of HOSTILE) {
      const res = await fetch(`${base}/servers/${encodeURIComponent(id)}.json`);
      expect(((await res.json()) as { server: { id: string } }).server.id).toBe(id);
    }
  });

  it('answers every precomputed view however the query writes its value: raw `:`, `+` for a space, lower- and upper-case escapes, configured values included', async () => {
    const index = JSON.parse(readFileSync(join(mirror.dir, '_meta', 'filters.json'), 'utf8')) as { filters: { resource: string; param: string; value: string; file: string }[] };
    const configured = index.filters.filter((view) => ['by_location', 'by_maintainer', 'by_serial_number', 'by_fullmodel'].includes(view.param));
    expect(configured.map((view) => view.value)).toContain(mirror.filters.by_location![0]);
    const spelled = [...index.filters, { resource: 'servers', param: 'by_fullmodel', value: 'Dell Inc.', file: '' }].filter((view) => view.file !== '');
    let asked = 0;
    for (const view of spelled) {
      for (const spelling of querySpellings(view.value)) {
        const path = `/${view.resource}.json?${view.param}=${spelling}`;
        const res = await fetch(base + path);
        expect(res.status, path).toBe(200);
        expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(join(mirror.dir, view.file))), path).toBe(true);
        asked++;
      }
    }
    // site:… written as the API document writes it, and its lower-case escape.
    const site = mirror.filters.by_location![0]!;
    for (const path of [`/servers.json?by_location=${site}`, `/servers.json?by_location=${site.replace(':', '%3a')}`]) expect((await fetch(base + path)).status, path).toBe(200);
    expect(asked).toBeGreaterThan(index.filters.length);
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
      ['/servers.json?by_virtual=1&by_virtual=0', 400],
      // An encoded name may be a known parameter: that is for serve to decide.
      ['/servers.json?by%5Fvirtual=1', 400],
      ['/servers.json?color=red&search=web', 400],
      ['/_browser/../_meta/last-sync.json', 404],
      ['/_browser/.hidden', 404],
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

  it('sends the offline page and the _meta files with their content types', async () => {
    const types: [string, string][] = [
      ['/index.html', 'text/html; charset=utf-8'],
      ['/_browser/app.css', 'text/css; charset=utf-8'],
      ['/_browser/app.js', 'text/javascript; charset=utf-8'],
      ['/_browser/data.js', 'text/javascript; charset=utf-8'],
      ['/_browser/records/servers/0.js', 'text/javascript; charset=utf-8'],
      ['/_meta/quality.json', 'application/json; charset=utf-8'],
      ['/_meta/manifest.json', 'application/json; charset=utf-8'],
      ['/index.html?tab=servers', 'text/html; charset=utf-8'],
      ['/', 'text/html; charset=utf-8'],
    ];
    for (const [path, type] of types) {
      const res = await fetch(base + path, { headers: { 'Accept-Encoding': 'identity' } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toBe(type);
      expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(join(mirror.dir, path.slice(1).replace(/\?.*$/, '') || 'index.html'))), path).toBe(true);
    }
  });

  it('ignores the query parameters a resource does not know, as the service and serve do', async () => {
    const file = (name: string): Buffer => readFileSync(join(mirror.dir, name));
    const cases: [string, string][] = [
      ['/servers.json?color=red', 'servers.json'],
      ['/servers.json?color=red&flag&x=1=2', 'servers.json'],
      ['/servers.json?', 'servers.json'],
      ['/servers.json?by_virtual_x=1', 'servers.json'],
      ['/operating_systems.json?search=linux', 'operating_systems.json'],
      ['/servers.json?color=red&by_virtual=1', 'servers/_filter/by_virtual/1.json'],
      ['/servers.json?by_virtual=1&color=red', 'servers/_filter/by_virtual/1.json'],
      ['/servers.json?a=1&by_system=2&b=2', 'servers/_filter/by_system/2.json'],
      ['/databases.json?include=servers&page=2', 'databases/_filter/include/servers.json'],
      [`/servers/${encodeURIComponent(mirror.data.order.servers[0]!)}.json?color=red`, `servers/${mirror.data.order.servers[0]}.json`],
    ];
    for (const [path, name] of cases) {
      const res = await fetch(base + path);
      expect(res.status, path).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(file(name)), path).toBe(true);
    }
  });

  it('listens where --listen says, an IPv6 address included', async () => {
    for (const host of ['127.0.0.1', '[::1]']) {
      const other = await startNginx(mirror.dir, { site: (port) => nginxConf(mirror.dir, port, host), host });
      try {
        const res = await fetch(`${other.url}/servers.json?color=red`);
        expect(res.status, host).toBe(200);
        expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(join(mirror.dir, 'servers.json')))).toBe(true);
      } finally {
        await other.stop();
      }
    }
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
