/** Smoke test of `npm run bench`: a tiny --quick run of the built bench writes every figure to its JSON. No timing checks. */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { onPath } from '../../bench/script.js';
import { tempDir } from '../helpers/tmp.js';

const BENCH = fileURLToPath(new URL('../../dist-bench/bench/run.js', import.meta.url));

test('bench --quick --scale 300 measures the floors, a sync and a no-change re-sync that rewrites nothing', async () => {
  const dir = tempDir('im-bench-test-');
  const json = join(dir, 'bench.json');
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [BENCH, '--quick', '--scale', '300', '--json', json, '--max-minutes', '2'],
      { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, cwd: dir, timeout: 150_000 },
      (error, out, err) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout: out, stderr: err }),
    );
  });
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
    for (const run of [results.floorA, results.floorB, results.sync, results.resync]) expect(run.cpuMs.user).toBeGreaterThan(0);
  }
  expect(results.floorA.requests).toBe(results.sync.requests);
  expect(results.floorB.files).toBe(results.floorB.requests);
  expect(results.sync.written).toBeGreaterThan(results.records);
  expect(results.sync.wallMs).toBeGreaterThan(0);
  expect(results.resync.written).toBe(0);
  expect(results.resync.removed).toBe(0);
  expect(results.mutation.written).toBeGreaterThan(0);
  expect(typeof results.ratios.syncOverFloorB).toBe('number');
  expect(typeof results.ratios.resyncOverFloorA).toBe('number');
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
}, 180_000);
