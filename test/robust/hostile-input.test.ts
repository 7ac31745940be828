/**
 * Breaks of the second adversarial round (issue 29): what a folder, an archive or a hostile
 * service can make the mirror write into an nginx configuration, delete, follow or print.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { verifyArchive } from '../../src/archive/verify.js';
import { postWebhook } from '../../src/notify/webhook.js';
import { sha256 } from '../../src/snapshot/manifest.js';
import { craftArchive } from '../archive/helpers.js';
import { runCli, UNPRIVILEGED } from '../helpers/cli.js';
import { syncInto } from '../helpers/sync.js';
import { atTeardown } from '../helpers/teardown.js';
import { tempDir } from '../helpers/tmp.js';
import { treeState } from '../helpers/tree.js';
import { TOKEN, upstreamGet, useUpstream } from '../helpers/upstream.js';

const env = { INVENTORY_API_TOKEN: TOKEN };

type Manifest = { format: number; generator: string; files: Record<string, { sha256: string; size: number }> };

const readManifestJson = (out: string): Manifest => JSON.parse(readFileSync(join(out, '_meta/manifest.json'), 'utf8')) as Manifest;
const writeManifestJson = (out: string, manifest: Manifest): void => writeFileSync(join(out, '_meta/manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);

/** Replaces a snapshot file and re-hashes it in the manifest, as an attacker who can write the folder (or an unsigned archive) would. */
function forge(out: string, file: string, bytes: Buffer): void {
  writeFileSync(join(out, file), bytes);
  const manifest = readManifestJson(out);
  manifest.files[file] = { sha256: sha256(bytes), size: bytes.length };
  writeManifestJson(out, manifest);
}

const INJECTED = 'x.json"; } server { listen 127.0.0.1:18081; location / { root /etc; } } map $uri $im_x { "a';

describe('nginx-conf over a crafted folder (break 1)', () => {
  it('refuses a _meta/filters.json entry whose file is not the view\'s own name, and prints no configuration', async () => {
    const upstream = await useUpstream({ scale: 20 });
    const list = (await upstreamGet(upstream, '/servers.json')).body as { servers: { id: string }[] };
    const template = ((await upstreamGet(upstream, `/servers/${encodeURIComponent(list.servers[0]!.id)}.json`)).body as { server: Record<string, unknown> }).server;
    // Ids whose file names nginx cannot derive: the configuration names them, and still may.
    for (const id of ["it's!", 'x'.repeat(400), '..']) upstream.putRecord('servers', { ...template, id });
    const out = tempDir();
    await syncInto(upstream, out);
    const clean = await runCli(['nginx-conf', '--dir', out, '--port', '8089']);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain('"/servers/it%27s%21.json";');
    expect(clean.stdout).toContain('"/servers/%2E%2E.json";');
    expect(clean.stdout).toMatch(/"\/servers\/x{167}~[0-9a-f]{32}\.json";/);
    const index = JSON.parse(readFileSync(join(out, '_meta/filters.json'), 'utf8')) as { filters: { file: string }[] };
    index.filters[0]!.file = INJECTED;
    forge(out, '_meta/filters.json', Buffer.from(JSON.stringify(index)));
    expect((await runCli(['verify', '--dir', out])).code).toBe(0);
    const result = await runCli(['nginx-conf', '--dir', out, '--port', '8089']);
    expect(result.code).toBe(2);
    expect(result.stdout).not.toContain('18081');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`${join(out, '_meta/filters.json')} filters.0`);
    expect(result.stderr).toContain('is not the file of');
  });

  it('refuses a manifest that lists a record file with quotes and braces in its name', async () => {
    const upstream = await useUpstream({ scale: 20 });
    const out = tempDir();
    await syncInto(upstream, out);
    mkdirSync(join(out, 'servers'), { recursive: true });
    const name = `servers/a" "/x"; } server { listen 127.0.0.1:18081; root /etc; } #.json`;
    const manifest = readManifestJson(out);
    manifest.files[name] = { sha256: sha256(Buffer.from('{}')), size: 2 };
    writeManifestJson(out, manifest);
    const result = await runCli(['nginx-conf', '--dir', out, '--port', '8089']);
    expect(result.code).toBe(2);
    expect(result.stdout).not.toContain('18081');
    expect(result.stderr).toContain('has no valid _meta/manifest.json');
  });
});

