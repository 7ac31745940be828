/**
 * A slow, shared service: the sync backs off when it is overloaded (fewer requests in flight,
 * Retry-After honoured) and never starts more requests per second than --max-rps allows, and
 * still publishes the whole snapshot.
 */
import { request, createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { LAST_SYNC_FILE } from '../../src/publish/paths.js';
import { RESOURCE_NAMES } from '../../src/spec/resources.js';
import { verifyFolder } from '../../src/verify/verify.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { tokenFile, withUpstream } from '../helpers/upstream.js';

/** A pass-through proxy on loopback in front of `target` that notes when each request arrived. */
async function recordingProxy(target: string): Promise<{ url: string; arrivals: number[] }> {
  const arrivals: number[] = [];
  const upstream = new URL(target);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    arrivals.push(performance.now());
    const forward = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  server.unref();
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, arrivals };
}

/** The most requests that arrived within any one second. */
function busiestSecond(arrivals: readonly number[]): number {
  const sorted = [...arrivals].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe('a slow, shared service', () => {
  it('overloaded (few workers, 503 with Retry-After), the sync lowers its concurrency, says so with -v, and publishes everything', async () => {
    const upstream = await withUpstream({ scale: 150, latencyMs: 4, workers: 2 });
    const out = tempDir();
    const run = await runCli(['sync', '--base-url', upstream.url, '--token-file', tokenFile(), '--out', out, '--concurrency', '32', '-v'], { timeoutMs: 120_000 });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/the service is overloaded \(.*503.*\): \d+ requests? in flight at most for now/);
    const record = JSON.parse(readFileSync(join(out, LAST_SYNC_FILE), 'utf8')) as { concurrency: { configured: number; lowest: number }; records: Record<string, number>; retries: number };
    expect(record.concurrency.configured).toBe(32);
    expect(record.concurrency.lowest).toBeLessThan(32);
    expect(record.retries).toBeGreaterThan(0);
    for (const r of RESOURCE_NAMES) expect(record.records[r]).toBe(upstream.counts()[r]);
    expect(await verifyFolder(out)).toMatchObject({ missing: [], altered: [], extra: [] });
  }, 150_000);

  it('a service that degrades mid-sync (8 workers, then 2, through the control endpoint): the sync backs off, finishes, and publishes everything', async () => {
    const upstream = await withUpstream({ scale: 150, latencyMs: 4, workers: 8 });
    const out = tempDir();
    const running = runCli(['sync', '--base-url', upstream.url, '--token-file', tokenFile(), '--out', out, '--concurrency', '32'], { timeoutMs: 120_000 });
    const deadline = Date.now() + 60_000;
    while (upstream.requestCount() < 40 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    const degraded = await fetch(`${upstream.url}/_control/pacing?latency_ms=4&workers=2`, { method: 'POST' });
    expect(await degraded.json()).toEqual({ latencyMs: 4, workers: 2 });
    const run = await running;
    expect(run.code, run.stderr).toBe(0);
    const record = JSON.parse(readFileSync(join(out, LAST_SYNC_FILE), 'utf8')) as { concurrency: { configured: number; lowest: number }; records: Record<string, number> };
    expect(record.concurrency.lowest).toBeLessThan(32);
    for (const r of RESOURCE_NAMES) expect(record.records[r]).toBe(upstream.counts()[r]);
    expect(await verifyFolder(out)).toMatchObject({ missing: [], altered: [], extra: [] });
  }, 150_000);

  it('--max-rps: no second sees more requests than the cap, and the snapshot is whole', async () => {
    const upstream = await withUpstream({ scale: 12 });
    const proxy = await recordingProxy(upstream.url);
    const out = tempDir();
    const run = await runCli(['sync', '--base-url', proxy.url, '--token-file', tokenFile(), '--out', out, '--max-rps', '20', '--concurrency', '16']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(proxy.arrivals.length).toBeGreaterThan(40);
    expect(busiestSecond(proxy.arrivals)).toBeLessThanOrEqual(21);
    expect(await verifyFolder(out)).toMatchObject({ missing: [], altered: [], extra: [] });

  }, 120_000);
});
