/**
 * Smoke test of `npm run bench`: a tiny --quick run of the built bench, scaling step included,
 * writes every figure to its JSON. No timing checks. Then the bench's pure parts on their own.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { DEFAULT_SCALING, parseBenchArgs } from '../../bench/args.js';
import { fastestRun, incrementalProblems, type IncrementalRun } from '../../bench/incremental.js';
import { formatScaling, type ScalingRow } from '../../bench/report.js';
import { rowDoesNotFit, scaleSteps, type RowBasis } from '../../bench/scaling.js';
import { onPath } from '../../bench/script.js';
import { median } from '../../bench/lib/median.js';
import { spread } from '../../bench/serve-child.js';
import { tempDir } from '../helpers/tmp.js';

const BENCH = fileURLToPath(new URL('../../dist-bench/bench/run.js', import.meta.url));
const CHILDREN = new URL('../../dist-bench/bench/children.js', import.meta.url).href;

function run(args: string[], cwd: string, timeout = 150_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, cwd, timeout }, (error, out, err) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout: out, stderr: err }),
    );
  });
}

test('bench --quick --scale 300 --scaling 150,300 measures the floors, a sync and a no-change re-sync that rewrites nothing, and scales', async () => {
  const dir = tempDir('im-bench-test-');
  const json = join(dir, 'bench.json');
  const { code, stdout, stderr } = await run([BENCH, '--quick', '--scale', '300', '--scaling', '150,300', '--json', json, '--max-minutes', '4'], dir, 270_000);
  expect(stderr).not.toMatch(/internal error/);
  expect(code, stderr + stdout).toBe(0);
  expect(stdout).toMatch(/sync \/ floor \(b\)/);

  const results = JSON.parse(readFileSync(json, 'utf8'));
  expect(results.failures).toEqual([]);
  expect(results.records).toBeGreaterThan(300);
  for (const floor of [results.floorA, results.floorB]) {
    expect(floor.runsMs).toHaveLength(3);
    expect(floor.bestMs).toBeGreaterThan(0);
  }
  expect(results.sync.runsMs).toHaveLength(3);
  expect(results.resync.runsMs).toHaveLength(3);
  if (existsSync('/usr/bin/time')) {
    for (const step of [results.floorA, results.floorB, results.sync, results.resync]) expect(step.cpuMs.user).toBeGreaterThan(0);
  }
  expect(results.floorA.requests).toBe(results.sync.requests);
  expect(results.floorB.files).toBe(results.floorB.requests);
  expect(results.sync.written).toBeGreaterThan(results.records);
  expect(results.sync.wallMs).toBeGreaterThan(0);
  expect(results.resync.written).toBe(0);
  expect(results.resync.removed).toBe(0);
  expect(results.mutation.written).toBeGreaterThan(0);
  // The incremental step, at the bench's scale and the other row: a no-change run within its
  // request bound, writing nothing; after a 1% change it fetches more, and says why.
  expect(results.incremental.map((r: { scale: number }) => r.scale).sort((a: number, b: number) => a - b)).toEqual([150, 300]);
  for (const run of results.incremental) {
    expect(run.noChange.requests).toBeLessThanOrEqual(run.bound.requests);
    expect(run.noChange.written).toBe(0);
    expect(run.noChange.runsMs).toHaveLength(3);
    expect(Math.min(...run.noChange.runsMs)).toBe(run.noChange.wallMs);
    expect(run.noChange.fetched).toBe(run.noChange.reasons.refresh);
    expect(run.afterChange.fetched).toBeGreaterThan(run.noChange.fetched);
    expect(run.afterChange.reasons.changed).toBeGreaterThan(0);
  }
  expect(stdout).toMatch(/incremental sync \(refresh every 7 runs\)/);
  // toBeGreaterThan fails on NaN, which a typeof check lets through.
  expect(results.ratios.syncOverFloorB).toBeGreaterThan(0);
  expect(results.ratios.resyncOverFloorA).toBeGreaterThan(0);
  // The hand-written script runs exactly when its tools are on PATH; else it is skipped, saying which are missing.
  const missing = ['curl', 'jq', 'xargs', 'bash'].filter((name) => !onPath(name));
  if (missing.length > 0) {
    expect(results.script).toEqual({ skipped: `${missing.join(', ')} not installed` });
    expect(results.ratios.scriptOverSync).toBeUndefined();
  } else {
    expect(results.script.skipped).toBeUndefined();
    expect(results.script.files).toBeGreaterThan(0);
    expect(results.ratios.scriptOverSync).toBeGreaterThan(0);
  }

  // The slow service, as it counted the syncs: the cap kept, the degraded run verified, the adaptive run barely refused.
  const slow = results.slowService;
  expect(slow.capacity).toBeGreaterThan(0);
  expect(slow.adaptive.requests).toBe(slow.adaptive.traffic.requests);
  // It starts at 2 and may go lower on a loaded machine: a range, not an exact value.
  expect(slow.adaptive.concurrency.lowest).toBeGreaterThanOrEqual(1);
  expect(slow.adaptive.concurrency.lowest).toBeLessThanOrEqual(2);
  expect(slow.fixed.concurrency).toEqual({ lowest: 16, highest: 16 });
  expect(slow.capped.traffic.busiestSecond).toBeLessThanOrEqual(100);
  expect(slow.degraded.verified).toBe(true);
  expect(stdout).toMatch(/slow service: 150 servers, 20 ms a request, 8 workers/);

  // The throttled service: scattered 429s met and counted, a limiter found (a pace set under it); --quick shows, does not judge.
  const throttled = results.throttled;
  expect(throttled.judged).toBe(false);
  expect(throttled.random.throttle.refused).toBeGreaterThan(0);
  expect(throttled.limited.traffic.throttled).toBeGreaterThan(0);
  expect(throttled.limited.throttle.cuts).toBeGreaterThan(0);
  expect(throttled.limited.throttle.lowestRate).toBeLessThanOrEqual(150);
  expect(stdout).toMatch(/throttled service: 150 servers \(--quick: shown, not judged\)/);

  expect(results.options).toMatchObject({ scaling: [150, 300], profile: null });
  // The offline page's load time is left out of a --quick run, saying so.
  expect(results.notes.filter((note: string) => /^offline page/.test(note))).toEqual(['offline page: not measured (--quick)']);
  expect(stdout).toMatch(/scaling, serve on the synced folder/);
  expect(results.scaling.map((row: ScalingRow) => [row.scale, row.runs])).toEqual([
    [150, 1],
    [300, 3],
  ]);
  expect(results.scaling[1].records).toBe(results.records);
  for (const row of results.scaling as ScalingRow[]) {
    expect(row.records).toBeGreaterThan(row.scale);
    for (const step of [row.sync, row.resync]) {
      expect(step.msPer1000Records).toBeGreaterThan(0);
      // Peak RSS comes from /usr/bin/time, else from the child's own resourceUsage: always there.
      expect(step.rssBytesPerRecord).toBeGreaterThan(0);
    }
    expect(row.sync.written).toBeGreaterThan(row.records);
    expect(row.resync.written).toBe(0);
    expect(Object.keys(row.runMeta.files)).toEqual(['_meta/http-cache.json', '_meta/last-sync.json']);
    expect(row.runMeta.bytesPerRecord).toBeGreaterThan(0);
    expect(row.serve.readyMs).toBeGreaterThan(0);
    expect(row.serve.substring.matches).toBeGreaterThan(0);
    expect(row.serve.substring.medianMs).toBeGreaterThan(0);
    expect(row.serve.single.requestsPerSecond).toBeGreaterThan(0);
    if (existsSync('/proc/self/status')) expect(row.serve.rssAfterBurstMB).toBeGreaterThanOrEqual(1);
  }
}, 300_000);

test('without /usr/bin/time a Node child reports its own peak RSS and CPU time at exit', async () => {
  const script = `
    import { runChild } from ${JSON.stringify(CHILDREN)};
    const child = 'const b = Buffer.alloc(64 * 2 ** 20, 1); let x = 0; for (let i = 0; i < 1e7; i++) x += i; console.log(b.length > 0 && x > 0)';
    const r = await runChild(process.execPath, ['-e', child], { env: { PATH: process.env.PATH }, timeoutMs: 30000, measure: true, timeBin: false });
    console.log(JSON.stringify({ code: r.code, stdout: r.stdout, peakRssBytes: r.peakRssBytes, cpuMs: r.cpuMs }));`;
  const { code, stdout, stderr } = await run(['--input-type=module', '-e', script], tempDir('im-bench-usage-'), 60_000);
  expect(code, stderr).toBe(0);
  const result = JSON.parse(stdout);
  expect(result).toMatchObject({ code: 0, stdout: 'true\n' });
  expect(result.peakRssBytes).toBeGreaterThan(64 * 2 ** 20);
  expect(result.cpuMs.user).toBeGreaterThan(0);
});

describe('the bench, its pure parts', () => {
  const now = new Date('2026-01-02T03:04:05.678Z');

  test('flags: the default scaling adds the own scale in full runs only; --scaling and --profile checked', () => {
    const parse = (argv: string[], profiles = true) => parseBenchArgs(argv, '/w', now, { profiles });
    expect(DEFAULT_SCALING).toEqual([2000, 20000, 200000]);
    expect(parse([])).toMatchObject({ scale: 20000, scaling: [2000, 20000, 200000], profile: undefined, json: '/w/bench-results/bench-2026-01-02T03-04-05Z.json' });
    expect(parse(['--scale', '5000']).scaling).toEqual([2000, 5000, 20000, 200000]);
    expect(parse(['--quick']).scaling).toEqual([]);
    expect(parse(['--quick', '--scaling', '500000, 2000,20000,2000']).scaling).toEqual([2000, 20000, 500000]);
    expect(parse(['--profile', 'exact']).profile).toBe('exact');
    expect(() => parse(['--profile', 'fancy'])).toThrow('--profile: expected realistic or exact, got "fancy"');
    expect(() => parse(['--profile', 'exact'], false)).toThrow(/has no data profiles/);
    expect(() => parse(['--scaling', '2000,x'])).toThrow('--scaling: expected a whole number from 10 to 1000000, got "x"');
    expect(() => parse(['--scalin', '2'])).toThrow(/Unknown option '--scalin'.*--scaling N,N/);
  });

  test('a row is skipped when the pace of a measured row says it will not fit the time, memory or disk left', () => {
    const basis: RowBasis = { scale: 20000, records: 36000, ms: 60_000, memBytes: 2 ** 30, diskBytes: 2 ** 30 };
    const plenty = { msLeft: 60 * 60_000, freeMemBytes: 64 * 2 ** 30, freeDiskBytes: 500 * 2 ** 30 };
    expect(rowDoesNotFit(360_000, basis, plenty)).toBeUndefined();
    // 10× the records: 20 s + 600 s × 1.3 = 13.3 min.
    expect(rowDoesNotFit(360_000, basis, { ...plenty, msLeft: 13 * 60_000 })).toBe(
      'would take about 13.3 min at the pace of the 20000-server row, 13.0 min of the time budget left (raise --max-minutes)',
    );
    expect(rowDoesNotFit(360_000, basis, { ...plenty, freeMemBytes: 12 * 2 ** 30 })).toBe('would need about 12.0 GiB of memory at the pace of the 20000-server row, 12.0 GiB free');
    expect(rowDoesNotFit(360_000, basis, { ...plenty, freeDiskBytes: 13 * 2 ** 30 })).toBe('would write about 12.0 GiB at the pace of the 20000-server row, 13.0 GiB of disk free');
    expect(rowDoesNotFit(360_000, { ...basis, memBytes: undefined }, { ...plenty, freeDiskBytes: undefined })).toBeUndefined();
  });

  test('no-change incremental rounds: the fastest is timed, the worst requests and writes are judged', () => {
    const round = (wallMs: number, requests: number, written = 0): IncrementalRun => ({ wallMs, requests, fetched: requests - 35, reasons: { refresh: requests - 35 }, written });
    const best = fastestRun([round(4_400, 51_468), round(3_900, 51_468), round(4_100, 51_470, 2)]);
    expect(best).toMatchObject({ wallMs: 3_900, requests: 51_470, written: 2, runsMs: [4_400, 3_900, 4_100] });
    const result = { scale: 200_000, records: 360_025, views: 30, resyncMs: 14_000, noChange: best, bound: { requests: 51_469, ms: 4_000 } };
    expect(incrementalProblems(result, true)).toEqual([
      'a no-change incremental sync at 200000 servers made 51470 requests; the bound is 51469',
      'a no-change incremental sync at 200000 servers wrote 2 files; it must write none',
    ]);
    expect(incrementalProblems({ ...result, noChange: fastestRun([round(4_400, 51_468)]) }, true)).toEqual(['a no-change incremental sync at 200000 servers took 4.40 s; the bound is 4.00 s (re-sync / 7 + 2 s)']);
    expect(() => fastestRun([])).toThrow(/at least one run/);
  });

  test('median and spread', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(spread([1, 2, 3, 4, 5, 6], 3)).toEqual([1, 3, 5]);
    expect(spread([1, 2], 3)).toEqual([1, 2]);
  });

  const scalingRow = (): ScalingRow => {
    const run = { wallMs: 6570, medianMs: 6570, msPer1000Records: 182.4, peakRssMB: 290, rssBytesPerRecord: 8441, written: 36063 };
    return {
      scale: 20000,
      records: 36025,
      runs: 3,
      floorBMs: 6640,
      floorBMedianMs: 6640,
      syncOverFloorB: 0.99,
      sync: run,
      resync: { ...run, wallMs: 2330, medianMs: 2330, msPer1000Records: 64.7, peakRssMB: 232, rssBytesPerRecord: 6754, written: 0 },
      runMeta: { files: { '_meta/http-cache.json': 2_600_000, '_meta/last-sync.json': 1000 }, bytes: 2_601_000, bytesPerRecord: 72.2 },
      serve: {
        readyMs: 1830,
        rssAfterLoadMB: 180,
        rssBytesPerRecord: 5239,
        rssAfterBurstMB: 210,
        peakRssMB: 215,
        substring: { path: '/servers.json?search=web', matches: 2641, firstMs: 40.2, medianMs: 12.5, queries: 20 },
        single: { requestsPerSecond: 20678, requests: 62034, distinctIds: 10000, concurrency: 32 },
      },
      upstreamReadyMs: 450,
      upstreamRssMB: 400,
      rowMs: 30_000,
    };
  };

  test('the scaling tables: one line per scale, a skipped scale says so', () => {
    expect(formatScaling([scalingRow(), { scale: 200000, skipped: 'would take about 30.0 min' }], 20000).join('\n')).toMatchInlineSnapshot(`
      "scaling, sync into an empty folder and no-change re-sync (best of the rounds at 20000 servers, else one run):
      servers  records  sync     ms / 1k rec  peak RSS  RSS / rec  sync / floor (b)  re-sync  ms / 1k rec  peak RSS  RSS / rec  run meta B / rec
      20000      36025  6.57 s         182.4    290 MB     8.2 KB             0.99×   2.33 s         64.7    232 MB     6.6 KB              72.2
      200000         -  skipped

      the simulated service: 20000 servers ready in 0.45 s, 400 MB after the warm-up

      scaling, serve on the synced folder (its own process; RSS after loading, and after the queries):
      servers  records   ready  RSS loaded  RSS / rec  RSS after  search       matches   median  single req/s
      20000      36025  1.83 s      180 MB     5.1 KB     210 MB  ?search=web     2641  12.5 ms         20678

      target                                                  value               target      verdict
      sync, further 1 000 records: costliest / cheapest step  needs three scales  ≤ 1.20×     not measured
      sync peak RSS at 20000                                  290 MB              ≤ 400 MB    ok
      re-sync peak RSS at 20000                               232 MB              ≤ 300 MB    ok
      serve RSS after the queries at 20000                    210 MB              ≤ 300 MB    ok
      serve ready at 20000                                    1.83 s              ≤ 3.00 s    ok
      substring query, median, at 20000                       12.5 ms             ≤ 100.0 ms  ok
      run metadata per record at 20000                        72.2 B              ≤ 150 B     ok"
    `);
  });

  test('the cost of each further 1 000 records leaves out what every run pays once; the targets are judged at the largest scale', () => {
    const mid = scalingRow();
    // A fixed 1.5 s on top of 150 ms per 1 000 records, then 165 ms from 20 000 servers on; the
    // steps come from the median rounds, not the best.
    const at = (scale: number, records: number, syncMs: number, floorBMs: number, resyncMs: number): ScalingRow => ({
      ...mid,
      scale,
      records,
      floorBMs: floorBMs - 100,
      floorBMedianMs: floorBMs,
      sync: { ...mid.sync, wallMs: syncMs - 100, medianMs: syncMs },
      resync: { ...mid.resync, wallMs: resyncMs - 100, medianMs: resyncMs },
    });
    const small = at(2000, 3600, 1500 + 540, 1800, 900);
    const middle = at(20000, 36000, 1500 + 5400, 6600, 2400);
    const large = { ...at(200000, 360000, 6900 + 53460, 60000, 20000), serve: { ...mid.serve, readyMs: 3100 } };
    const steps = scaleSteps([large, small, middle]);
    expect(steps).toEqual([
      { from: 2000, to: 20000, sync: 150, resync: 46.3, floorB: 148.1 },
      { from: 20000, to: 200000, sync: 165, resync: 54.3, floorB: 164.8 },
    ]);
    const text = formatScaling([small, middle, large], 20000).join('\n');
    expect(text).toContain('2000 to 20000    150.0 ms  46.3 ms   148.1 ms');
    expect(text).toMatch(/sync, further 1 000 records: costliest \/ cheapest step +1\.10× \(150\.0 ms, 165\.0 ms\) +≤ 1\.20× +ok/);
    expect(text).toMatch(/serve ready at 200000 +3\.10 s +≤ 3\.00 s +MISSED/);
    expect(text).toMatch(/sync peak RSS at 200000 +290 MB +≤ 400 MB +ok/);
    const steep = { ...large, sync: { ...large.sync, medianMs: 6900 + 64800 } };
    expect(formatScaling([small, middle, steep], 20000).join('\n')).toMatch(/costliest \/ cheapest step +1\.33× \(150\.0 ms, 200\.0 ms\) +≤ 1\.20× +MISSED/);
  });
});
