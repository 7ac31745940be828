/**
 * The 429 pacer on its own, driving a simulated client on a virtual clock (one step a
 * millisecond): requests with a fixed latency, a cap on requests in flight, each 429 retried after
 * its own Retry-After of one second. The clock is the simulation's, so the figures are counts of
 * virtual milliseconds, the same on any machine: a slow test machine changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { RatePacer } from '../../src/fetch/pacer.js';
import { createRateLimiter } from '../../src/upstream/limiter.js';
import { createRng } from '../../src/upstream/random.js';

interface Service {
  /** Whether a request arriving at `now` is refused with 429. */
  refuses(now: number): boolean;
}

interface Outcome {
  /** Virtual milliseconds until every request was answered. */
  ms: number;
  attempts: number;
  refused: number;
  /** Requests that got more 429s in a row than the retries allow. */
  failed: number;
  pacer: RatePacer;
}

const RETRY_AFTER_MS = 1000;

/** `requests` requests through `pacer`, at most `inFlight` at once, each taking `latencyMs`; retried up to 5 times. */
function simulate(service: Service, options: { requests: number; inFlight: number; latencyMs: number; paced: boolean }): Outcome {
  const pacer = new RatePacer();
  // Requests waiting to start, with when they may (a 429's Retry-After).
  const waiting: { id: number; at: number }[] = Array.from({ length: options.requests }, (_, id) => ({ id, at: 0 }));
  const tries = new Map<number, number>();
  let running: { id: number; started: number; ends: number; refused: boolean }[] = [];
  let done = 0;
  let failed = 0;
  let attempts = 0;
  let refused = 0;
  let now = 0;
  for (; done + failed < options.requests; now++) {
    if (now > 3_600_000) throw new Error('the simulation did not finish within an hour of virtual time');
    const finished = running.filter((r) => r.ends <= now);
    running = running.filter((r) => r.ends > now);
    for (const answer of finished) {
      if (options.paced) pacer.answered(answer.started, answer.refused, now, answer.refused ? RETRY_AFTER_MS : undefined);
      if (!answer.refused) done++;
      else if ((tries.get(answer.id) ?? 0) > 5) failed++;
      else waiting.push({ id: answer.id, at: now + RETRY_AFTER_MS });
    }
    for (;;) {
      if (running.length >= options.inFlight || (options.paced && pacer.readyAt() > now)) break;
      const next = waiting.findIndex((w) => w.at <= now);
      if (next === -1) break;
      const [request] = waiting.splice(next, 1);
      tries.set(request!.id, (tries.get(request!.id) ?? 0) + 1);
      if (options.paced) pacer.started(now);
      const no = service.refuses(now);
      attempts++;
      if (no) refused++;
      running.push({ id: request!.id, started: now, ends: now + options.latencyMs, refused: no });
    }
  }
  return { ms: now, attempts, refused, failed, pacer };
}

const fine: Service = { refuses: () => false };
const randomly = (share: number, seed: number): Service => {
  const rng = createRng(seed);
  return { refuses: () => rng.next() < share };
};
const limited = (perSecond: number): Service => {
  const limiter = createRateLimiter(perSecond);
  return { refuses: (now) => !limiter.admit(now) };
};

const shape = { requests: 3600, inFlight: 16, latencyMs: 10, paced: true };

describe('RatePacer', () => {
  it('never paces a service that refuses nothing', () => {
    const run = simulate(fine, shape);
    expect(run.refused).toBe(0);
    expect(run.pacer.report()).toMatchObject({ refused: 0, cuts: 0, lowestRate: undefined, firstRefusedAfterMs: undefined });
  });

  for (const seed of [1, 2, 3]) {
    it(`3% of answers 429 at random (seed ${seed}): within max(3×, +10 s) of a clean run, nothing fails`, () => {
      const clean = simulate(fine, shape).ms;
      const run = simulate(randomly(0.03, seed), shape);
      expect(run.failed).toBe(0);
      expect(run.refused).toBeGreaterThan(50);
      expect(run.ms).toBeLessThanOrEqual(Math.max(3 * clean, clean + 10_000));
    });
  }

  it('10% of answers 429 at random: finishes, every request answered', () => {
    const run = simulate(randomly(0.1, 4), shape);
    expect(run.failed).toBe(0);
    expect(run.ms).toBeLessThanOrEqual(Math.max(3 * simulate(fine, shape).ms, 60_000));
  });

  for (const limit of [150, 40, 600]) {
    it(`a limiter at ${limit}/s: within 1.5× of requests/${limit} + 5 s, under 10% refused, the pace found near the limit`, () => {
      const run = simulate(limited(limit), shape);
      const ideal = (shape.requests / limit) * 1000;
      expect(run.failed).toBe(0);
      expect(run.ms).toBeLessThanOrEqual(1.5 * ideal + 5000);
      expect(run.refused / run.attempts).toBeLessThan(0.1);
      const report = run.pacer.report();
      expect(report.cuts).toBeGreaterThan(0);
      expect(report.lowestRate).toBeGreaterThanOrEqual(limit * 0.5);
      expect(report.lowestRate).toBeLessThanOrEqual(limit);
    });
  }

  it('without the pacer, the same limiter refuses most requests (what the pacer is for)', () => {
    const run = simulate(limited(150), { ...shape, paced: false });
    expect(run.refused / run.attempts).toBeGreaterThan(0.3);
  });
});
