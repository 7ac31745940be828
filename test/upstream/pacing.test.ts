import { describe, expect, it } from 'vitest';
import type { Upstream } from '../../src/upstream/index.js';
import { checkPacingOptions, createPacer, drawServiceTime, QUEUE_PER_WORKER } from '../../src/upstream/pacing.js';
import { createRng } from '../../src/upstream/random.js';
import { useUpstream } from '../helpers/upstream.js';
import { get } from './helpers.js';

describe('pacer', () => {
  it('serves at once unless latency or workers are set; bad values are RangeErrors naming the option', () => {
    for (const options of [{}, { latencyMs: 0 }]) {
      let served = false;
      createPacer(options, 1).admit(() => (served = true));
      expect(served).toBe(true);
    }
    expect(() => createPacer({ workers: 2 }, 1).set({ workers: 0 })).toThrow(/workers/);
    expect(() => checkPacingOptions({ latencyMs: -1 })).toThrow(/latencyMs/);
    expect(() => checkPacingOptions({ latencyMs: 1.5 })).toThrow(/latencyMs/);
    expect(() => checkPacingOptions({ workers: 0 })).toThrow(/workers/);
  });

  it('draws service times around the mean with a tail, the same for the same seed', () => {
    const draws = (seed: number): number[] => {
      const rng = createRng(seed);
      return Array.from({ length: 20_000 }, () => drawServiceTime(rng, 20));
    };
    const times = draws(5);
    expect(draws(5)).toEqual(times);
    const sorted = [...times].sort((a, b) => a - b);
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    expect(mean).toBeGreaterThan(19);
    expect(mean).toBeLessThan(21);
    expect(sorted[10_000]).toBeLessThan(20);
    expect(sorted[19_800]).toBeGreaterThan(50);
    expect(sorted.at(-1)).toBeLessThanOrEqual(200);
  });

  it('holds one request per worker and 4 waiting per worker, refusing beyond', () => {
    const pacer = createPacer({ latencyMs: 5, workers: 2 }, 1);
    const admitted = Array.from({ length: 12 }, () => pacer.admit(() => undefined));
    expect(admitted).toEqual([...Array<boolean>(2 + 2 * QUEUE_PER_WORKER).fill(true), false, false]);
    pacer.cancel();
  });

  it('with one worker, serves the waiting requests one after another in their order, then admits again', async () => {
    const pacer = createPacer({ latencyMs: 5, workers: 1 }, 1);
    const served: number[] = [];
    await new Promise<void>((resolve) => {
      const serve = (n: number) => (): void => {
        served.push(n);
        if (served.length === QUEUE_PER_WORKER + 1) resolve();
      };
      for (let n = 0; n <= QUEUE_PER_WORKER; n++) expect(pacer.admit(serve(n))).toBe(true);
      expect(pacer.admit(() => undefined)).toBe(false);
    });
    expect(served).toEqual([0, 1, 2, 3, 4]);
    expect(pacer.admit(() => undefined)).toBe(true);
    pacer.cancel();
  });

  it('set() narrows from now on: with fewer workers than requests in service, the waiting start only as those finish', async () => {
    const pacer = createPacer({ latencyMs: 5, workers: 2 }, 1);
    const served: number[] = [];
    await new Promise<void>((resolve) => {
      const serve = (n: number) => (): void => {
        served.push(n);
        if (served.length === 5) resolve();
      };
      for (let n = 0; n < 2; n++) expect(pacer.admit(serve(n))).toBe(true);
      pacer.set({ latencyMs: 5, workers: 1 });
      // One worker now: one busy beyond it, and room for 4 waiting, not 8.
      for (let n = 2; n < 5; n++) expect(pacer.admit(serve(n))).toBe(true);
      expect(pacer.admit(() => undefined)).toBe(true);
      expect(pacer.admit(() => undefined)).toBe(false);
    });
    expect(served.slice(2)).toEqual([2, 3, 4]);
    pacer.cancel();
  });
});

describe('slow, shared service over HTTP', () => {
  async function burst(upstream: Upstream, n: number): Promise<Response[]> {
    return Promise.all(Array.from({ length: n }, () => get(upstream, '/operating_systems.json')));
  }

  it('queues what a worker cannot take yet, and answers 503 with Retry-After: 1 once the queue is full', async () => {
    const upstream = await useUpstream({ scale: 10, latencyMs: 40, workers: 1, profile: 'realistic' });
    // One worker and its queue hold 1 + 4 requests: however they arrive, none is refused.
    const held = await burst(upstream, 1 + QUEUE_PER_WORKER);
    expect(held.map((r) => r.status)).toEqual(Array(1 + QUEUE_PER_WORKER).fill(200));
    // Twenty at once overflow it unless they trickle in slower than the service; try a few bursts.
    let refused: Response[] = [];
    for (let attempt = 0; attempt < 5 && refused.length === 0; attempt++) {
      const answers = await burst(upstream, 20);
      refused = answers.filter((r) => r.status === 503);
      for (const answer of answers) expect([200, 503]).toContain(answer.status);
    }
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(((await answer.json()) as { error: string }).error).toMatch(/service unavailable/);
    }
  });

  it('latency alone delays but refuses nothing', async () => {
    const upstream = await useUpstream({ scale: 10, latencyMs: 20, profile: 'realistic' });
    expect((await burst(upstream, 20)).map((r) => r.status)).toEqual(Array(20).fill(200));
  });
});
