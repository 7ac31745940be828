/**
 * Overlapping runs: with --wait-lock a run waits for the one holding the folder and then syncs;
 * when the wait runs out it is skipped (exit 75), and the metrics file says skipped, not failed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/publish/lock.js';
import { runCli, startCli } from '../helpers/cli.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';

const upstream = await useUpstream({ scale: 20 });

describe('--wait-lock', () => {
  it('the lock still held when the wait runs out: exit 75, one line saying skipped, metrics status skipped and success kept', async () => {
    const out = tempDir();
    await syncInto(upstream, out);
    const metrics = join(tempDir(), 'mirror.prom');
    // This test's process holds the lock, as a run still going would.
    const lock = await acquireLock(out, 'sync');
    try {
      const run = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--wait-lock', '1s', '--metrics-file', metrics, '-q'], { env: { INVENTORY_API_TOKEN: TOKEN } });
      expect(run.code).toBe(75);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/^inventory-mirror sync: skipped: .* is locked by sync \(pid \d+.*, still after waiting 1s \(--wait-lock\); nothing was done\n$/);
      const text = readFileSync(metrics, 'utf8');
      expect(text).toContain('inventory_mirror_last_run_status{status="skipped"} 1');
      expect(text).toContain('inventory_mirror_last_run_status{status="failed"} 0');
      expect(text).toContain('inventory_mirror_last_run_success 1');
    } finally {
      await lock.release();
    }
  });

  it('without --wait-lock the loser of a lock race fails at once, and is recorded as skipped, not failed', async () => {
    const out = tempDir();
    await syncInto(upstream, out);
    const metrics = join(tempDir(), 'mirror.prom');
    const lock = await acquireLock(out, 'sync');
    try {
      const run = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--metrics-file', metrics, '-q'], { env: { INVENTORY_API_TOKEN: TOKEN } });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/is locked by sync/);
      expect(readFileSync(metrics, 'utf8')).toContain('inventory_mirror_last_run_status{status="skipped"} 1');
    } finally {
      await lock.release();
    }
  });

  it('a run that waits says so, and syncs once the other run lets go', async () => {
    const out = tempDir();
    const lock = await acquireLock(out, 'sync');
    let released = false;
    const child = startCli(['sync', '--base-url', upstream.url, '--out', out, '--wait-lock', '2m'], { env: { INVENTORY_API_TOKEN: TOKEN } });
    try {
      let stderr = '';
      let stdout = '';
      child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const code = new Promise<number | null>((resolve) => child.once('exit', resolve));
      await new Promise<void>((resolve, reject) => {
        child.stderr!.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (/waiting up to 120s for it \(--wait-lock\)/.test(stderr)) resolve();
        });
        child.once('exit', () => reject(new Error(`the sync exited before waiting: ${stderr}`)));
      });
      await lock.release();
      released = true;
      expect(await code).toBe(0);
      expect(stdout).toMatch(/^published: /m);
    } finally {
      if (!released) await lock.release();
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 120_000);

  it('a malformed duration is a usage error naming the flag', async () => {
    const run = await runCli(['sync', '--base-url', upstream.url, '--out', tempDir(), '--wait-lock', 'soon'], { env: { INVENTORY_API_TOKEN: TOKEN } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--wait-lock: expected a positive number and a unit/);
  });
});
