/**
 * The adaptive limit against a model of a service: `workers` serve at once, each answer takes a
 * service time drawn around `latencyMs`, the rest wait in a queue (and past `queueLimit` waiting
 * are refused, as a 503). The model runs in simulated time, so the figures are exact and
 * repeatable: the limit must keep the workers busy without filling the queue.
 */
import { describe, expect, it } from 'vitest';
import { ConcurrencyLimit, INITIAL_LIMIT } from '../../src/fetch/limit.js';
import { createRng } from '../../src/upstream/random.js';

interface ModelRun {
  /** Answers per simulated second. */
  throughput: number;
  refused: number;
  limits: number[];
  limit: ConcurrencyLimit;
}

/** `requests` requests through `limit` to a model service; `change` may alter the service at a given answer count. */
function runModel(limit: ConcurrencyLimit, service: { workers: number; latencyMs: number; queueLimit: number }, requests: number, change?: { at: number; workers: number }): ModelRun {
  const rng = createRng(7);
  let now = 0;
  let workers = service.workers;
  let sent = 0;
  let answered = 0;
  let refused = 0;
  const limits: number[] = [];
  // Requests at the service: when each was sent, and when it finishes (once a worker took it).
  const serving: { sent: number; done: number }[] = [];
  const queue: number[] = [];
  const serviceTime = (): number => service.latencyMs * (0.5 + rng.next());
  const fill = (): void => {
    while (serving.length < workers && queue.length > 0) serving.push({ sent: queue.shift()!, done: now + serviceTime() });
  };
  while (answered < requests) {
    while (serving.length + queue.length < limit.limit && sent < requests) {
      sent++;
      if (queue.length >= service.queueLimit) {
        refused++;
        sent--;
        limit.overloaded(now, 'HTTP 503');
        break;
      }
      queue.push(now);
      fill();
    }
    serving.sort((a, b) => a.done - b.done);
    const next = serving.shift()!;
    now = next.done;
    answered++;
    if (change && answered === change.at) workers = change.workers;
    limit.answered(now - next.sent, serving.length + queue.length + 1);
    limits.push(limit.limit);
    fill();
  }
  return { throughput: (answered / now) * 1000, refused, limits, limit };
}

describe('the adaptive concurrency limit', () => {
  it('starts low, then fills a service of 8 workers to within 10% of its capacity without filling its queue', () => {
    const limit = new ConcurrencyLimit(16, true);
    expect(limit.limit).toBe(INITIAL_LIMIT);
    const run = runModel(limit, { workers: 8, latencyMs: 20, queueLimit: 32 }, 4000);
    expect(run.throughput).toBeGreaterThan(400 * 0.9);
    expect(run.refused).toBe(0);
    expect(run.limit.range.lowest).toBe(INITIAL_LIMIT);
    expect(run.limit.range.highest).toBeGreaterThanOrEqual(9);
    // Settled: enough to keep 8 workers busy, not the whole ceiling of queueing.
    const settled = run.limits.slice(-1000);
    expect(Math.min(...settled)).toBeGreaterThanOrEqual(8);
    expect(Math.max(...settled)).toBeLessThan(16);
  });

  it('doubles every two round trips while latency stays flat: 8 in flight within its first 16 answers', () => {
    const run = runModel(new ConcurrencyLimit(16, true), { workers: 8, latencyMs: 20, queueLimit: 32 }, 200);
    expect(run.limits.findIndex((limit) => limit >= 8)).toBeLessThan(16);
    expect(run.refused).toBe(0);
  });

  it('grows to the ceiling when latency stays flat however many are in flight', () => {
    const limit = new ConcurrencyLimit(64, true);
    const run = runModel(limit, { workers: 1000, latencyMs: 20, queueLimit: 1000 }, 4000);
    expect(run.limit.limit).toBe(64);
  });

  it('backs off when the service loses workers mid-run, and stays busy at the new capacity', () => {
    const limit = new ConcurrencyLimit(32, true);
    const run = runModel(limit, { workers: 8, latencyMs: 20, queueLimit: 8 }, 6000, { at: 2000, workers: 2 });
    const after = run.limits.slice(-1500);
    expect(Math.max(...after)).toBeLessThanOrEqual(6);
    expect(Math.min(...after)).toBeGreaterThanOrEqual(2);
  });

  it('halves on an overload answer at most once a second, never below one', () => {
    const limit = new ConcurrencyLimit(16, false);
    expect(limit.limit).toBe(16);
    expect(limit.overloaded(0, 'HTTP 503')).toBeUndefined();
    const adaptive = new ConcurrencyLimit(4, true);
    expect(adaptive.limit).toBe(INITIAL_LIMIT);
    expect(adaptive.overloaded(0, 'HTTP 503')).toEqual({ limit: 1, reason: 'HTTP 503' });
    expect(adaptive.overloaded(500, 'HTTP 503')).toBeUndefined();
    expect(adaptive.overloaded(1000, 'HTTP 429')).toBeUndefined();
    expect(adaptive.limit).toBe(1);
    expect(adaptive.range).toEqual({ lowest: 1, highest: INITIAL_LIMIT });
  });

  it('fixed: keeps the ceiling whatever the latency', () => {
    const limit = new ConcurrencyLimit(12, false);
    const run = runModel(limit, { workers: 2, latencyMs: 20, queueLimit: 100 }, 500);
    expect(new Set(run.limits)).toEqual(new Set([12]));
  });
});
