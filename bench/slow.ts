/**
 * The "slow service" step: the simulator as a production CMDB is, 20 ms a request and 8 workers
 * (about 400 requests/s), and the sync against it:
 *
 * - its capacity, measured by the floor client fetching the sync's paths at twice the workers
 *   (every worker busy, the queue never full); the floor is the sync's requests at that rate;
 * - the adaptive sync (the default) and a fixed concurrency, in interleaved rounds, best kept;
 * - `--max-rps 100`, with the busiest second as the service counted it;
 * - the service losing 6 of its 8 workers mid-sync, and `verify` on what was published.
 *
 * The service counts what it saw (`GET /_control/traffic`): requests, the busiest second, the
 * most held at once, and those refused with 503 because its queue was full.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LAST_SYNC_FILE } from '../src/snapshot/paths.js';
import type { TrafficReport } from '../src/upstream/traffic.js';
import { runChild } from './children.js';
import type { FloorReport } from './floor.js';
import type { UpstreamChild } from './upstream-child.js';

/** The step's shape. */
export interface SlowPlan {
  scale: number;
  latencyMs: number;
  workers: number;
  maxRps: number;
  rounds: number;
  /** Requests after which the service loses workers. */
  degradeAfter: number;
  degradedWorkers: number;
}

/** The plan at `scale` servers (bench --slow-scale); a --quick bench runs it once. */
export function slowPlan(scale: number, quick: boolean): SlowPlan {
  // The service loses its workers about a quarter of the way through (a sync makes about 1.8 requests per server).
  return { scale, latencyMs: 20, workers: 8, maxRps: 100, rounds: quick ? 1 : 2, degradeAfter: Math.round(scale / 2), degradedWorkers: 2 };
}

/** Targets of issue 16. */
export const SLOW_TARGETS = { adaptiveOverFloor: 1.15, refusedShare: 0.01 } as const;

/** One sync against the slow service, as its own record and the service's counters tell it. */
export interface SlowRun {
  wallMs: number;
  requests: number;
  concurrency: { lowest: number; highest: number };
  /** 429/503 answers the sync met, by status. */
  overloadAnswers: Record<string, number>;
  traffic: TrafficReport;
}

export interface SlowServiceResult {
  scale: number;
  latencyMs: number;
  workers: number;
  /** Requests per second the service sustains, measured. */
  capacity: number;
  /** The sync's requests at that capacity. */
  floorMs: number;
  adaptive: SlowRun & { runsMs: number[] };
  fixed: SlowRun & { runsMs: number[] };
  capped: SlowRun & { maxRps: number };
  degraded: SlowRun & { degradedTo: number; verified: boolean };
  adaptiveOverFloor: number;
}

interface StepContext {
  cli: string;
  floor: string;
  env: NodeJS.ProcessEnv;
  tmp: string;
  log: (line: string) => void;
  /** Milliseconds left for `step`; throws when none. */
  left: (step: string) => number;
  startUpstream: (scale: number, pacing: { latencyMs: number; workers: number }) => Promise<UpstreamChild>;
  stopUpstream: (upstream: UpstreamChild) => Promise<void>;
}

async function control(url: string, path: string, method: 'GET' | 'POST' = 'GET'): Promise<unknown> {
  const response = await fetch(`${url}/_control/${path}`, { method });
  if (!response.ok) throw new Error(`the slow service answered ${response.status} to ${method} /_control/${path}`);
  return response.json();
}

