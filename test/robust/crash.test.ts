/**
 * kill -9 at random moments of a sync over an older snapshot: afterwards `verify` (which first
 * finishes or discards the interrupted publish) passes, the folder is the old or the new
 * snapshot and nothing in between, and the next sync brings it level with the service.
 *
 * Kill times are not guessed from the clock alone (a loaded machine shifts every phase): some
 * kills are timed, others fire the moment the folder shows staging under way (before the commit
 * point) or a committed journal (in the middle of the renames).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, runCli } from '../helpers/cli.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { snapshotData } from '../helpers/tree.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';

const upstream = await useUpstream({ scale: 400, seed: 11 });
const env = { INVENTORY_API_TOKEN: TOKEN };

async function contents(dir: string): Promise<string> {
  return JSON.stringify([...(await snapshotData(dir))]);
}

/** The paths whose hashes differ between two `contents`, for a failure message that says where. */
function differing(a: string, b: string): string {
  const [x, y] = [new Map(JSON.parse(a) as [string, string][]), new Map(JSON.parse(b) as [string, string][])];
  const paths = [...new Set([...x.keys(), ...y.keys()])].filter((path) => x.get(path) !== y.get(path));
  return `${paths.length} file(s): ${paths.slice(0, 10).join(', ')}`;
}

type Trigger = { after: number } | { when: 'staging' | 'journal' };

/** Starts the CLI sync and SIGKILLs it at the trigger; resolves once it is gone. */
function syncAndKill(out: string, trigger: Trigger): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'sync', '--base-url', upstream.url, '--out', out, '--quiet', '--allow-mass-removal'], { env: { ...env, PATH: process.env.PATH ?? '' }, stdio: 'ignore' });
    let exited = false;
    const kill = (): void => {
      if (!exited) child.kill('SIGKILL');
    };
    if ('after' in trigger) setTimeout(kill, trigger.after);
    else {
      const watched = join(out, '.inventory-mirror', trigger.when === 'staging' ? 'staging' : 'journal.json');
      const poll = (): void => {
        if (exited) return;
        if (existsSync(watched)) kill();
        else setImmediate(poll);
      };
      poll();
    }
    child.on('exit', () => {
      exited = true;
      resolve();
    });
  });
}

describe('crash safety', () => {
  it('survives kill -9 at any moment of a sync, over and over', async () => {
    const out = tempDir();
    await syncInto(upstream, out);
    const started = Date.now();
    await runCli(['sync', '--base-url', upstream.url, '--out', tempDir(), '--quiet'], { env });
    const fullRun = Date.now() - started;

    const triggers: Trigger[] = [0.2, 0.5, 0.8, 0.95].map((f) => ({ after: Math.round(f * fullRun) }));
    for (let i = 0; i < 4; i++) triggers.push({ when: 'staging' }, { when: 'journal' });
    const deadline = Date.now() + 120_000;
    let recovered = 0;
    let outcomes = { old: 0, new: 0 };
    for (const [i, trigger] of triggers.entries()) {
      if (Date.now() > deadline) break;
      const old = await contents(out);
      upstream.mutate({ seed: 100 + i, share: 0.3 });
      const reference = tempDir();
      await syncInto(upstream, reference);
      const fresh = await contents(reference);

      await syncAndKill(out, trigger);
      const verify = await runCli(['verify', '--dir', out]);
      if (/^finished a publish/m.test(verify.stderr)) recovered++;
      expect(verify.stderr.replace(/^(finished|discarded) .*\n/, '')).toBe('');
      expect(verify.code).toBe(0);
      const now = await contents(out);
      if (now !== old && now !== fresh) expect.fail(`after a kill (${JSON.stringify(trigger)}) the folder is neither snapshot: it differs from the old in ${differing(old, now)}; from the new in ${differing(fresh, now)}`);
      outcomes = now === fresh ? { ...outcomes, new: outcomes.new + 1 } : { ...outcomes, old: outcomes.old + 1 };

      const resync = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--quiet'], { env });
      expect(resync.code).toBe(0);
      expect(await contents(out)).toBe(fresh);
    }
    // Both sides of the commit point were hit, and at least one publish was finished by recovery.
    expect(outcomes.old).toBeGreaterThan(0);
    expect(outcomes.new).toBeGreaterThan(0);
    expect(recovered).toBeGreaterThan(0);
  }, 240_000);
});
