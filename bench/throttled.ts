/**
 * The "throttled service" step (issue 31): the simulator answering 429 Too Many Requests, and the
 * sync against it, each time as the service counted it (`GET /_control/traffic`):
 *
 * - a clean sync, the reference;
 * - 3% of answers 429 at random with Retry-After: 1 (not a limit: the sync must not slow down
 *   much): target within max(3×, +10 s) of the clean sync;
 * - a rate limiter at 150 requests a second (`/_control/limit`): target within 1.5× of
 *   requests/150 + 5 s, under 10% of the requests refused.
 *
 * A --quick bench runs it at a scale where the limiter's first second (met unpaced, it refuses
 * the burst) is much of the sync: the figures are shown, the targets judged only in a full run.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LAST_SYNC_FILE } from '../src/snapshot/paths.js';
import type { TrafficReport } from '../src/upstream/traffic.js';
import { runChild } from './children.js';
import type { UpstreamChild } from './upstream-child.js';

export const THROTTLE_TARGETS = { randomShare: 0.03, randomOverClean: 3, randomPlusMs: 10_000, limit: 150, limitedOverIdeal: 1.5, limitedPlusMs: 5_000, refusedShare: 0.1 } as const;

/** One sync against the throttled service. */
export interface ThrottledRun {
  wallMs: number;
  requests: number;
  /** The sync's own account (last-sync.json `throttle`). */
  throttle: { refused: number; cuts: number; lowestRate?: number; rate?: number };
  traffic: TrafficReport;
}

export interface ThrottledResult {
  scale: number;
  judged: boolean;
  clean: ThrottledRun;
  random: ThrottledRun;
  limited: ThrottledRun;
  /** random wall / clean wall; limited wall / (requests / limit). */
  randomOverClean: number;
  limitedIdealMs: number;
}

interface StepContext {
  cli: string;
  env: NodeJS.ProcessEnv;
  tmp: string;
  log: (line: string) => void;
  left: (step: string) => number;
  startUpstream: (scale: number) => Promise<UpstreamChild>;
  stopUpstream: (upstream: UpstreamChild) => Promise<void>;
}

async function control(url: string, path: string, method: 'GET' | 'POST' = 'GET'): Promise<unknown> {
  const response = await fetch(`${url}/_control/${path}`, { method });
  if (!response.ok) throw new Error(`the throttled service answered ${response.status} to ${method} /_control/${path}`);
  return response.json();
}

/** Runs the step at `scale` servers; failures to run are thrown, missed targets are not. */
export async function benchThrottled(ctx: StepContext, scale: number, quick: boolean): Promise<ThrottledResult> {
  const upstream = await ctx.startUpstream(scale);
  let runs = 0;
  try {
    const syncOnce = async (step: string): Promise<ThrottledRun> => {
      ctx.log(step);
      const out = join(ctx.tmp, `throttled-${++runs}`);
      await control(upstream.url, 'traffic/reset', 'POST');
      const child = await runChild(process.execPath, [ctx.cli, 'sync', '--base-url', upstream.url, '--out', out, '--quiet'], { env: ctx.env, cwd: ctx.tmp, timeoutMs: ctx.left(step) });
      if (child.timedOut) ctx.left(step);
      if (child.code !== 0) throw new Error(`${step}: sync exited with ${child.code}: ${child.stderr.trim().split('\n').pop() ?? ''}`);
      const last = JSON.parse(await readFile(join(out, LAST_SYNC_FILE), 'utf8')) as { requests: number; throttle: ThrottledRun['throttle'] };
      return { wallMs: child.wallMs, requests: last.requests, throttle: last.throttle, traffic: (await control(upstream.url, 'traffic')) as TrafficReport };
    };
    // The first pass renders every body: untimed, as the other steps' warm-up.
    await syncOnce('throttled service: warm-up sync (not judged)');
    const clean = await syncOnce('throttled service: clean sync');
    await control(upstream.url, `faults?rate=${THROTTLE_TARGETS.randomShare}&kinds=429&seed=7`, 'POST');
    const random = await syncOnce(`throttled service: ${THROTTLE_TARGETS.randomShare * 100}% of answers 429 at random`);
    await control(upstream.url, 'faults?rate=0', 'POST');
    await control(upstream.url, `limit?per_second=${THROTTLE_TARGETS.limit}`, 'POST');
    const limited = await syncOnce(`throttled service: a limiter at ${THROTTLE_TARGETS.limit} requests a second`);
    return {
      scale,
      judged: !quick,
      clean,
      random,
      limited,
      randomOverClean: Math.round((random.wallMs / clean.wallMs) * 100) / 100,
      limitedIdealMs: Math.round((limited.requests / THROTTLE_TARGETS.limit) * 1000),
    };
  } finally {
    await ctx.stopUpstream(upstream);
  }
}

