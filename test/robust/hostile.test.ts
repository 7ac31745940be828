/**
 * Breaks an adversarial probe found (issue 11): a lost lock race, links inside the output folder,
 * a token echoed back by the service, redaction of embedded records, values decoding changes,
 * a service that drips, and the filesystem failures that used to end as "internal error".
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { verifyFolder } from '../../src/verify/verify.js';
import { CLI, runCli } from '../helpers/cli.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { allBytes, treeState } from '../helpers/tree.js';
import { TOKEN, upstreamGet, useUpstream } from '../helpers/upstream.js';

const env = { INVENTORY_API_TOKEN: TOKEN };

/** Runs two CLI syncs of the same folder at the same moment; their exit statuses and stderr. */
function twoSyncs(url: string, out: string): Promise<{ code: number | null; stderr: string }[]> {
  const one = (): Promise<{ code: number | null; stderr: string }> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [CLI, 'sync', '--base-url', url, '--out', out, '--quiet'], { env: { ...env, PATH: process.env.PATH ?? '' } });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('close', (code) => resolve({ code, stderr }));
    });
  return Promise.all([one(), one()]);
}

describe('the lock race', () => {
  it('the sync that loses it on a folder neither had removes nothing of the winner\'s', async () => {
    const upstream = await useUpstream({ scale: 40 });
    for (let round = 0; round < 3; round++) {
      const out = join(tempDir(), 'fresh', 'mirror');
      const results = await twoSyncs(upstream.url, out);
      for (const result of results) if (result.code !== 0) expect(result.stderr).toMatch(/is locked by sync/);
      expect(results.some((r) => r.code === 0)).toBe(true);
      expect(await verifyFolder(out)).toMatchObject({ missing: [], altered: [], extra: [] });
    }
  });
});

describe('links inside the output folder', () => {
  it('a sync refuses to publish through a linked record folder, naming it, and writes nothing outside', async () => {
    const upstream = await useUpstream({ scale: 20 });
    const out = tempDir();
    await syncInto(upstream, out);
    const elsewhere = tempDir();
    const { renameSync, rmSync } = await import('node:fs');
    renameSync(join(out, 'servers'), join(elsewhere, 'servers'));
    symlinkSync(join(elsewhere, 'servers'), join(out, 'servers'));
    const outside = await treeState(elsewhere);
    upstream.mutate({ seed: 4, share: 0.2 });
    const result = await runCli(['sync', '--base-url', upstream.url, '--out', out], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`${join(out, 'servers').replaceAll('/', '\\/')} is a symbolic link; inventory-mirror never writes, deletes or serves through a link`));
    expect(await treeState(elsewhere)).toEqual(outside);
    rmSync(join(out, 'servers'));
  });

  it('recovery refuses a linked work folder instead of deleting through it', async () => {
    const upstream = await useUpstream({ scale: 10 });
    const out = tempDir();
    await syncInto(upstream, out);
    const elsewhere = tempDir();
    mkdirSync(join(elsewhere, 'staging'));
    writeFileSync(join(elsewhere, 'staging', 'precious.txt'), 'keep me');
    symlinkSync(elsewhere, join(out, '.inventory-mirror'));
    for (const args of [['sync', '--base-url', upstream.url, '--out', out], ['verify', '--dir', out]]) {
      const result = await runCli(args, { env });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/\.inventory-mirror is a symbolic link/);
    }
    expect(readFileSync(join(elsewhere, 'staging', 'precious.txt'), 'utf8')).toBe('keep me');
  });
});

