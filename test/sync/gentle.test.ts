/**
 * A slow, shared service: the sync backs off when it is overloaded (fewer requests in flight,
 * Retry-After honoured) and never starts more requests per second than --max-rps allows, and
 * still publishes the whole snapshot.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAST_SYNC_FILE } from '../../src/snapshot/paths.js';
import { RESOURCE_NAMES } from '../../src/spec/resources.js';
import { verifyFolder } from '../../src/verify/verify.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { tokenFile, useUpstream } from '../helpers/upstream.js';

interface RunRecord {
  concurrency: { configured: number; adaptive: boolean; lowest: number; highest: number };
  overloadAnswers: Record<string, number>;
  records: Record<string, number>;
  retries: number;
}

const lastSync = (out: string): RunRecord => JSON.parse(readFileSync(join(out, LAST_SYNC_FILE), 'utf8')) as RunRecord;

describe('a slow, shared service', () => {
  it('adaptive (the default): on a service of 2 workers, starts low, stays near what it can serve, is barely refused, and publishes everything', async () => {
    // 20 ms a request: a latency signal that a loaded machine's scheduling noise does not drown.
    const upstream = await useUpstream({ scale: 60, latencyMs: 20, workers: 2 });
    const out = tempDir();
    const run = await runCli(['sync', '--base-url', upstream.url, '--token-file', tokenFile(), '--out', out, '--concurrency', '32'], { timeoutMs: 120_000 });
    expect(run.code, run.stderr).toBe(0);
    const traffic = upstream.traffic();
    // The service holds 2 in service and 8 waiting before it refuses; a fixed 32 has 22 refused at once.
    expect(traffic.refused).toBeLessThanOrEqual(3);
    const record = lastSync(out);
    // It starts at 2; a latency rise on a loaded machine may take it to 1, so the lowest is a range.
    expect(record.concurrency).toMatchObject({ configured: 32, adaptive: true });
    expect(record.concurrency.lowest).toBeGreaterThanOrEqual(1);
    expect(record.concurrency.lowest).toBeLessThanOrEqual(2);
    expect(record.concurrency.highest).toBeLessThan(32);
    const { lowest, highest } = record.concurrency;
    expect(run.stdout).toContain(`in flight ${lowest === highest ? lowest : `${lowest} to ${highest}`} (adaptive, at most 32); `);
    for (const r of RESOURCE_NAMES) expect(record.records[r]).toBe(upstream.counts()[r]);
    expect(await verifyFolder(out)).toMatchObject({ missing: [], altered: [], extra: [] });
  }, 150_000);

  it('--fixed-concurrency keeps what it was told through 503 answers, counts them, and still publishes everything', async () => {
    const upstream = await useUpstream({ scale: 60, faults: { rate: 0.05, kinds: ['5xx'], seed: 3 } });
    const out = tempDir();
    const run = await runCli(['sync', '--base-url', upstream.url, '--token-file', tokenFile(), '--out', out, '--concurrency', '12', '--fixed-concurrency'], { timeoutMs: 120_000 });
    expect(run.code, run.stderr).toBe(0);
    const record = lastSync(out);
    expect(record.concurrency).toEqual({ configured: 12, adaptive: false, lowest: 12, highest: 12 });
    expect(record.overloadAnswers['503']).toBeGreaterThan(0);
    expect(run.stdout).toContain(`in flight 12 (fixed); overloaded answers: ${record.overloadAnswers['503']}× 503`);
    expect(await verifyFolder(out)).toMatchObject({ missing: [], altered: [], extra: [] });
  }, 150_000);

  it('503 answers halve the requests in flight (said with -v, counted in the summary)', async () => {
    const upstream = await useUpstream({ scale: 150, faults: { rate: 0.05, kinds: ['5xx'], seed: 3 } });
    const out = tempDir();
    const run = await runCli(['sync', '--base-url', upstream.url, '--token-file', tokenFile(), '--out', out, '--concurrency', '32', '-v'], { timeoutMs: 120_000 });
    expect(run.code, run.stderr).toBe(0);
    // Each cut is a line with the new cap: half the one before, never below one.
    const cuts = [...run.stderr.matchAll(/the service is overloaded \(HTTP 503\): (\d+) requests? in flight at most for now/g)].map((m) => Number(m[1]));
    expect(cuts.length).toBeGreaterThan(0);
    const record = lastSync(out);
    for (const cut of cuts) expect(cut).toBeLessThanOrEqual(Math.floor(record.concurrency.highest / 2));
    expect(record.overloadAnswers['503']).toBeGreaterThan(0);
    for (const r of RESOURCE_NAMES) expect(record.records[r]).toBe(upstream.counts()[r]);
  }, 150_000);

  it('a service that degrades mid-sync (8 workers, then 2, through the control endpoint): the sync backs off, finishes, and publishes everything', async () => {
    const upstream = await useUpstream({ scale: 150, latencyMs: 5, workers: 8 });
    const out = tempDir();
    const running = runCli(['sync', '--base-url', upstream.url, '--token-file', tokenFile(), '--out', out, '--concurrency', '32', '-v'], { timeoutMs: 120_000 });
    const deadline = Date.now() + 60_000;
    while (upstream.requestCount() < 100 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    const degraded = await fetch(`${upstream.url}/_control/pacing?latency_ms=5&workers=2`, { method: 'POST' });
    expect(await degraded.json()).toEqual({ latencyMs: 5, workers: 2 });
    await fetch(`${upstream.url}/_control/traffic/reset`, { method: 'POST' });
    const run = await running;
    expect(run.code, run.stderr).toBe(0);
    // It had grown past what 2 workers serve, and came down once they were all there was.
    const record = lastSync(out);
    expect(record.concurrency.highest).toBeGreaterThan(4);
    expect(run.stderr).toMatch(/the service is overloaded \((latency rose from \d+ to \d+ ms|HTTP 503)\): \d+ requests? in flight at most for now/);
    const after = upstream.traffic();
    expect(after.requests).toBeGreaterThan(100);
    // Requests in flight at the switch may be refused (no client can know before it is told);
    // once the cap came down, barely any more.
    expect(after.refused).toBeLessThanOrEqual(record.concurrency.highest + after.requests * 0.01);
    for (const r of RESOURCE_NAMES) expect(record.records[r]).toBe(upstream.counts()[r]);
    expect(await verifyFolder(out)).toMatchObject({ missing: [], altered: [], extra: [] });
  }, 150_000);

  it('--max-rps: the service counts no second with more requests than the cap, and the snapshot is whole', async () => {
    const upstream = await useUpstream({ scale: 12 });
    const out = tempDir();
    const run = await runCli(['sync', '--base-url', upstream.url, '--token-file', tokenFile(), '--out', out, '--max-rps', '20', '--concurrency', '16']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const traffic = upstream.traffic();
    expect(traffic.requests).toBeGreaterThan(40);
    expect(traffic.busiestSecond).toBeLessThanOrEqual(20);
    expect(await verifyFolder(out)).toMatchObject({ missing: [], altered: [], extra: [] });
  }, 120_000);
});
