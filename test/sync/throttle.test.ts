/**
 * A service that answers 429 Too Many Requests: scattered 429s cost only their own request's
 * Retry-After (nothing else waits, the requests in flight are not cut), a real rate limiter is
 * found and kept, and the summary (or, with -q, a warning) says so. Counts and exit codes only.
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
  requests: number;
  concurrency: { lowest: number; highest: number };
  overloadAnswers: Record<string, number>;
  records: Record<string, number>;
  throttle: { refused: number; answers: number; cuts: number; lowestRate?: number; rate?: number };
}

const lastSync = (out: string): RunRecord => JSON.parse(readFileSync(join(out, LAST_SYNC_FILE), 'utf8')) as RunRecord;

describe('a service that answers 429', () => {
  it('3% of answers 429 at random: every record published, the requests in flight never cut for it, the summary counts them', async () => {
    const upstream = await useUpstream({ scale: 150, faults: { rate: 0.03, kinds: ['429'], retryAfterSeconds: 1, seed: 5 } });
    const out = tempDir();
    const run = await runCli(['sync', '--base-url', upstream.url, '--token-file', tokenFile(), '--out', out, '-v'], { timeoutMs: 120_000 });
    expect(run.code, run.stderr).toBe(0);
    const record = lastSync(out);
    for (const r of RESOURCE_NAMES) expect(record.records[r]).toBe(upstream.counts()[r]);
    expect(record.throttle.refused).toBeGreaterThan(0);
    expect(record.throttle.refused).toBe(record.overloadAnswers['429']);
    // A 429 is a word on the rate, not on how many requests the service can hold: the adaptive cap
    // (from 2) is never cut for it. A latency rise on a loaded machine may still take it to 1, so
    // the cuts' reasons (-v) are what is checked, not an exact lowest value.
    expect(run.stderr).not.toMatch(/overloaded \(HTTP 429\)/);
    expect(record.concurrency.lowest).toBeGreaterThanOrEqual(1);
    expect(record.concurrency.lowest).toBeLessThanOrEqual(2);
    expect(run.stdout).toMatch(new RegExp(`\\n  the service (refused now and then|throttled us[^:]*): ${record.throttle.refused} of ${record.throttle.answers} answers were 429 Too Many Requests`));
    expect(await verifyFolder(out)).toMatchObject({ missing: [], altered: [], extra: [] });
  }, 120_000);

  it('a limiter at 100 requests a second: the pace is found under it, few requests refused, and -q still says the service throttled us', async () => {
    // Big enough that the first second, when the limiter is met unpaced and refuses the burst, is not most of the sync.
    const upstream = await useUpstream({ scale: 400, rateLimit: 100 });
    const out = tempDir();
    const run = await runCli(['sync', '--base-url', upstream.url, '--token-file', tokenFile(), '--out', out, '-q'], { timeoutMs: 120_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    const record = lastSync(out);
    for (const r of RESOURCE_NAMES) expect(record.records[r]).toBe(upstream.counts()[r]);
    const traffic = upstream.traffic();
    expect(traffic.throttled).toBeGreaterThan(0);
    expect(traffic.throttled).toBeLessThan(traffic.requests * 0.1);
    expect(record.throttle.cuts).toBeGreaterThan(0);
    expect(record.throttle.lowestRate).toBeLessThanOrEqual(100);
    expect(record.throttle.lowestRate).toBeGreaterThanOrEqual(25);
    const warning = run.stderr.trim().split('\n');
    expect(warning).toHaveLength(1);
    expect(warning[0]).toMatch(new RegExp(`^warning: the service throttled us from \\d+\\.\\d s on: ${record.throttle.refused} of \\d+ answers were 429 Too Many Requests \\(\\d+\\.\\d%\\); paced down \\d+ times?, to ${record.throttle.lowestRate} requests/s at the slowest, \\d+/s at the end$`));
    expect(await verifyFolder(out)).toMatchObject({ missing: [], altered: [], extra: [] });
  }, 120_000);

  it('upstream --rate-limit rejects a limit that is not a positive integer, naming the flag', async () => {
    const run = await runCli(['upstream', '--token', 't', '--rate-limit', '0']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--rate-limit/);
  });
});