describe('the token never leaves the process', () => {
  it('echoed by the service into a JSON key, it appears in no retry line, error or webhook', async () => {
    const upstream = await useUpstream({ scale: 10 });
    const posted: string[] = [];
    const hook = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        posted.push(body);
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
      upstream.override('/servers.json', { status: 200, body: JSON.stringify({ [TOKEN]: [], [`${TOKEN}-again`]: 1 }) });
      const dir = tempDir();
      const config = join(dir, 'mirror.json');
      writeFileSync(config, JSON.stringify({ notify: { url }, sync: { retries: 2, retryBaseMs: 1, retryMaxMs: 5 } }));
      const result = await runCli(['sync', '--base-url', upstream.url, '--out', join(dir, 'out'), '--config', config, '--verbose'], { env });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/retrying GET \/servers\.json/);
      expect(result.stderr).toMatch(/envelope key "servers" is missing .*\[secret\]/);
      expect(posted).toHaveLength(1);
      for (const text of [result.stdout, result.stderr, ...posted]) expect(text).not.toContain(TOKEN);
    } finally {
      hook.close();
    }
  });

  it('git and its hooks run without it in their environment', async () => {
    const { execFileSync } = await import('node:child_process');
    const upstream = await useUpstream({ scale: 10 });
    const repo = tempDir();
    const gitEnv = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
    execFileSync('git', ['init', '--quiet'], { cwd: repo, env: { ...process.env, ...gitEnv } });
    const dump = join(repo, 'hook-env.txt');
    writeFileSync(join(repo, '.git', 'hooks', 'post-commit'), `#!/bin/sh\nenv > ${dump}\n`, { mode: 0o755 });
    const result = await runCli(['sync', '--git', '--base-url', upstream.url, '--out', join(repo, 'mirror'), '--quiet'], { env: { ...env, ...gitEnv, INVENTORY_API_TOKEN_FILE: '/nonexistent-but-secret-path' } });
    expect(result.code, result.stderr).toBe(0);
    const seen = readFileSync(dump, 'utf8');
    expect(seen).not.toContain(TOKEN);
    expect(seen).not.toMatch(/INVENTORY_API_TOKEN/);
  });
});

describe('redaction of embedded records', () => {
  it('a servers policy applies to the servers a database embeds (include=servers), in every file and the archive', async () => {
    const upstream = await useUpstream({ scale: 20 });
    const secret = 'team-secret-7731';
    const servers = (await upstreamGet(upstream, '/servers.json')).body as { servers: { id: string; name: string }[] };
    const databases = (await upstreamGet(upstream, '/databases.json?include=servers')).body as { databases: Record<string, unknown>[] };
    // A service whose include=servers embeds whole server records, extended attributes included.
    const embedded = databases.databases.map((db) => ({ ...db, servers: [{ ...servers.servers[0], extended_attributes: { owner_team: secret } }] }));
    upstream.override('/databases.json?include=servers', { status: 200, body: JSON.stringify({ databases: embedded }) });
    const out = tempDir();
    await syncInto(upstream, out, { redact: { servers: { drop: ['extended_attributes.owner_team'] } } });
    expect(await allBytes(out)).not.toContain(secret);
    const archive = join(tempDir(), 'a.tar.gz');
    expect((await runCli(['pack', '--dir', out, '--out', archive])).code).toBe(0);
    const { gunzipSync } = await import('node:zlib');
    expect(gunzipSync(readFileSync(archive)).toString('latin1')).not.toContain(secret);
  });
});

describe('values decoding would change without a word', () => {
  it('a repeated key, a number out of range and bytes that are not UTF-8 become findings', async () => {
    const upstream = await useUpstream({ scale: 10 });
    const apps = (await upstreamGet(upstream, '/applications.json')).body as { applications: { id: string; name: string; description: string }[] };
    const app = apps.applications[0]!;
    const single = Buffer.concat([Buffer.from(`{"application":{"id":${JSON.stringify(app.id)},"name":"a","name":${JSON.stringify(app.name)},"description":"`), Buffer.from([0xc3, 0x28]), Buffer.from(`","size":1e400}}`)]);
    upstream.override(`/applications/${encodeURIComponent(app.id)}.json`, { status: 200, body: single.toString('latin1'), contentType: 'application/json' });
    const result = await syncInto(upstream, tempDir());
    const codes = result.findings.groups.filter((g) => g.examples.some((e) => e.id === app.id)).map((g) => `${g.field}:${g.code}`);
    expect(codes.sort()).toEqual(expect.arrayContaining(['name:duplicate_key', 'size:out_of_range']));
  });
});

