/**
 * `npm run bench`: one command, one run, every figure side by side on the same simulated
 * service in its own process: the floors (a bare client that fetches the same paths and
 * discards the bodies, or writes each to a new file), a full sync, a no-change re-sync, a
 * re-sync after a 1% mutation, the curl/jq/xargs script a user would write, a concurrency
 * sweep, a slow service (20 ms a request, 8 workers: slow.ts), a throttled one (429s at random and
 * a rate limiter: throttled.ts), a first and a no-change push to S3 (push.ts), the scaling of
 * sync, re-sync and serve, and serve against nginx. Prints tables and
 * writes the same as JSON.
 *
 *     node dist-bench/bench/run.js [--scale N] [--concurrency C] [--quick] [--json FILE] [--max-minutes M]
 *                                  [--seed S] [--scaling N,N,...] [--profile realistic|exact] [--slow-scale N]
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, statfs, writeFile } from 'node:fs/promises';
import { freemem, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LAST_SYNC_FILE } from '../src/snapshot/paths.js';
import { RESOURCE_NAMES, type ResourceName } from '../src/spec/resources.js';
import { parseBenchArgs, UsageProblem, type BenchArgs } from './args.js';
import { memoryOf, runChild, stopAllChildren, type ChildResult } from './children.js';
import type { FloorReport } from './floor.js';
import { median } from './lib/median.js';
import { describeMachine } from './machine.js';
import { formatReport, ratio, type BenchResults, type BestSyncRun, type FloorResult, type ScalingRow, type SyncRun } from './report.js';
import { perRecord, ROW_FIXED_MS, rowDoesNotFit, runMetaOf, treeBytes, type RowBasis } from './scaling.js';
import { handScript, onPath, SCRIPT_CAVEATS } from './script.js';
import { benchServe } from './serve.js';
import { benchSlowService, slowPlan, slowServiceFailures } from './slow.js';
import { benchThrottled, throttledFailures } from './throttled.js';
import { describePage, measurePage } from './browser.js';
import { fastestRun, incrementalBound, incrementalProblems, REFRESH_RUNS, type IncrementalResult, type IncrementalRun } from './incremental.js';
import { benchPush, describePushBench } from './push.js';
import { measureServe } from './serve-child.js';
import { startUpstreamChild, upstreamHasProfiles, type UpstreamChild } from './upstream-child.js';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The product's CLI as `npm run build` made it: the bench measures what ships. */
const CLI = join(HERE, '..', '..', 'dist', 'cli.js');
const FLOOR = join(HERE, 'floor.js');
const SWEEP = [8, 16, 32, 64];
const MUTATE_SHARE = 0.01;
/** Each floor and each sync runs this many times, interleaved, and keeps its best. */
const ROUNDS = 3;
/** Time kept back from the scaling rows for the serve-against-nginx step after them. */
const SERVE_STEP_MS = 60_000;

/** Temporary folders to remove when the bench is interrupted. */
const temporaries = new Set<string>();

/** The step the time budget ran out in; the steps after it are skipped. */
class OutOfTime extends Error {}

async function countFiles(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).length;
}

/** The last line of a child's stderr, without the `/usr/bin/time -v` block. */
function lastError(stderr: string): string {
  const own = stderr.split('\tCommand being timed:')[0] ?? '';
  return own.trim().split('\n').pop() ?? '';
}

const toMB = (bytes: number | undefined): number | undefined => (bytes === undefined ? undefined : Math.round(bytes / 2 ** 20));

