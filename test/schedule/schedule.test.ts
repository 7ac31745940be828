import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshnessProblem } from '../../src/state/freshness.js';
import { LAST_SYNC_FILE } from '../../src/snapshot/paths.js';

import { runCli, startCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';

const env = { INVENTORY_API_TOKEN: TOKEN };

/** Collects a child's output and waits (bounded) for a condition on it. */
function watch(child: ChildProcess): { out: () => string; err: () => string; until: (test: () => boolean, ms: number, what: string) => Promise<void>; exit: (ms: number) => Promise<number | null> } {
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    out: () => out,
    err: () => err,
    until: async (test, ms, what) => {
      const deadline = Date.now() + ms;
      while (!test()) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`gave up waiting for ${what}\nstdout: ${out}\nstderr: ${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    exit: (ms) => Promise.race([exited, new Promise<number | null>((_, reject) => setTimeout(() => reject(new Error(`no exit within ${ms} ms\nstderr: ${err}`)), ms))]),
  };
}

/** A local webhook that records the bodies posted to it. */
async function webhookReceiver(): Promise<{ url: string; bodies: string[]; close: () => Promise<void> }> {
  const bodies: string[] = [];
  const hook: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/alert`,
    bodies,
    close: () => new Promise<void>((resolve) => hook.close(() => resolve())),
  };
}

const syncUpstream = await useUpstream({ scale: 50, seed: 11 });
const verifyUpstream = await useUpstream({ scale: 50, seed: 12 });

describe('schedule (built CLI)', () => {
  it('runs on a fast cron, skips overlapping ticks, prints JSON lines and stops cleanly on SIGTERM mid-run', async () => {
    const out = join(tempDir(), 'out');
    syncUpstream.setFaults({ rate: 1, kinds: ['slow'], slowMs: 150 });
    const child = startCli(['schedule', '--cron', '* * * * * *', '--run-at-start', '--concurrency', '4', '--base-url', syncUpstream.url, '--out', out], { env });
    const w = watch(child);
    try {
      await w.until(() => w.out().includes('\n') && /skipped the tick/.test(w.err()), 60_000, 'a finished run and a skipped tick');
      const first = JSON.parse(w.out().split('\n')[0]!) as Record<string, unknown>;
      expect(first).toMatchObject({ event: 'run', status: 'ok', records: { servers: 50 }, requests: expect.any(Number) });
      // Wait until the next run is under way (a request arrives), then stop it.
      const seen = syncUpstream.requestCount();
      await w.until(() => syncUpstream.requestCount() > seen, 30_000, 'the next run to start');
      child.kill('SIGTERM');
      expect(await w.exit(30_000)).toBe(0);
    } finally {
      syncUpstream.setFaults(undefined);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    const lines = w.out().trim().split('\n');
    for (const line of lines) expect(['ok', 'unchanged', 'failed']).toContain((JSON.parse(line) as { status: string }).status);
    expect(w.err()).toContain('SIGTERM: stopping');
    // Each note on stderr carries its time, and says when the next run is due.
    expect(w.err()).toMatch(/^\d{4}-\d\d-\d\dT\S+Z schedule: running now; then next run at \d{4}-/m);
    expect(w.err()).toMatch(/schedule: next run at \d{4}-\d\d-\d\dT/);
    expect(w.out() + w.err()).not.toContain(TOKEN);
    const verify = await runCli(['verify', '--dir', out]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  });

  it('takes every option sync does: a scheduled run signs its manifest and writes the offline page', async () => {
    const dir = tempDir();
    const keys = await runCli(['keygen', '--out', join(dir, 'mirror')]);
    expect(keys.code, keys.stderr).toBe(0);
    const out = join(dir, 'out');
    const child = startCli(['schedule', '--cron', '0 0 1 1 *', '--run-at-start', '--base-url', syncUpstream.url, '--out', out, '--sign-key', join(dir, 'mirror.key'), '--browser'], { env });
    const w = watch(child);
    try {
      await w.until(() => w.out().includes('\n'), 60_000, 'the first run');
      expect(JSON.parse(w.out().split('\n')[0]!)).toMatchObject({ event: 'run', status: 'ok' });
      child.kill('SIGTERM');
      expect(await w.exit(30_000)).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    expect(readFileSync(join(out, 'index.html'), 'utf8')).toContain('<html');
    const verify = await runCli(['verify', '--dir', out, '--public-key', join(dir, 'mirror.pub')]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/signed by key [0-9a-f]+/);
  });

  it('posts to the webhook when a run fails, and keeps running', async () => {
    const hook = await webhookReceiver();
    const { bodies } = hook;
    const dir = tempDir();
    const config = join(dir, 'mirror.json');
    writeFileSync(config, JSON.stringify({ sync: { retries: 0 }, notify: { url: hook.url } }));
    syncUpstream.override('/servers.json', { status: 500, body: '{"error":"down"}' });
    const child = startCli(['schedule', '--config', config, '--cron', '* * * * * *', '--run-at-start', '--base-url', syncUpstream.url, '--out', join(dir, 'out')], { env });
    const w = watch(child);
    try {
      await w.until(() => bodies.length >= 2, 30_000, 'two webhook posts');
      child.kill('SIGTERM');
      expect(await w.exit(30_000)).toBe(0);
    } finally {
      syncUpstream.override('/servers.json', undefined);
      if (child.exitCode === null) child.kill('SIGKILL');
      await hook.close();
    }
    const payload = JSON.parse(bodies[0]!) as Record<string, unknown>;
    expect(payload).toMatchObject({ event: 'sync.failed', status: 'failed', error: expect.stringContaining('/servers.json') });
    expect(bodies.join('')).not.toContain(TOKEN);
    expect(JSON.parse(w.out().split('\n')[0]!)).toMatchObject({ status: 'failed' });
  });

  it('refuses a bad cron expression or time zone up front', async () => {
    const bad = await runCli(['schedule', '--cron', '61 * * * *', '--base-url', syncUpstream.url], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('cron expression "61 * * * *" is not valid');
    const zone = await runCli(['schedule', '--timezone', 'Mars/Base', '--base-url', syncUpstream.url], { env });
    expect(zone.code).toBe(2);
    expect(zone.stderr).toContain('Mars/Base');
  });
});

describe('verify --max-age', () => {
  it('an unpacked copy (no run metadata) is judged by when its data last changed, and says so when that is too old', async () => {
    const dir = tempDir();
    const out = join(dir, 'out');
    expect((await runCli(['sync', '--base-url', verifyUpstream.url, '--out', out, '--quiet'], { env })).code).toBe(0);
    const archive = join(dir, 'snapshot.tar.gz');
    expect((await runCli(['pack', '--dir', out, '--out', archive])).code).toBe(0);
    const copy = join(dir, 'copy');
    expect((await runCli(['unpack', archive, '--dir', copy])).code).toBe(0);
    const fresh = await runCli(['verify', '--dir', copy, '--max-age', '26h']);
    expect(fresh.stderr).toBe('');
    expect(fresh.code).toBe(0);
    const later = Date.now() + 3 * 86_400_000;
    expect(await freshnessProblem(copy, 26 * 3_600_000, later)).toMatch(/^no _meta\/last-sync\.json \(a copy\?\), and the snapshot's data last changed 3d 0h ago \(.*, _meta\/changes\.json\), over --max-age 26h 0m$/);
  });

  it('exits 1 when the last successful sync is older than the limit', async () => {
    const out = join(tempDir(), 'out');
    expect((await runCli(['sync', '--base-url', verifyUpstream.url, '--out', out, '--quiet'], { env })).code).toBe(0);
    expect((await runCli(['verify', '--dir', out, '--max-age', '26h'])).code).toBe(0);
    const file = join(out, LAST_SYNC_FILE);
    const meta = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...meta, finishedAt: new Date(Date.now() - 27 * 3_600_000).toISOString() }));
    const stale = await runCli(['verify', '--dir', out, '--max-age', '26h']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('is stale: the last successful sync finished 27h');
    expect((await runCli(['verify', '--dir', out, '--max-age', '2d'])).code).toBe(0);
    rmSync(file);
    // A copy without run metadata: judged by the snapshot's last change (just now).
    expect((await runCli(['verify', '--dir', out, '--max-age', '90m'])).code).toBe(0);
    expect((await runCli(['verify', '--dir', out])).code).toBe(0);
    const bad = await runCli(['verify', '--dir', out, '--max-age', '26 hours']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--max-age');
  });
});

describe('the webhook of a one-shot sync (run from cron or systemd)', () => {
  it('posts sync.failed when the sync fails, and sync.changed with notify.onChange, once per change', async () => {
    const hook = await webhookReceiver();
    const dir = tempDir();
    const config = join(dir, 'mirror.json');
    writeFileSync(config, JSON.stringify({ sync: { retries: 0 }, notify: { url: hook.url, onChange: true } }));
    const out = join(dir, 'out');
    const sync = (): ReturnType<typeof runCli> => runCli(['sync', '--config', config, '--base-url', syncUpstream.url, '--out', out, '--quiet'], { env });
    try {
      syncUpstream.override('/servers.json', { status: 500, body: '{"error":"down"}' });
      const failed = await sync();
      syncUpstream.override('/servers.json', undefined);
      expect(failed.code).toBe(1);
      expect(hook.bodies).toHaveLength(1);
      expect(JSON.parse(hook.bodies[0]!)).toMatchObject({ event: 'sync.failed', status: 'failed', out, error: expect.stringContaining('/servers.json') });

      expect((await sync()).code).toBe(0);
      expect(hook.bodies).toHaveLength(2);
      expect(JSON.parse(hook.bodies[1]!)).toMatchObject({ event: 'sync.changed', status: 'ok', summary: expect.stringContaining('servers +') });

      expect((await sync()).code).toBe(0);
      expect(hook.bodies).toHaveLength(2);
      expect(hook.bodies.join('')).not.toContain(TOKEN);
    } finally {
      syncUpstream.override('/servers.json', undefined);
      await hook.close();
    }
  });
});