describe('a service that drips', () => {
  it('one byte a second is cut off by the per-request deadline, not held until the sync deadline', async () => {
    const drip = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 200);
      req.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => drip.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(drip.address() as AddressInfo).port}`;
      const dir = tempDir();
      const config = join(dir, 'mirror.json');
      writeFileSync(config, JSON.stringify({ sync: { requestDeadlineMs: 1000, retries: 1, retryBaseMs: 1, retryMaxMs: 5 } }));
      const result = await runCli(['sync', '--base-url', url, '--out', join(dir, 'out'), '--config', config], { env, timeoutMs: 30_000 });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/did not arrive whole within 1s \(sync\.requestDeadlineMs\)/);
    } finally {
      drip.closeAllConnections();
      drip.close();
    }
  });
});

describe('filesystem failures are one line, never "a bug"', () => {
  const CHILD = fileURLToPath(new URL('./fs-fault-child.mjs', import.meta.url));

  it('a full disk while the journal is written: exit 1 naming it, no journal left half-written, the folder as it was', async () => {
    const upstream = await useUpstream({ scale: 10 });
    const out = tempDir();
    await syncInto(upstream, out);
    const before = await treeState(out);
    upstream.mutate({ seed: 2, share: 0.3 });
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [CHILD, 'sync', '--base-url', upstream.url, '--out', out, '--quiet'], { env: { ...env, PATH: process.env.PATH ?? '', FAIL_WRITE_OF: '/\\.journal\\.json\\.[^/]*\\.tmp$' } });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(result.stderr).not.toMatch(/internal error/);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/\.inventory-mirror\/journal\.json cannot be written: no space left on its device/);
    expect(existsSync(join(out, '.inventory-mirror'))).toBe(false);
    expect(await treeState(out)).toEqual(before);
  });

  it('an unwritable output folder, or one under a file: exit 2 naming it; a failed first sync leaves no folder it made', async () => {
    const upstream = await useUpstream({ scale: 10 });
    const parent = tempDir();
    writeFileSync(join(parent, 'file'), 'x');
    const under = await runCli(['sync', '--base-url', upstream.url, '--out', join(parent, 'file', 'out')], { env });
    expect(under.code).toBe(2);
    expect(under.stderr).toMatch(/file\/out has a parent that is a file, not a folder .*; choose another output folder/);
    const proc = await runCli(['sync', '--base-url', upstream.url, '--out', '/proc/inventory-mirror-test'], { env, timeoutMs: 20_000 });
    expect(proc.code).toBe(2);
    expect(proc.stderr).toMatch(/cannot use the output folder: \/proc\/inventory-mirror-test/);
    const deep = join(parent, 'a', 'b', 'out');
    const failed = await runCli(['sync', '--base-url', 'http://127.0.0.1:9', '--out', deep], { env });
    expect(failed.code).toBe(1);
    expect(readdirSync(parent).sort()).toEqual(['file']);
  });

  it('a folder holding someone else\'s files is refused unless --allow-nonempty', async () => {
    const upstream = await useUpstream({ scale: 10 });
    const out = tempDir();
    writeFileSync(join(out, '.gitignore'), 'my own rules\n');
    const refused = await runCli(['sync', '--base-url', upstream.url, '--out', out], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/is not empty \("\.gitignore"\) and holds no snapshot; sync into a new or empty folder, or allow publishing among those files .*\. To publish among them, pass --allow-nonempty/);
    expect(readFileSync(join(out, '.gitignore'), 'utf8')).toBe('my own rules\n');
    expect((await runCli(['sync', '--base-url', upstream.url, '--out', out, '--allow-nonempty', '--quiet'], { env })).code).toBe(0);
  });

  it('an id holding a lone surrogate: exit 1 with the reason, not a crash', async () => {
    const upstream = await useUpstream({ scale: 10 });
    upstream.override('/applications.json', { status: 200, body: '{"applications":[{"id":"a\\ud800","name":"x","description":"y"}]}' });
    const result = await runCli(['sync', '--base-url', upstream.url, '--out', tempDir()], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/lone UTF-16 surrogate/);
  });
});
