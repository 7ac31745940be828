/**
 * kill -9 at random moments of a sync over an older snapshot: afterwards `verify` (which first
 * finishes or discards the interrupted publish) passes, the folder is the old or the new
 * snapshot and nothing in between, and the next sync brings it level with the service.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI, runCli } from '../helpers/cli.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { treeState } from '../helpers/tree.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';

const upstream = await useUpstream({ scale: 400, seed: 11 });
const env = { INVENTORY_API_TOKEN: TOKEN };

async function contents(dir: string): Promise<string> {
  const state = await treeState(dir);
  state.delete('_meta/last-sync.json');
  return JSON.stringify([...state].map(([path, s]) => [path, s.sha256]));
}

/** Starts the CLI sync and kills it with SIGKILL after `delayMs`; resolves when it is gone. */
function syncAndKill(out: string, delayMs: number): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'sync', '--base-url', upstream.url, '--out', out, '--quiet', '--allow-mass-removal'], { env: { ...env, PATH: process.env.PATH ?? '' }, stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

describe('crash safety', () => {
  it('survives kill -9 at any moment of a publish, over and over', async () => {
    const out = tempDir();
    await syncInto(upstream, out);
    const deadline = Date.now() + 90_000;
    let outcomes = { old: 0, new: 0 };
    // Deterministic spread of kill times across start-up, fetch and publish.
    const delays = [120, 260, 340, 420, 480, 540, 600, 680, 760, 900, 380, 520];
    for (const [i, delay] of delays.entries()) {
      if (Date.now() > deadline) break;
      const old = await contents(out);
      upstream.mutate({ seed: 100 + i, share: 0.1 });
      const reference = tempDir();
      await syncInto(upstream, reference);
      const fresh = await contents(reference);

      await syncAndKill(out, delay);
      const verify = await runCli(['verify', '--dir', out]);
      expect(verify.stderr.replace(/^(finished|discarded) .*\n/, '')).toBe('');
      expect(verify.code).toBe(0);
      const now = await contents(out);
      expect([old, fresh]).toContain(now);
      outcomes = now === fresh ? { ...outcomes, new: outcomes.new + 1 } : { ...outcomes, old: outcomes.old + 1 };

      const resync = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--quiet'], { env });
      expect(resync.code).toBe(0);
      expect(await contents(out)).toBe(fresh);
    }
    // Both sides of the commit point were hit, or the test proves less than it claims.
    expect(outcomes.old).toBeGreaterThan(0);
    expect(outcomes.new).toBeGreaterThan(0);
  }, 180_000);
});
