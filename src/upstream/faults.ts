/**
 * Fault injection decisions, drawn from a seeded PRNG so that a run with faults replays the
 * same way given the same request order. Carrying them out on the socket is server.ts's job.
 */
import { createRng } from './random.js';

/** The ways a request can go wrong. */
export type FaultKind = '5xx' | 'reset' | 'slow' | '429' | 'truncate' | 'html';

/** All fault kinds, the default set to draw from. */
export const FAULT_KINDS: readonly FaultKind[] = ['5xx', 'reset', 'slow', '429', 'truncate', 'html'];

/** How often and how the simulated service misbehaves. */
export interface FaultOptions {
  /** 0..1 share of requests that get a fault. */
  rate?: number;
  kinds?: FaultKind[];
  /** Delay of the 'slow' fault (default 300). */
  slowMs?: number;
  /** Retry-After of the '429' fault (default 1). */
  retryAfterSeconds?: number;
  /** Exact request paths (path and query as sent) that always answer 500. */
  failPaths?: string[];
  seed?: number;
}

/** What to do to one request: a fault kind, or 'fail' for a failPaths hit. */
export type FaultDecision = { kind: FaultKind | 'fail'; slowMs: number; retryAfterSeconds: number };

/** Draws the fault, if any, of each request in turn. */
export interface FaultPlan {
  draw(path: string): FaultDecision | undefined;
}

/** Checks fault options; a bad value is a RangeError naming the option. */
export function checkFaultOptions(options: FaultOptions): void {
  const { rate, kinds, slowMs, retryAfterSeconds } = options;
  if (rate !== undefined && !(rate >= 0 && rate <= 1)) throw new RangeError(`faults.rate must be from 0 to 1, got ${rate}`);
  for (const kind of kinds ?? []) if (!FAULT_KINDS.includes(kind)) throw new RangeError(`faults.kinds: unknown kind ${JSON.stringify(kind)}; kinds: ${FAULT_KINDS.join(', ')}`);
  if (kinds !== undefined && kinds.length === 0 && (rate ?? 0) > 0) throw new RangeError('faults.kinds must not be empty when faults.rate > 0');
  if (slowMs !== undefined && !(Number.isInteger(slowMs) && slowMs >= 0)) throw new RangeError(`faults.slowMs must be a non-negative integer, got ${slowMs}`);
  if (retryAfterSeconds !== undefined && !(Number.isInteger(retryAfterSeconds) && retryAfterSeconds >= 0)) {
    throw new RangeError(`faults.retryAfterSeconds must be a non-negative integer, got ${retryAfterSeconds}`);
  }
}

/** A fresh plan; the PRNG restarts from `options.seed` each time faults are set. */
export function createFaultPlan(options: FaultOptions | undefined): FaultPlan {
  if (!options) return { draw: () => undefined };
  checkFaultOptions(options);
  const rng = createRng(options.seed ?? 1);
  const rate = options.rate ?? 0;
  const kinds = options.kinds ?? FAULT_KINDS;
  const failPaths = new Set(options.failPaths ?? []);
  const decision = (kind: FaultKind | 'fail'): FaultDecision => ({ kind, slowMs: options.slowMs ?? 300, retryAfterSeconds: options.retryAfterSeconds ?? 1 });
  return {
    draw(path) {
      if (failPaths.has(path)) return decision('fail');
      if (rate <= 0) return undefined;
      if (rng.next() >= rate) return undefined;
      return decision(rng.pick(kinds));
    },
  };
}