/** Runs the step; failures (a missed target is not one) are thrown. */
export async function benchSlowService(ctx: StepContext, plan: SlowPlan): Promise<SlowServiceResult> {
  const { scale, latencyMs, workers } = plan;
  const upstream = await ctx.startUpstream(scale, { latencyMs, workers });
  let runs = 0;
  try {
    const floorOnce = async (): Promise<FloorReport> => {
      const step = `slow service: capacity, floor client at concurrency ${2 * workers}`;
      ctx.log(step);
      const child = await runChild(process.execPath, [ctx.floor, '--base-url', upstream.url, '--concurrency', String(2 * workers)], { env: ctx.env, timeoutMs: ctx.left(step) });
      if (child.timedOut) ctx.left(step);
      if (child.code !== 0) throw new Error(`${step} exited with ${child.code}: ${child.stderr.trim().split('\n').pop() ?? ''}`);
      const report = JSON.parse(child.stdout) as FloorReport;
      if (report.errors > 0) throw new Error(`${step}: ${report.errors} of ${report.requests} requests did not answer 200`);
      return report;
    };
    const syncOnce = async (step: string, flags: string[], out = join(ctx.tmp, `slow-${++runs}`), during?: () => Promise<void>): Promise<SlowRun> => {
      ctx.log(step);
      await control(upstream.url, 'traffic/reset', 'POST');
      const running = runChild(process.execPath, [ctx.cli, 'sync', '--base-url', upstream.url, '--out', out, '--quiet', ...flags], { env: ctx.env, cwd: ctx.tmp, timeoutMs: ctx.left(step) });
      await during?.();
      const child = await running;
      // Killed at the time budget: left() says so.
      if (child.timedOut) ctx.left(step);
      if (child.code !== 0) throw new Error(`${step}: sync exited with ${child.code}: ${child.stderr.trim().split('\n').pop() ?? ''}`);
      const last = JSON.parse(await readFile(join(out, LAST_SYNC_FILE), 'utf8')) as { requests: number; concurrency: { lowest: number; highest: number }; overloadAnswers: Record<string, number> };
      const traffic = (await control(upstream.url, 'traffic')) as TrafficReport;
      return { wallMs: child.wallMs, requests: last.requests, concurrency: { lowest: last.concurrency.lowest, highest: last.concurrency.highest }, overloadAnswers: last.overloadAnswers, traffic };
    };
    const best = <T extends { wallMs: number }>(all: T[]): T & { runsMs: number[] } => ({ ...all.reduce((a, b) => (b.wallMs < a.wallMs ? b : a)), runsMs: all.map((r) => r.wallMs) });

    // The first pass renders every body the service will send: untimed.
    await floorOnce();
    const floors: FloorReport[] = [];
    const adaptive: SlowRun[] = [];
    const fixed: SlowRun[] = [];
    for (let round = 1; round <= plan.rounds; round++) {
      floors.push(await floorOnce());
      adaptive.push(await syncOnce(`slow service: adaptive sync, round ${round}`, []));
      fixed.push(await syncOnce(`slow service: sync at a fixed 16, round ${round}`, ['--concurrency', '16', '--fixed-concurrency']));
    }
    const capacity = Math.max(...floors.map((f) => f.requests / (f.elapsedMs / 1000)));
    const capped = await syncOnce(`slow service: sync with --max-rps ${plan.maxRps}`, ['--max-rps', String(plan.maxRps)]);
    const degradedOut = join(ctx.tmp, 'slow-degraded');
    const degraded = await syncOnce(`slow service: ${workers} workers, then ${plan.degradedWorkers} after ${plan.degradeAfter} requests`, [], degradedOut, async () => {
      const until = Date.now() + ctx.left('slow service: degrade');
      while (((await control(upstream.url, 'traffic')) as TrafficReport).requests < plan.degradeAfter && Date.now() < until) await sleep(20);
      await control(upstream.url, `pacing?latency_ms=${latencyMs}&workers=${plan.degradedWorkers}`, 'POST');
    });
    const verify = await runChild(process.execPath, [ctx.cli, 'verify', '--dir', degradedOut], { env: ctx.env, cwd: ctx.tmp, timeoutMs: ctx.left('slow service: verify') });
    const bestAdaptive = best(adaptive);
    const floorMs = Math.round((bestAdaptive.requests / capacity) * 1000);
    return {
      scale,
      latencyMs,
      workers,
      capacity: Math.round(capacity),
      floorMs,
      adaptive: bestAdaptive,
      fixed: best(fixed),
      capped: { ...capped, maxRps: plan.maxRps },
      degraded: { ...degraded, degradedTo: plan.degradedWorkers, verified: verify.code === 0 },
      adaptiveOverFloor: Math.round((bestAdaptive.wallMs / floorMs) * 100) / 100,
    };
  } finally {
    await ctx.stopUpstream(upstream);
  }
}

/** What the step missed, one line each (empty: every target met). */
export function slowServiceFailures(result: SlowServiceResult): string[] {
  const failures: string[] = [];
  const refused = (run: SlowRun): number => run.traffic.refused / Math.max(1, run.traffic.requests);
  if (result.capped.traffic.busiestSecond > result.capped.maxRps) failures.push(`--max-rps ${result.capped.maxRps}: the service counted ${result.capped.traffic.busiestSecond} requests within one second`);
  if (!result.degraded.verified) failures.push('the sync through a service losing workers published a snapshot that verify refuses');
  if (refused(result.adaptive) >= SLOW_TARGETS.refusedShare) failures.push(`the adaptive sync had ${result.adaptive.traffic.refused} of ${result.adaptive.traffic.requests} requests refused (503)`);
  return failures;
}
