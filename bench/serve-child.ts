/**
 * `serve` as the product runs it, `node dist/cli.js serve --dir D --port P --quiet`, in a process of
 * its own: its memory is its own and it shares no event loop with the client measuring it. For the
 * scaling rows: time until it answers, its RSS after loading and after a burst of queries, the
 * median latency of a substring query and the single-record requests per second.
 */
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { freePort } from './lib/free-port.js';
import { median } from './lib/median.js';
import { memoryOf, startChild, stopChild } from './children.js';

/** A running `serve` child. */
export interface ServeChild {
  url: string;
  pid: number;
  /** From spawn until it answered its first request (a single record). */
  readyMs: number;
  stop(): Promise<void>;
}

/** The status of one GET, its body read and dropped; rejects when nothing listens. */
function getStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = get(url, { agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
      res.once('error', reject);
    });
    request.once('error', reject);
  });
}

/** Starts `serve` on `dir` and waits until it answers `probePath` with 200. */
export async function startServeChild(options: { cli: string; dir: string; env: NodeJS.ProcessEnv; cwd: string; timeoutMs: number; probePath: string }): Promise<ServeChild> {
  const port = await freePort();
  const started = performance.now();
  const child = startChild(process.execPath, [options.cli, 'serve', '--dir', options.dir, '--port', String(port), '--host', '127.0.0.1', '--quiet'], { env: options.env, cwd: options.cwd });
  child.stdin?.end();
  child.stdout?.resume();
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    stopChild(child);
    const timer = setTimeout(() => stopChild(child, 'SIGKILL'), 5_000);
    await gone;
    clearTimeout(timer);
  };
  const deadline = started + options.timeoutMs;
  while (performance.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`serve exited (${child.signalCode ?? child.exitCode}) before answering: ${stderr.trim().split('\n').pop() ?? ''}`);
    }
    const status = await getStatus(url + options.probePath).catch(() => undefined);
    if (status === 200) return { url, pid: child.pid!, readyMs: Math.round(performance.now() - started), stop };
    if (status !== undefined) {
      await stop();
      throw new Error(`serve answered GET ${options.probePath} with ${status}`);
    }
    await sleep(10);
  }
  await stop();
  throw new Error(`serve did not answer within ${Math.round(options.timeoutMs / 1000)} s`);
}

/** What `serve` did on one synced folder. */
export interface ServeScaleResult {
  readyMs: number;
  rssAfterLoadMB: number | undefined;
  /** RSS after loading divided by the records served. */
  rssBytesPerRecord: number | undefined;
  rssAfterBurstMB: number | undefined;
  /** Peak RSS up to the end of the burst (Linux only). */
  peakRssMB: number | undefined;
  substring: { path: string; matches: number; firstMs: number; medianMs: number; queries: number };
  single: { requestsPerSecond: number; requests: number; distinctIds: number; concurrency: number };
}

/** The servers of a synced folder: ids, and a search term that matches some of their names. */
export function serversOf(dir: string): { ids: string[]; term: string } {
  const { servers } = JSON.parse(readFileSync(join(dir, 'servers.json'), 'utf8')) as { servers: { id: string; name?: unknown }[] };
  const names = servers.map((server) => (typeof server.name === 'string' ? server.name.toLowerCase() : ''));
  // 'web' as in the serve benchmark when some name has it; else the start of the first name.
  const term = names.some((name) => name.includes('web')) ? 'web' : (names.find((name) => name.length >= 3)?.slice(0, 3) ?? 'a');
  return { ids: servers.map((server) => server.id), term };
}

/** Up to `n` items spread evenly over `items`. Pure. */
export function spread<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)]!);
}

const mb = (bytes: number | undefined): number | undefined => (bytes === undefined ? undefined : Math.round(bytes / 2 ** 20));

/**
 * The time until the whole answer has arrived. The bytes are kept as they came: decoding a 15 MB
 * answer into a string is the client's cost, not serve's.
 */