/** The random run's bound: max(3×, +10 s) of the clean one. */
const randomBound = (r: ThrottledResult): number => Math.max(THROTTLE_TARGETS.randomOverClean * r.clean.wallMs, r.clean.wallMs + THROTTLE_TARGETS.randomPlusMs);
const limitedBound = (r: ThrottledResult): number => THROTTLE_TARGETS.limitedOverIdeal * r.limitedIdealMs + THROTTLE_TARGETS.limitedPlusMs;
const refusedShare = (run: ThrottledRun): number => run.traffic.throttled / Math.max(1, run.traffic.requests);

/** What the step missed, one line each (empty: every target met, or a --quick run). */
export function throttledFailures(r: ThrottledResult): string[] {
  if (!r.judged) return [];
  const failures: string[] = [];
  if (r.random.wallMs > randomBound(r)) failures.push(`3% random 429s: the sync took ${r.random.wallMs} ms, over max(3×, +10 s) of the clean ${r.clean.wallMs} ms`);
  if (r.limited.wallMs > limitedBound(r)) failures.push(`limiter at ${THROTTLE_TARGETS.limit}/s: the sync took ${r.limited.wallMs} ms, over 1.5 × ${r.limitedIdealMs} + 5000 ms`);
  if (refusedShare(r.limited) >= THROTTLE_TARGETS.refusedShare) failures.push(`limiter at ${THROTTLE_TARGETS.limit}/s: ${r.limited.traffic.throttled} of ${r.limited.traffic.requests} requests refused`);
  return failures;
}

/** The step as lines of the report. */
export function formatThrottled(r: ThrottledResult, table: (header: string[], rows: (string | number | undefined)[][]) => string): string[] {
  const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
  const row = (label: string, run: ThrottledRun, bound: string): (string | number | undefined)[] => [
    label,
    s(run.wallMs),
    run.requests,
    `${run.traffic.throttled} (${(refusedShare(run) * 100).toFixed(1)}%)`,
    run.throttle.cuts,
    run.throttle.lowestRate === undefined ? '-' : `${run.throttle.lowestRate}/s`,
    bound,
  ];
  return [
    `throttled service: ${r.scale} servers${r.judged ? '' : ' (--quick: shown, not judged)'}:`,
    table(
      ['sync', 'wall', 'requests', 'refused 429', 'pace cuts', 'slowest pace', 'target'],
      [
        row('clean', r.clean, ''),
        row('3% random 429', r.random, `≤ ${s(randomBound(r))}${r.random.wallMs <= randomBound(r) ? ' ok' : ' MISSED'}`),
        row(`limiter ${THROTTLE_TARGETS.limit}/s`, r.limited, `≤ ${s(limitedBound(r))}, < 10% refused${r.limited.wallMs <= limitedBound(r) && refusedShare(r.limited) < THROTTLE_TARGETS.refusedShare ? ' ok' : ' MISSED'}`),
      ],
    ),
  ];
}
