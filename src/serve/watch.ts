/**
 * Keeps the newest complete snapshot of a folder: polls the manifest's identity and, when a
 * publish replaced it, loads the new snapshot before swapping it in with one assignment. Until
 * then, and whenever a load finds a publish under way, the old one is served. A request that found
 * a file changed under its snapshot asks for a newer one (`newer`) and waits a bounded time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { loadSnapshot, manifestStamp, type LoadFailure, type Snapshot } from './snapshot.js';

/** How often a waiting request looks for the new manifest. */
const WAIT_POLL_MS = 50;

/** The snapshot being served and the loop that replaces it. */
export interface SnapshotWatch {
  current(): Snapshot;
  /** Checks for a new snapshot now; resolves when the check (and any switch) is done. */
  check(): Promise<void>;
  /** A snapshot newer than `than`, once one is loaded; undefined when none is by `deadline` (ms since the epoch). */
  newer(than: Snapshot, deadline: number): Promise<Snapshot | undefined>;
  /** Stops polling and lets the current snapshot close once its requests are done. */
  stop(): void;
}

interface WatchOptions {
  pollMs: number;
  caseSensitive: boolean;
  onSwitch?: (snapshot: Snapshot) => void;
  onDefer?: (failure: LoadFailure) => void;
}

/** Starts watching `dir`, beginning with `first`; `onSwitch` is told of each new snapshot. */
export function watchSnapshots(dir: string, first: Snapshot, options: WatchOptions): SnapshotWatch {
  let current = first;
  let running: Promise<void> | undefined;
  let lastDeferred = '';
  let stopped = false;

  const defer = (failure: LoadFailure): void => {
    // Tell once per distinct reason; the next poll tries again.
    if (failure.reason !== lastDeferred) options.onDefer?.(failure);
    lastDeferred = failure.reason;
  };

  const attempt = async (): Promise<void> => {
    const stamp = await manifestStamp(dir).catch((error: unknown) => {
      defer({ ok: false, missing: false, permanent: true, reason: error instanceof Error ? error.message : String(error) });
      return undefined;
    });
    if (!stamp || stamp.key === current.stamp.key) return;
    const loaded = await loadSnapshot(dir, { caseSensitive: options.caseSensitive, previous: current });
    if (!loaded.ok) return defer(loaded);
    lastDeferred = '';
    if (stopped) {
      loaded.snapshot.retire();
      return;
    }
    const old = current;
    current = loaded.snapshot;
    old.retire();
    options.onSwitch?.(current);
  };
  // A check asked for while one runs must look again once it ends: the running one may have read
  // the folder before the change the caller is asking about. Callers meanwhile share one follow-up.
  let followUp: Promise<void> | undefined;
  const check = (): Promise<void> => {
    if (running) {
      followUp ??= running
        .catch(() => {})
        .then(() => {
          followUp = undefined;
          return check();
        });
      return followUp;
    }
    running = attempt().finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => void check().catch((error: unknown) => defer({ ok: false, missing: false, reason: String(error) })), options.pollMs);
  timer.unref();

  const newer = async (than: Snapshot, deadline: number): Promise<Snapshot | undefined> => {
    for (;;) {
      if (current !== than) return current;
      await check().catch(() => {});
      if (current !== than) return current;
      const left = deadline - Date.now();
      if (left <= 0 || stopped) return undefined;
      await sleep(Math.min(WAIT_POLL_MS, left));
    }
  };

  return {
    current: () => current,
    check,
    newer,
    stop: () => {
      stopped = true;
      clearInterval(timer);
      current.retire();
    },
  };
}
