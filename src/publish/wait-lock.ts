/**
 * `--wait-lock DURATION`: a run that finds the folder locked by another live process waits for it
 * (as `flock -w` and restic's `--retry-lock` do) instead of failing at once; when the wait is over
 * and the lock still held, the run is skipped (SkippedError), not failed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { LockedError, SkippedError } from '../errors.js';
import { holdOutput, type HeldOutput } from './output.js';

/** How often the lock is tried again while waiting. */
const POLL_MS = 500;

/** Holds `out` for `command`, waiting up to `waitMs` for another process's lock (0: not at all). */
export async function holdOutputWaiting(out: string, command: string, waitMs: number, options: { signal?: AbortSignal | undefined; onWait?: (message: string) => void } = {}): Promise<HeldOutput> {
  const { signal, onWait } = options;
  const until = Date.now() + waitMs;
  let told = false;
  for (;;) {
    try {
      return await holdOutput(out, command);
    } catch (error) {
      if (!(error instanceof LockedError) || waitMs <= 0) throw error;
      const left = until - Date.now();
      if (left <= 0 || signal?.aborted) throw new SkippedError(`skipped: ${error.message.replace(/; wait for it to finish.*$/, '')}, still after waiting ${Math.round(waitMs / 1000)}s (--wait-lock); nothing was done`);
      if (!told) onWait?.(`${error.message.replace(/; wait for it to finish.*$/, '')}; waiting up to ${Math.round(waitMs / 1000)}s for it (--wait-lock)`);
      told = true;
      await sleep(Math.min(POLL_MS, left));
    }
  }
}