async function timedGet(pool: Pool, path: string): Promise<{ ms: number; body: Buffer }> {
  const started = performance.now();
  const res = await pool.request({ path, method: 'GET' });
  const chunks: Buffer[] = [];
  for await (const chunk of res.body as AsyncIterable<Buffer>) chunks.push(chunk);
  const ms = performance.now() - started;
  if (res.statusCode !== 200) throw new Error(`serve answered GET ${path} with ${res.statusCode}`);
  return { ms, body: Buffer.concat(chunks) };
}

/**
 * Starts `serve` on a synced folder of `records` records and measures it: readiness, RSS after
 * loading, substring queries one at a time (the first reported apart: it may build what later
 * ones reuse), single records at `concurrency` over ids spread across the list (after one untimed
 * pass over them), RSS after.
 */
export async function measureServe(options: {
  cli: string;
  dir: string;
  env: NodeJS.ProcessEnv;
  /** Where serve runs: a folder without a config/mirror.json of the caller's. */
  cwd: string;
  records: number;
  timeoutMs: number;
  quick: boolean;
}): Promise<ServeScaleResult> {
  const { ids, term } = serversOf(options.dir);
  if (ids.length === 0) throw new Error(`${options.dir}/servers.json lists no server`);
  const singles = spread(ids, 10_000).map((id) => `/servers/${encodeURIComponent(id)}.json`);
  const serve = await startServeChild({ cli: options.cli, dir: options.dir, env: options.env, cwd: options.cwd, timeoutMs: options.timeoutMs, probePath: singles[0]! });
  try {
    const loaded = memoryOf(serve.pid);

    const path = `/servers.json?search=${encodeURIComponent(term)}`;
    const one = new Pool(serve.url, { connections: 1 });
    let first: { ms: number; body: Buffer };
    const latencies: number[] = [];
    try {
      first = await timedGet(one, path);
      const [maxQueries, maxMs] = options.quick ? [5, 1_000] : [20, 5_000];
      const until = performance.now() + maxMs;
      while (latencies.length < 3 || (latencies.length < maxQueries && performance.now() < until)) latencies.push((await timedGet(one, path)).ms);
    } finally {
      await one.close();
    }
    const matches = ((JSON.parse(first.body.toString('utf8')) as { servers?: unknown[] }).servers ?? []).length;

    const concurrency = 32;
    const pool = new Pool(serve.url, { connections: concurrency, pipelining: 1 });
    let requests = 0;
    let elapsedMs: number;
    try {
      const get = async (path: string): Promise<void> => {
        const res = await pool.request({ path, method: 'GET' });
        await res.body.dump({ limit: Number.MAX_SAFE_INTEGER });
        if (res.statusCode !== 200) throw new Error(`serve answered a single record with ${res.statusCode}`);
      };
      // One untimed pass over the ids: the timed window then measures the steady state (files in
      // the page cache and serve's body cache, connections open, both sides compiled), not the
      // first second, which was a third of the old 3 s window and halved the figure.
      let next = 0;
      const warm = async (): Promise<void> => {
        while (next < singles.length) await get(singles[next++]!);
      };
      await Promise.all(Array.from({ length: concurrency }, warm));
      const started = performance.now();
      const end = started + (options.quick ? 500 : 3_000);
      const worker = async (): Promise<void> => {
        while (performance.now() < end) await get(singles[requests++ % singles.length]!);
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      elapsedMs = performance.now() - started;
    } finally {
      await pool.close();
    }
    const after = memoryOf(serve.pid);

    return {
      readyMs: serve.readyMs,
      rssAfterLoadMB: mb(loaded.rssBytes),
      rssBytesPerRecord: loaded.rssBytes === undefined ? undefined : Math.round(loaded.rssBytes / options.records),
      rssAfterBurstMB: mb(after.rssBytes),
      peakRssMB: mb(after.peakRssBytes),
      substring: { path, matches, firstMs: round1(first.ms), medianMs: round1(median(latencies)), queries: latencies.length },
      single: { requestsPerSecond: Math.round(requests / (elapsedMs / 1000)), requests, distinctIds: singles.length, concurrency },
    };
  } finally {
    await serve.stop();
  }
}

const round1 = (ms: number): number => Math.round(ms * 10) / 10;
