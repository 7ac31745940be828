/**
 * Keeps the newest complete snapshot of a folder: polls the manifest's identity and, when a
 * publish replaced it, loads and checks the new snapshot before swapping it in with one
 * assignment. Until then, and whenever a load finds a publish under way, the old one is served.
 */
import { loadSnapshot, manifestStamp, type LoadFailure, type Snapshot } from './snapshot.js';

/** The snapshot being served and the loop that replaces it. */
export interface SnapshotWatch {
  current(): Snapshot;
  /** Checks for a new snapshot now; resolves when the check (and any switch) is done. */
  check(): Promise<void>;
  stop(): void;
}

/** Starts watching `dir`, beginning with `first`; `onSwitch` is told of each new snapshot. */
export function watchSnapshots(dir: string, first: Snapshot, options: { pollMs: number; onSwitch?: (snapshot: Snapshot) => void; onDefer?: (failure: LoadFailure) => void }): SnapshotWatch {
  let current = first;
  let running: Promise<void> | undefined;
  let lastDeferred = '';

  const attempt = async (): Promise<void> => {
    const stamp = await manifestStamp(dir);
    if (!stamp || stamp.key === current.stamp.key) return;
    const loaded = await loadSnapshot(dir, current);
    if (!loaded.ok) {
      // Tell once per distinct reason; the next poll tries again.
      if (loaded.reason !== lastDeferred) options.onDefer?.(loaded);
      lastDeferred = loaded.reason;
      return;
    }
    lastDeferred = '';
    current = loaded.snapshot;
    options.onSwitch?.(current);
  };
  const check = (): Promise<void> => {
    running ??= attempt().finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => void check().catch((error: unknown) => options.onDefer?.({ ok: false, missing: false, reason: String(error) })), options.pollMs);
  timer.unref();
  return {
    current: () => current,
    check,
    stop: () => clearInterval(timer),
  };
}
