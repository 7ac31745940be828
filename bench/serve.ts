/**
 * Requests per second of `serve` over a published folder, for a single record, the full servers
 * list and a substring query; and of nginx with the generated configuration when nginx is on
 * PATH (it answers no substring query, so that kind is measured on serve only). Each server runs
 * in a process of its own, apart from the client.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Pool } from 'undici';
import { hasNginx, startNginx } from './lib/nginx-process.js';
import { startServeChild } from './serve-child.js';

export type BenchKind = 'single' | 'list' | 'substring';

/** What to measure. */
export interface ServeBenchOptions {
  /** A published folder. */
  dir: string;
  /** The product's built CLI, run as `node CLI serve`. */
  cli: string;
  /** The environment and working folder of the serve process. */
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Requests in flight at once (default 32). */
  concurrency?: number;
  /** Time per kind and server (default 3000 ms). */
  durationMs?: number;
  /** Upper bound of requests per kind and server (default 200 000). */
  maxRequests?: number;
  /** Paths per kind; defaults: the first server, /servers.json, /servers.json?search=web. */
  paths?: Partial<Record<BenchKind, string>>;
  /** Measure nginx too when it is installed (default true). */
  nginx?: boolean;
}

/** Requests per second per kind; `nginx` is absent when nginx was not measured. */
export interface ServeBenchResult {
  serve: Record<BenchKind, number>;
  nginx?: Partial<Record<BenchKind, number>>;
  paths: Record<BenchKind, string>;
}

/** Sends `path` over `concurrency` connections until the time or count runs out; requests/s. */
async function measure(base: string, path: string, concurrency: number, durationMs: number, maxRequests: number): Promise<number> {
  const pool = new Pool(base, { connections: concurrency, pipelining: 1 });
  try {
    // Warm up: compressed forms, parsed lists and caches are made on first demand.
    const warm = await pool.request({ path, method: 'GET' });
    await warm.body.dump({ limit: Number.MAX_SAFE_INTEGER });
    if (warm.statusCode !== 200) throw new Error(`GET ${base}${path} answered ${warm.statusCode}`);
    let sent = 0;
    const started = performance.now();
    const end = started + durationMs;
    const worker = async (): Promise<void> => {
      while (sent < maxRequests && performance.now() < end) {
        sent += 1;
        const res = await pool.request({ path, method: 'GET' });
        await res.body.dump({ limit: Number.MAX_SAFE_INTEGER });
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return Math.round(sent / ((performance.now() - started) / 1000));
  } finally {
    await pool.close();
  }
}

/** Measures serve (and nginx when installed) on `options.dir`. */
export async function benchServe(options: ServeBenchOptions): Promise<ServeBenchResult> {
  const dir = resolve(options.dir);
  const concurrency = options.concurrency ?? 32;
  const durationMs = options.durationMs ?? 3000;
  const maxRequests = options.maxRequests ?? 200_000;
  const firstServer = (JSON.parse(readFileSync(join(dir, 'servers.json'), 'utf8')) as { servers: { id: string }[] }).servers[0]?.id ?? '1';
  const paths: Record<BenchKind, string> = {
    single: options.paths?.single ?? `/servers/${encodeURIComponent(firstServer)}.json`,
    list: options.paths?.list ?? '/servers.json',
    substring: options.paths?.substring ?? '/servers.json?search=web',
  };
  const kinds = Object.keys(paths) as BenchKind[];

  const serve = await startServeChild({ cli: options.cli, dir, env: options.env, cwd: options.cwd, timeoutMs: 120_000, probePath: paths.single });
  const serveRps = {} as Record<BenchKind, number>;
  try {
    for (const kind of kinds) serveRps[kind] = await measure(serve.url, paths[kind], concurrency, durationMs, maxRequests);
  } finally {
    await serve.stop();
  }
  if (options.nginx === false || !hasNginx()) return { serve: serveRps, paths };

  const nginx = await startNginx(dir);
  const nginxRps: Partial<Record<BenchKind, number>> = {};
  try {
    for (const kind of ['single', 'list'] as const) nginxRps[kind] = await measure(nginx.url, paths[kind], concurrency, durationMs, maxRequests);
  } finally {
    await nginx.stop();
  }
  return { serve: serveRps, nginx: nginxRps, paths };
}
