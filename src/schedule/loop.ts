/**
 * The schedule loop: runs a sync on each cron tick, never two at once, one JSON line per run for
 * log collectors, until the shutdown signal. A failed run keeps the loop alive; the next tick
 * retries. On shutdown the run in progress is aborted through the same signal and awaited.
 */
import { createTask, type Logger } from 'node-cron';
import { countChanges, type ChangeCounts } from '../diff/engine.js';
import type { ResourceName } from '../spec/resources.js';
import type { SyncResult } from '../sync/run.js';

/** The JSON line written for each run. */
export interface RunRecord {
  event: 'run';
  start: string;
  end: string;
  status: 'ok' | 'unchanged' | 'failed';
  records?: Record<ResourceName, number>;
  changes?: Record<ResourceName, ChangeCounts>;
  requests?: number;
  notModified?: number;
  error?: string;
}

export interface ScheduleOptions {
  cron: string;
  timezone?: string | undefined;
  /** Run once right away instead of waiting for the first tick. */
  runAtStart: boolean;
  /** Shutdown: stops the ticks and aborts the run in progress. */
  signal: AbortSignal;
  /** One sync; must honour the signal. */
  run(signal: AbortSignal): Promise<SyncResult>;
  /** A JSON line for stdout. */
  emit(line: string): void;
  /** A human note for stderr. */
  note(line: string): void;
  /** Called after each run (alerting); its failures are logged, never fatal. */
  afterRun?(record: RunRecord, result: SyncResult | undefined): Promise<void>;
}

/** Counts of what the loop did, for the caller's last note and for tests. */
export interface ScheduleStats {
  runs: number;
  failed: number;
  skipped: number;
}

/** The outcome of one sync as its JSON line. Pure. */
export function runRecord(start: Date, end: Date, outcome: { result: SyncResult } | { error: string }): RunRecord {
  const base = { event: 'run' as const, start: start.toISOString(), end: end.toISOString() };
  if ('error' in outcome) return { ...base, status: 'failed', error: outcome.error };
  const { result } = outcome;
  return {
    ...base,
    status: result.status === 'published' ? 'ok' : 'unchanged',
    records: result.records,
    changes: countChanges(result.changes),
    requests: result.requests,
    notModified: result.notModified,
  };
}

/** Runs until `options.signal` aborts; resolves once the run in progress (if any) has ended. */
export async function runSchedule(options: ScheduleOptions): Promise<ScheduleStats> {
  const stats: ScheduleStats = { runs: 0, failed: 0, skipped: 0 };
  const { signal } = options;
  let current: Promise<void> | undefined;

  const runOnce = async (): Promise<void> => {
    const start = new Date();
    let result: SyncResult | undefined;
    let record: RunRecord;
    try {
      result = await options.run(signal);
      record = runRecord(start, new Date(), { result });
    } catch (error) {
      record = runRecord(start, new Date(), { error: error instanceof Error ? error.message : String(error) });
      stats.failed++;
      if (!signal.aborted) options.note(`run failed (retried at the next tick): ${record.error}`);
    }
    stats.runs++;
    options.emit(JSON.stringify(record));
    if (options.afterRun && !signal.aborted) await options.afterRun(record, result).catch((error: unknown) => options.note(`warning: after-run step failed: ${String(error)}`));
  };

  const tick = (): void => {
    if (signal.aborted) return;
    if (current) {
      stats.skipped++;
      options.note(`skipped the tick at ${new Date().toISOString()}: the previous run is still going`);
      return;
    }
    current = runOnce().finally(() => {
      current = undefined;
    });
  };

  const logger: Logger = {
    info: () => {},
    debug: () => {},
    warn: (message) => options.note(`cron: ${message}`),
    error: (message) => options.note(`cron: ${message instanceof Error ? message.message : message}`),
  };
  const task = createTask(options.cron, tick, { name: 'inventory-mirror sync', logger, ...(options.timezone ? { timezone: options.timezone } : {}) });
  if (!signal.aborted) {
    await task.start();
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