describe('paths read from a manifest (break 4)', () => {
  it('a manifest entry with .. makes the next sync delete nothing outside the folder', async () => {
    const upstream = await useUpstream({ scale: 20 });
    const parent = tempDir();
    const out = join(parent, 'mirror');
    await syncInto(upstream, out);
    writeFileSync(join(parent, 'victim.txt'), 'keep me\n');
    const manifest = readManifestJson(out);
    manifest.files['../victim.txt'] = { sha256: sha256(Buffer.from('keep me\n')), size: 8 };
    writeManifestJson(out, manifest);
    upstream.mutate({ seed: 3, share: 0.2 });
    const result = await runCli(['sync', '--base-url', upstream.url, '--out', out], { env });
    expect(existsSync(join(parent, 'victim.txt'))).toBe(true);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`${join(out, '_meta/manifest.json')} is damaged ("../victim.txt" is not a path of a snapshot`);
    const verify = await runCli(['verify', '--dir', out]);
    expect(verify.code).not.toBe(0);
  });
});

/** A local server that answers every request with `answer`; closed after the test. */
async function withServer(answer: (res: import('node:http').ServerResponse) => void): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => answer(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  atTeardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('the token in what the service sends back (break 8, and its escapes)', () => {
  it('a Location header cut for the message is scrubbed first: no part of the token is printed', async () => {
    const { url } = await withServer((res) => {
      res.writeHead(302, { location: `https://login.example/${'p'.repeat(160)}?t=${TOKEN}&x=1` }).end();
    });
    const result = await runCli(['sync', '--base-url', url, '--out', join(tempDir(), 'out')], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('redirecting to https://login.example/');
    expect(result.stderr).not.toContain(TOKEN.slice(0, 8));
  });

  it('a token echoed HTML-escaped (an error page) is scrubbed', async () => {
    const token = 'tok&en<with>"quotes"-2026';
    const { url } = await withServer((res) => {
      res.writeHead(302, { location: `https://login.example/?t=${token.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;')}` }).end();
    });
    const result = await runCli(['sync', '--base-url', url, '--out', join(tempDir(), 'out')], { env: { INVENTORY_API_TOKEN: token } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('?t=[secret]');
    expect(result.stderr).not.toContain('tok&amp;en');
  });
});

describe('the token echoed inside the data (degraded)', () => {
  it('is never published: the sync refuses, naming the file, and the folder keeps its snapshot', async () => {
    const upstream = await useUpstream({ scale: 10 });
    const out = tempDir();
    await syncInto(upstream, out);
    const before = await treeState(out);
    const list = (await upstreamGet(upstream, '/servers.json')).body as { servers: { id: string }[] };
    const id = list.servers[1]!.id;
    const server = ((await upstreamGet(upstream, `/servers/${encodeURIComponent(id)}.json`)).body as { server: Record<string, unknown> }).server;
    upstream.putRecord('servers', { ...server, id, comment: `debug: token=${TOKEN}` });
    const result = await runCli(['sync', '--base-url', upstream.url, '--out', out], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/servers(\.json|\/[^ ]+\.json): the service sent the API token inside its data; nothing was published/);
    expect(result.stderr).not.toContain(TOKEN);
    expect(await treeState(out)).toEqual(before);
  });
});

describe('control characters from the service (break 9)', () => {
  it('an id with a newline and ESC sequences reaches the terminal escaped, on one line', async () => {
    const upstream = await useUpstream({ scale: 20 });
    const list = (await upstreamGet(upstream, '/servers.json')).body as { servers: { id: string }[] };
    const template = ((await upstreamGet(upstream, `/servers/${encodeURIComponent(list.servers[0]!.id)}.json`)).body as { server: Record<string, unknown> }).server;
    const id = 'evil\nwarning: forged by the service\u001b]0;pwned\u0007\u001b[2J';
    const { name: _name, ...nameless } = template;
    upstream.putRecord('servers', { ...nameless, id, 'fie\nld\u001b[31m': 1 });
    const out = tempDir();
    const result = await runCli(['sync', '--base-url', upstream.url, '--out', out], { env });
    expect(result.code, result.stderr).toBe(0);
    const printed = result.stdout + result.stderr;
    expect(printed).toContain('evil\\nwarning: forged');
    expect(printed).not.toMatch(/[\u001b\u0007]/);
    expect(printed.split('\n').filter((line) => line.startsWith('warning: forged'))).toEqual([]);
  });
});

describe('reading a snapshot needs no lock (degraded: verify and pack on a read-only folder)', () => {
  it.skipIf(!UNPRIVILEGED)('verify and pack a folder this user may not write (run as an unprivileged user when root)', async () => {
    const upstream = await useUpstream({ scale: 20 });
    const root = tempDir();
    chmodSync(root, 0o755);
    const snapshot = join(root, 'snapshot');
    await syncInto(upstream, snapshot);
    const outDir = join(root, 'archives');
    mkdirSync(outDir);
    chmodSync(outDir, 0o777);
    // Not writable by the user who runs the CLI (when that is root, "nobody" runs it).
    chmodSync(snapshot, 0o555);
    try {
      const verify = await runCli(['verify', '--dir', snapshot], { ...UNPRIVILEGED, cwd: root });
      expect(verify.code, verify.stderr).toBe(0);
      expect(verify.stdout).toMatch(/^ok: /);
      const pack = await runCli(['pack', '--dir', snapshot, '--out', join(outDir, 'a.tar.gz')], { ...UNPRIVILEGED, cwd: root });
      expect(pack.code, pack.stderr).toBe(0);
      expect(existsSync(join(snapshot, '.inventory-mirror'))).toBe(false);
    } finally {
      chmodSync(snapshot, 0o755);
    }
  });
});

describe('verify --archive refuses what unpack refuses (degraded)', () => {
  it('an archive whose manifest is not its first entry', async () => {
    const body = '{"a":1}\n';
    const manifest = JSON.stringify({ format: 1, generator: 'inventory-mirror', files: { 'a.json': { sha256: sha256(Buffer.from(body)), size: body.length } } });
    const file = join(tempDir(), 'late.tar.gz');
    craftArchive(file, [{ path: 'a.json', body }, { path: '_meta/manifest.json', body: manifest }]);
    await expect(verifyArchive(file)).rejects.toThrow(/its first entry is "a\.json", not _meta\/manifest\.json/);
  });
});

describe('a full disk during a re-sync (degraded; issue 31 point 4)', () => {
  it('a write error without a path, as the kernel gives it: exit 1 naming the file, the folder as it was', async () => {
    const upstream = await useUpstream({ scale: 10 });
    const out = tempDir();
    await syncInto(upstream, out);
    const before = await treeState(out);
    upstream.mutate({ seed: 2, share: 0.3 });
    const child = fileURLToPath(new URL('./fs-fault-child.mjs', import.meta.url));
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const run = spawn(process.execPath, [child, 'sync', '--base-url', upstream.url, '--out', out, '--quiet'], {
        env: { ...env, PATH: process.env.PATH ?? '', FAIL_WRITE_OF: '/\\.journal\\.json\\.[^/]*\\.tmp$', FAIL_AS_KERNEL: '1' },
      });
      let stderr = '';
      run.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      run.on('close', (code) => resolve({ code, stderr }));
    });
    expect(result.stderr).not.toMatch(/internal error/);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/\.inventory-mirror\/journal\.json cannot be written: no space left on its device/);
    expect(await treeState(out)).toEqual(before);
  });
});

describe('messages that named too much or too little (degraded)', () => {
  it('a webhook that is not reached is named without its path, where hooks carry their secret', async () => {
    const parked = createServer();
    await new Promise<void>((resolve) => parked.listen(0, '127.0.0.1', resolve));
    const port = (parked.address() as AddressInfo).port;
    await new Promise<void>((resolve) => parked.close(() => resolve()));
    const message = await postWebhook(`http://127.0.0.1:${port}/services/T000/B000/hook-secret-0123`, { event: 'sync.failed', at: '', out: '', status: 'failed' }, 2_000);
    expect(message).toMatch(new RegExp(`^webhook http://127\\.0\\.0\\.1:${port}/… was not reached`));
    expect(message).not.toContain('hook-secret');
  });

  it('--allow-nonempty: the refusal says the folder\'s own .gitignore would be replaced', async () => {
    const upstream = await useUpstream({ scale: 10 });
    const out = tempDir();
    writeFileSync(join(out, '.gitignore'), 'mine\n');
    const result = await runCli(['sync', '--base-url', upstream.url, '--out', out], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('its own .gitignore would then be replaced by the snapshot\'s');
    expect(readFileSync(join(out, '.gitignore'), 'utf8')).toBe('mine\n');
  });
});

describe('one deadline per request, retries included (degraded)', () => {
  it('a service that drips is not retried past sync.requestDeadlineMs', { timeout: 120_000 }, async () => {
    const attempts = new Map<string, number>();
    const drip = createServer((req, res) => {
      attempts.set(req.url ?? '', (attempts.get(req.url ?? '') ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 200);
      req.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => drip.listen(0, '127.0.0.1', resolve));
    try {
      const dir = tempDir();
      const config = join(dir, 'mirror.json');
      writeFileSync(config, JSON.stringify({ sync: { requestDeadlineMs: 1000, retries: 5, retryBaseMs: 1, retryMaxMs: 5 } }));
      const url = `http://127.0.0.1:${(drip.address() as AddressInfo).port}`;
      const result = await runCli(['sync', '--base-url', url, '--out', join(dir, 'out'), '--config', config], { env, timeoutMs: 60_000 });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/got no usable answer within 1s, retries included \(sync\.requestDeadlineMs\), after 1 attempt: the answer did not arrive whole/);
      expect(Math.max(...attempts.values())).toBe(1);
    } finally {
      drip.closeAllConnections();
      drip.close();
    }
  });
});