/** One bench run; resolves to the exit status (1 when a check failed). */
async function bench(args: BenchArgs, log: (line: string) => void): Promise<number> {
  const deadline = Date.now() + args.maxMinutes * 60_000;
  const left = (step: string): number => {
    const ms = deadline - Date.now();
    if (ms < 1_000) throw new OutOfTime(step);
    return ms;
  };
  const tmp = await mkdtemp(join(tmpdir(), 'im-bench-'));
  temporaries.add(tmp);
  const token = randomBytes(18).toString('base64url');
  // Children get a minimal environment: no inherited token, no config of the caller's.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LANG: 'C', INVENTORY_API_TOKEN: token };
  const results: BenchResults = {
    date: new Date().toISOString(),
    machine: await describeMachine(tmp),
    options: {
      scale: args.scale,
      concurrency: args.concurrency,
      quick: args.quick,
      maxMinutes: args.maxMinutes,
      seed: args.seed,
      scaling: args.scaling,
      profile: args.profile ?? null,
    },
    // Declared here so the JSON lists them in reading order.
    counts: undefined,
    records: undefined,
    ratios: {},
    sweep: [],
    scaling: [],
    notes: [
      'all times are wall clock of a separate process, start-up included; the service runs in a process of its own and gets one untimed warm-up pass',
      `floor (a), floor (b), sync and re-sync run in ${ROUNDS} interleaved rounds, each keeping its fastest; peak RSS is the highest of the rounds; folders are deleted only at the end`,
    ],
    failures: [],
  };
  const upstreams = new Set<UpstreamChild>();
  let runs = 0;

  const startUpstream = async (scale: number, pacing?: { latencyMs: number; workers: number }): Promise<UpstreamChild> => {
    log(`starting the simulated service at scale ${scale}${pacing ? `, ${pacing.latencyMs} ms a request, ${pacing.workers} workers` : ''}`);
    const upstream = await startUpstreamChild({ scale, seed: args.seed, profile: args.profile, token, env, timeoutMs: Math.min(left('start upstream'), 300_000), ...(pacing ? { pacing } : {}) });
    upstreams.add(upstream);
    return upstream;
  };
  const stopUpstream = async (upstream: UpstreamChild): Promise<void> => {
    upstreams.delete(upstream);
    await upstream.stop();
  };

  // The service renders and JIT-compiles on first demand: one untimed pass, so no measured run pays for that.
  const warmUp = async (url: string): Promise<void> => {
    log('warm-up pass (not timed)');
    const child = await runChild(process.execPath, [FLOOR, '--base-url', url, '--concurrency', String(args.concurrency)], { env, timeoutMs: left('warm-up') });
    if (child.timedOut) throw new OutOfTime('warm-up');
    if (child.code !== 0) throw new Error(`warm-up pass exited with ${child.code}: ${lastError(child.stderr)}`);
  };

  type FloorRun = FloorReport & { wallMs: number; cpuMs: ChildResult['cpuMs'] };
  // Folders written by timed steps are removed only at the end: deleting tens of thousands of
  // files keeps the disk busy (ext4 with discard here) well into whatever step runs next.
  const floorOnce = async (url: string, concurrency: number, write: boolean, step: string): Promise<FloorRun> => {
    log(step);
    const dir = join(tmp, `floor-${++runs}`);
    const child = await runChild(process.execPath, [FLOOR, '--base-url', url, '--concurrency', String(concurrency), ...(write ? ['--write', dir] : [])], { env, timeoutMs: left(step), measure: true });
    if (child.timedOut) throw new OutOfTime(step);
    if (child.code !== 0) throw new Error(`${step} exited with ${child.code}: ${lastError(child.stderr)}`);
    const report = JSON.parse(child.stdout) as FloorReport;
    if (report.errors > 0) throw new Error(`${step}: ${report.errors} of ${report.requests} requests did not answer 200`);
    return { ...report, wallMs: child.wallMs, cpuMs: child.cpuMs };
  };
  const bestFloor = (concurrency: number, reports: FloorRun[]): FloorResult => {
    const best = reports.reduce((a, b) => (b.wallMs < a.wallMs ? b : a));
    return {
      concurrency,
      runsMs: reports.map((r) => r.wallMs),
      bestMs: best.wallMs,
      requests: best.requests,
      bytes: best.bytes,
      files: best.files,
      requestsPerSecond: Math.round((best.requests / best.wallMs) * 1000),
      cpuMs: best.cpuMs,
    };
  };
  /** The fastest run, with the highest peak RSS of them all: memory is judged by the worst run. */
  const bestSync = (syncRuns: SyncRun[]): BestSyncRun => {
    const rss = syncRuns.map((r) => r.peakRssBytes).filter((bytes) => bytes !== undefined);
    const peakRssBytes = rss.length > 0 ? Math.max(...rss) : undefined;
    return {
      ...syncRuns.reduce((a, b) => (b.wallMs < a.wallMs ? b : a)),
      peakRssMB: toMB(peakRssBytes),
      peakRssBytes,
      runsMs: syncRuns.map((r) => r.wallMs),
    };
  };

  const sync = async (url: string, out: string, step: string, extra: string[] = []): Promise<SyncRun & { fetch?: { fetched: number; reasons: Record<string, number> }; views: number }> => {
    log(step);
    const child = await runChild(process.execPath, [CLI, 'sync', '--base-url', url, '--out', out, '--quiet', '--concurrency', String(args.concurrency), ...extra], {
      env,
      cwd: tmp,
      timeoutMs: left(step),
      measure: true,
    });
    if (child.timedOut) throw new OutOfTime(step);
    if (child.code !== 0) throw new Error(`${step}: sync exited with ${child.code}: ${lastError(child.stderr)}`);
    const last = JSON.parse(await readFile(join(out, LAST_SYNC_FILE), 'utf8')) as {
      durationMs: number;
      requests: number;
      notModified: number;
      files: { written: number; removed: number; unchanged: number };
      fetch?: { fetched: number; reasons: Record<string, number> };
      views: number;
    };
    return {
      fetch: last.fetch,
      views: last.views,
      wallMs: child.wallMs,
      durationMs: last.durationMs,
      requests: last.requests,
      notModified: last.notModified,
      written: last.files.written,
      removed: last.files.removed,
      unchanged: last.files.unchanged,
      peakRssMB: toMB(child.peakRssBytes),
      peakRssBytes: child.peakRssBytes,
      cpuMs: child.cpuMs,
    };
  };

  const handScriptRun = async (url: string): Promise<NonNullable<BenchResults['script']>> => {
    const missing = ['curl', 'jq', 'xargs', 'bash'].filter((name) => !onPath(name));
    if (missing.length > 0) return { skipped: `${missing.join(', ')} not installed` };
    const step = 'curl + jq + xargs script';
    log(step);
    const file = join(tmp, 'by-hand.sh');
    const out = join(tmp, 'by-hand');
    await writeFile(file, handScript());
    await mkdir(out);
    const child = await runChild('bash', [file], { env: { ...env, URL: url, OUT: out, C: String(args.concurrency) }, timeoutMs: left(step) });
    if (child.timedOut) throw new OutOfTime(step);
    if (child.code !== 0) throw new Error(`${step} exited with ${child.code}: ${lastError(child.stderr)}`);
    const files = await countFiles(out);
    return { wallMs: child.wallMs, files, caveats: SCRIPT_CAVEATS };
  };

  const records = (counts: Record<ResourceName, number>): number => RESOURCE_NAMES.reduce((n, r) => n + counts[r], 0);

  /** `sync --incremental` into `dir` (synced already), as the incremental step measures it. */
  const incrementalRun = async (url: string, dir: string, step: string): Promise<IncrementalRun & { views: number }> => {
    const run = await sync(url, dir, step, ['--incremental', '--refresh-runs', String(REFRESH_RUNS)]);
    return { wallMs: run.wallMs, requests: run.requests, fetched: run.fetch?.fetched ?? run.requests, reasons: run.fetch?.reasons ?? {}, written: run.written, views: run.views };
  };
  /** No-change incremental runs in `dir`, in rounds, the fastest kept (see fastestRun). */
  const noChangeRuns = async (url: string, dir: string, scale: number): Promise<{ views: number; noChange: IncrementalRun }> => {
    const runs: (IncrementalRun & { views: number })[] = [];
    for (let round = 1; round <= ROUNDS; round++) runs.push(await incrementalRun(url, dir, `incremental sync, no change upstream, at scale ${scale}, round ${round} of ${ROUNDS}`));
    const { views, ...noChange } = fastestRun(runs);
    return { views, noChange };
  };
  /** The incremental step at one scale, judged; `mutate` changes 1% of the service's records. */
  const incrementalStep = async (url: string, dir: string, scale: number, n: number, resyncMs: number, mutate: () => Promise<number>): Promise<void> => {
    const { views, noChange } = await noChangeRuns(url, dir, scale);
    const changed = await mutate();
    const { views: _, ...after } = await incrementalRun(url, dir, `incremental sync after a ${MUTATE_SHARE * 100}% mutation, at scale ${scale}`);
    const result: IncrementalResult = { scale, records: n, views, resyncMs, noChange, afterChange: { ...after, changed }, bound: incrementalBound(n, views, resyncMs) };
    (results.incremental ??= []).push(result);
    results.failures.push(...incrementalProblems(result, !args.quick));
  };

  /** A scaling row from its syncs, with serve started on the re-synced folder `dir`. */
  const scalingRow = async (
    scale: number,
    n: number,
    measured: { runs: number; floorB: FloorResult; sync: SyncRun | BestSyncRun; resync: SyncRun | BestSyncRun; dir: string; upstreamReadyMs: number; upstreamRssBytes: number | undefined; startedAt: number },
  ): Promise<ScalingRow> => {
    log(`serve on the folder synced at scale ${scale}`);
    const serve = await measureServe({ cli: CLI, dir: measured.dir, env, cwd: tmp, records: n, timeoutMs: Math.min(left(`serve at scale ${scale}`), 300_000), quick: args.quick });
    return {
      scale,
      records: n,
      runs: measured.runs,
      floorBMs: measured.floorB.bestMs,
      floorBMedianMs: median(measured.floorB.runsMs),
      syncOverFloorB: ratio(measured.sync.wallMs, measured.floorB.bestMs),
      sync: perRecord(measured.sync, n),
      resync: perRecord(measured.resync, n),
      runMeta: await runMetaOf(measured.dir, n),
      serve,
      upstreamReadyMs: measured.upstreamReadyMs,
      upstreamRssMB: toMB(measured.upstreamRssBytes),
      rowMs: Date.now() - measured.startedAt,
    };
  };
  /** A row measured, as the yardstick of the next: its time, its most memory in use at once, its disk. */
  const basisOf = (row: {
    scale: number;
    records: number;
    ms: number;
    floorB: FloorResult;
    syncPeakBytes: number | undefined;
    upstreamRssBytes: number | undefined;
    serve?: ScalingRow['serve'];
  }): RowBasis => {
    const servePeakMB = row.serve?.peakRssMB ?? row.serve?.rssAfterBurstMB;
    const during = row.syncPeakBytes === undefined || row.upstreamRssBytes === undefined ? undefined : row.syncPeakBytes + row.upstreamRssBytes;
    const mem = [during, servePeakMB === undefined ? undefined : servePeakMB * 2 ** 20].filter((bytes) => bytes !== undefined);
    return { scale: row.scale, records: row.records, ms: row.ms, memBytes: mem.length > 0 ? Math.max(...mem) : undefined, diskBytes: 2 * treeBytes(row.floorB.files, row.floorB.bytes) };
  };
  const room = async (): Promise<{ msLeft: number; freeMemBytes: number; freeDiskBytes: number | undefined }> => {
    const disk = await statfs(tmp).catch(() => undefined);
    return {
      msLeft: deadline - Date.now() - (args.quick ? 0 : SERVE_STEP_MS),
      freeMemBytes: freemem(),
      freeDiskBytes: disk === undefined ? undefined : disk.bavail * disk.bsize,
    };
  };
  const mirror = join(tmp, `mirror-${ROUNDS}`);

  let mainRowMs = 0;
  let mainUpstreamRss: number | undefined;
  let mainUpstreamReadyMs = 0;
  try {
    const mainStarted = Date.now();
    const upstream = await startUpstream(args.scale);
    mainUpstreamReadyMs = upstream.readyMs;
    results.counts = { ...upstream.counts };
    results.records = records(upstream.counts);
    await warmUp(upstream.url);
    mainUpstreamRss = memoryOf(upstream.pid).rssBytes;

    // Rounds of floor (a), floor (b), sync, re-sync: drift in a shared machine's speed then
    // reaches every measure alike, and each keeps its best round, as the floors always did.
    const floorsA: FloorRun[] = [];
    const floorsB: FloorRun[] = [];
    const syncs: SyncRun[] = [];
    const resyncs: SyncRun[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const of = `round ${round} of ${ROUNDS}`;
      floorsA.push(await floorOnce(upstream.url, args.concurrency, false, `floor (a) at concurrency ${args.concurrency}, ${of}`));
      floorsB.push(await floorOnce(upstream.url, args.concurrency, true, `floor (b) at concurrency ${args.concurrency}, ${of}`));
      const out = join(tmp, `mirror-${round}`);
      syncs.push(await sync(upstream.url, out, `sync into an empty folder, ${of}`));
      resyncs.push(await sync(upstream.url, out, `re-sync, no change upstream, ${of}`));
      if (round === 1) mainRowMs = Date.now() - mainStarted;
    }
    results.floorA = bestFloor(args.concurrency, floorsA);
    results.floorB = bestFloor(args.concurrency, floorsB);
    results.sync = bestSync(syncs);
    results.resync = bestSync(resyncs);
    results.ratios.syncOverFloorB = ratio(results.sync.wallMs, results.floorB.bestMs);
    results.ratios.resyncOverFloorA = ratio(results.resync.wallMs, results.floorA.bestMs);
    if (results.sync.requests !== results.floorA.requests) {
      results.failures.push(`the floor made ${results.floorA.requests} requests and the sync ${results.sync.requests}: the floor no longer fetches what the sync fetches`);
    }
    for (const resync of resyncs) {
      if (resync.written !== 0 || resync.removed !== 0) {
        results.failures.push(`a re-sync of an unchanged service wrote ${resync.written} and removed ${resync.removed} files; it must touch none`);
      }
    }

    // mirror-1 is as the rounds left it: the incremental step's no-change runs, then one after the mutation.
    const { views: mainViews, noChange: mainNoChange } = await noChangeRuns(upstream.url, join(tmp, 'mirror-1'), args.scale);
    log(`mutating ${MUTATE_SHARE * 100}% of the records`);
    const mutated = await upstream.mutate(MUTATE_SHARE, args.seed + 1);
    {
      const { views: _, ...after } = await incrementalRun(upstream.url, join(tmp, 'mirror-1'), `incremental sync after a ${MUTATE_SHARE * 100}% mutation, at scale ${args.scale}`);
      const result: IncrementalResult = {
        scale: args.scale,
        records: results.records,
        views: mainViews,
        resyncMs: results.resync.wallMs,
        noChange: mainNoChange,
        afterChange: { ...after, changed: mutated.added + mutated.removed + mutated.changed },
        bound: incrementalBound(results.records, mainViews, results.resync.wallMs),
      };
      (results.incremental ??= []).push(result);
      results.failures.push(...incrementalProblems(result, !args.quick));
    }
    results.mutation = { ...(await sync(upstream.url, mirror, `re-sync after a ${MUTATE_SHARE * 100}% mutation`)), share: MUTATE_SHARE, mutated };
    if (results.mutation.written === 0) results.failures.push('the re-sync after a mutation wrote no file');

    results.script = await handScriptRun(upstream.url);
    if ('wallMs' in results.script) results.ratios.scriptOverSync = ratio(results.script.wallMs, results.sync.wallMs);

    if (!args.quick) {
      for (const concurrency of SWEEP) {
        if (concurrency === args.concurrency) {
          results.sweep.push(results.floorA);
          continue;
        }
        const sweepRuns: FloorRun[] = [];
        for (let round = 1; round <= ROUNDS; round++) sweepRuns.push(await floorOnce(upstream.url, concurrency, false, `floor (a) at concurrency ${concurrency}, run ${round} of ${ROUNDS}`));
        results.sweep.push(bestFloor(concurrency, sweepRuns));
      }
    }
    results.notes.push(describePage(args.quick ? { skipped: '--quick' } : await measurePage({ cli: CLI, url: upstream.url, dir: mirror, env, cwd: tmp, servers: upstream.counts.servers, timeoutMs: left('offline page') })));
    try {
      results.notes.push(describePushBench(args.quick ? { skipped: '--quick' } : await benchPush({ dir: mirror, env, timeoutMs: left('push'), log })));
    } catch (error) {
      if (error instanceof OutOfTime) throw error;
      results.failures.push(error instanceof Error ? error.message : String(error));
    }
    await stopUpstream(upstream);

    results.slowService = await benchSlowService({ cli: CLI, floor: FLOOR, env, tmp, log, left, startUpstream, stopUpstream }, slowPlan(args.slowScale, args.quick));
    results.failures.push(...slowServiceFailures(results.slowService));

    results.throttled = await benchThrottled({ cli: CLI, env, tmp, log, left, startUpstream: (scale) => startUpstream(scale), stopUpstream }, args.slowScale, args.quick);
    results.failures.push(...throttledFailures(results.throttled));

    // Scaling: at each server count, a sync into an empty folder, a no-change re-sync and serve on
    // the result; the bench's own scale reuses its rounds. A row runs only when the pace of the
    // largest row so far says it fits the time, memory and disk left.
    const mainBasis = { scale: args.scale, records: results.records, ms: mainRowMs, floorB: results.floorB, syncPeakBytes: results.sync.peakRssBytes, upstreamRssBytes: mainUpstreamRss };
    const largest = (a: RowBasis | undefined, b: RowBasis): RowBasis => (a && a.records > b.records ? a : b);
    let basis: RowBasis | undefined;
    const mainRecordsPerServer = results.records / args.scale;
    for (const scale of args.scaling) {
      const expected = Math.round(scale * mainRecordsPerServer);
      if (scale === args.scale) {
        if ((await room()).msLeft < (args.quick ? 5_000 : ROW_FIXED_MS)) {
          results.scaling.push({ scale, skipped: 'no time left for serve' });
          results.notes.push(`scaling: the row of ${scale} servers was skipped: no time left for serve (raise --max-minutes)`);
          continue;
        }
        const row = await scalingRow(scale, results.records, {
          runs: ROUNDS,
          floorB: results.floorB,
          sync: results.sync,
          resync: results.resync,
          dir: join(tmp, 'mirror-1'),
          upstreamReadyMs: mainUpstreamReadyMs,
          upstreamRssBytes: mainUpstreamRss,
          // Its own time: the first round of the main steps, then serve.
          startedAt: Date.now() - mainRowMs,
        });
        results.scaling.push(row);
        basis = largest(basis, basisOf({ ...mainBasis, ms: row.rowMs, serve: row.serve }));
        continue;
      }
      const reason = rowDoesNotFit(expected, basis ?? basisOf(mainBasis), await room());
      if (reason) {
        results.scaling.push({ scale, skipped: reason });
        results.notes.push(`scaling: the row of ${scale} servers (about ${expected} records) was skipped: it ${reason}`);
        continue;
      }
      const startedAt = Date.now();
      const other = await startUpstream(scale);
      await warmUp(other.url);
      const upstreamRssBytes = memoryOf(other.pid).rssBytes;
      const floorB = bestFloor(args.concurrency, [await floorOnce(other.url, args.concurrency, true, `floor (b) at scale ${scale}`)]);
      const dir = join(tmp, `mirror-${scale}`);
      const otherSync = await sync(other.url, dir, `sync into an empty folder at scale ${scale}`);
      const otherResync = await sync(other.url, dir, `re-sync, no change upstream, at scale ${scale}`);
      const n = records(other.counts);
      await incrementalStep(other.url, dir, scale, n, otherResync.wallMs, async () => {
        log(`mutating ${MUTATE_SHARE * 100}% of the records at scale ${scale}`);
        const m = await other.mutate(MUTATE_SHARE, args.seed + 1);
        return m.added + m.removed + m.changed;
      });
      if (scale === Math.max(...args.scaling) && !args.quick) results.notes.push(describePage(await measurePage({ cli: CLI, url: other.url, dir, env, cwd: tmp, servers: other.counts.servers, timeoutMs: left(`offline page at scale ${scale}`) })));
      await stopUpstream(other);
      if (otherResync.written !== 0 || otherResync.removed !== 0) {
        results.failures.push(`a re-sync at scale ${scale} of an unchanged service wrote ${otherResync.written} and removed ${otherResync.removed} files; it must touch none`);
      }
      const row = await scalingRow(scale, n, { runs: 1, floorB, sync: otherSync, resync: otherResync, dir, upstreamReadyMs: other.readyMs, upstreamRssBytes, startedAt });
      results.scaling.push(row);
      basis = largest(basis, basisOf({ scale, records: n, ms: row.rowMs, floorB, syncPeakBytes: otherSync.peakRssBytes, upstreamRssBytes, serve: row.serve }));
    }

    if (args.quick) {
      results.notes.push('serve benchmark skipped in --quick');
    } else {
      left('serve benchmark');
      log('serve benchmark: serve and nginx over the mirror just synced');
      results.serve = await benchServe({ dir: mirror, cli: CLI, env, cwd: tmp });
    }
  } catch (error) {
    if (error instanceof OutOfTime) results.notes.push(`the time budget of ${args.maxMinutes} min ran out during "${error.message}"; the steps after it were skipped (raise --max-minutes)`);
    else results.failures.push(error instanceof Error ? error.message : String(error));
  } finally {
    for (const upstream of upstreams) await upstream.stop();
    stopAllChildren();
    await rm(tmp, { recursive: true, force: true });
    temporaries.delete(tmp);
  }

  await mkdir(dirname(args.json), { recursive: true });
  await writeFile(args.json, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(formatReport(results));
  process.stdout.write(`\nresults written to ${args.json}\n`);
  return results.failures.length > 0 ? 1 : 0;
}

function onSignal(signal: NodeJS.Signals): void {
  stopAllChildren();
  for (const dir of temporaries) rmSync(dir, { recursive: true, force: true });
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  process.kill(process.pid, signal);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const log = (line: string): void => void process.stderr.write(`bench: ${line}\n`);
  let args: BenchArgs | undefined;
  try {
    args = parseBenchArgs(process.argv.slice(2), process.cwd(), new Date(), { profiles: upstreamHasProfiles() });
  } catch (error) {
    if (!(error instanceof UsageProblem)) throw error;
    process.stderr.write(`bench: ${error.message}\n`);
    process.exitCode = 2;
  }
  if (args) {
    bench(args, log).then(
      (status) => {
        process.exitCode = status;
      },
      (error: unknown) => {
        stopAllChildren();
        process.stderr.write(`bench: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
        process.exitCode = 70;
      },
    );
  }
}
