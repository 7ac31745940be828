/**
 * The schedule loop: runs a sync on each cron tick, never two at once, one JSON line per run for
 * log collectors, until the shutdown signal. A failed run keeps the loop alive; the next tick
 * retries. On shutdown the run in progress is aborted through the same signal and awaited.
 */
import { createTask, type Logger } from 'node-cron';
import { runRecord, type RunRecord, type SyncResult } from '../sync/result.js';

interface ScheduleOptions {
  cron: string;
  timezone?: string | undefined;
  /** Run once right away instead of waiting for the first tick. */
  runAtStart: boolean;
  /** Shutdown: stops the ticks and aborts the run in progress. */
  signal: AbortSignal;
  /** One sync; must honour the signal. */
  run(signal: AbortSignal): Promise<SyncResult>;
  /** A run's JSON line for stdout. */
  emit(record: RunRecord): void;
  /** A human note for stderr. */
  note(line: string): void;
}

/** Counts of what the loop did, for the caller's last note and for tests. */
interface ScheduleStats {
  runs: number;
  failed: number;
  skipped: number;
}

/** Runs until `options.signal` aborts; resolves once the run in progress (if any) has ended. */
export async function runSchedule(options: ScheduleOptions): Promise<ScheduleStats> {
  const stats: ScheduleStats = { runs: 0, failed: 0, skipped: 0 };
  const { signal } = options;
  let current: Promise<void> | undefined;

  const logger: Logger = {
    info: () => {},
    debug: () => {},
    warn: (message) => options.note(`cron: ${message}`),
    error: (message) => options.note(`cron: ${message instanceof Error ? message.message : message}`),
  };
  const task = createTask(options.cron, () => tick(), { name: 'inventory-mirror sync', logger, ...(options.timezone ? { timezone: options.timezone } : {}) });
  const nextRun = (): string => {
    const next = task.getNextRun();
    return next ? `next run at ${next.toISOString()}` : 'no further run is due';
  };

  const runOnce = async (): Promise<void> => {
    const start = new Date();
    let record: RunRecord;
    try {
      record = runRecord(start, new Date(), { result: await options.run(signal) });
    } catch (error) {
      record = runRecord(start, new Date(), { error: error instanceof Error ? error.message : String(error) });
      stats.failed++;
      if (!signal.aborted) options.note(`run failed (retried at the next tick): ${record.error}`);
    }
    stats.runs++;
    options.emit(record);
    if (!signal.aborted) options.note(`schedule: ${nextRun()}`);
  };

  const tick = (): void => {
    if (signal.aborted) return;
    if (current) {
      stats.skipped++;
      options.note(`skipped the tick at ${new Date().toISOString()}: the previous run is still going; ${nextRun()}`);
      return;
    }
    current = runOnce().finally(() => {
      current = undefined;
    });
  };

  if (!signal.aborted) {
    await task.start();
    options.note(`schedule: ${options.runAtStart ? 'running now; then ' : ''}${nextRun()}`);
    if (options.runAtStart) tick();
    await new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }
  await task.destroy();
  await current;
  return stats;
}
