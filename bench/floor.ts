/**
 * The floor of a sync, run as its own process: a bare client that fetches exactly the paths a
 * sync fetches (same concurrency, one keep-alive pool) and either discards the bodies (the floor
 * of a re-sync) or writes each raw body to its own new file (the floor of a first sync). Prints
 * one JSON line: elapsed ms, requests, bytes, files. The token comes from INVENTORY_API_TOKEN.
 *
 *     node dist-bench/bench/floor.js --base-url URL --concurrency C [--write DIR]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pLimit from 'p-limit';
import { errors, Pool, type Dispatcher } from 'undici';
import { RESOURCE_NAMES, type ResourceName } from '../src/spec/resources.js';
import type { RawRecord } from '../src/spec/schemas.js';
import { detailFetches, listFetches, type Fetch } from './plan.js';

/** What one floor run measured. */
export interface FloorReport {
  elapsedMs: number;
  requests: number;
  bytes: number;
  files: number;
  /** Responses other than 200; a floor with errors does not count. */
  errors: number;
  /** Requests sent again after the service closed their connection. */
  retries: number;
}

async function floor(baseUrl: string, token: string, concurrency: number, writeDir: string | undefined): Promise<FloorReport> {
  const url = new URL(baseUrl);
  const prefix = url.pathname.replace(/\/+$/, '');
  const pool = new Pool(url.origin, { connections: concurrency, keepAliveTimeout: 10_000, pipelining: 1 });
  const limit = pLimit(concurrency);
  const report: FloorReport = { elapsedMs: 0, requests: 0, bytes: 0, files: 0, errors: 0, retries: 0 };
  const madeDirs = new Map<string, Promise<unknown>>();

  // A keep-alive connection the service closes just as a request goes out on it ("other side
  // closed") is tried again, as any client would; it happened on a busy machine at 200k servers.
  const send = async (path: string, attempt = 0): Promise<Dispatcher.ResponseData> => {
    try {
      return await pool.request({ method: 'GET', path: prefix + path, headers: { 'x-api-token': token, accept: 'application/json' } });
    } catch (error) {
      if (!(error instanceof errors.SocketError) || attempt >= 2) throw error;
      report.retries++;
      return send(path, attempt + 1);
    }
  };

  const get = (fetch: Fetch, keep: boolean): Promise<Buffer | undefined> =>
    limit(async () => {
      const response = await send(fetch.path);
      report.requests++;
      if (response.statusCode !== 200) report.errors++;
      const chunks: Buffer[] = [];
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        report.bytes += chunk.length;
        if (keep || writeDir) chunks.push(chunk);
      }
      const body = keep || writeDir ? Buffer.concat(chunks) : undefined;
      if (writeDir && body) {
        const dir = dirname(join(writeDir, fetch.file));
        // Once per folder, as a publish would: the floor pays for folders, not for repeated mkdirs.
        let made = madeDirs.get(dir);
        if (!made) madeDirs.set(dir, (made = mkdir(dir, { recursive: true })));
        await made;
        await writeFile(join(writeDir, fetch.file), body);
        report.files++;
      }
      return body;
    });

  const started = performance.now();
  try {
    const lists = {} as Record<ResourceName, RawRecord[]>;
    await Promise.all(
      listFetches().map(async (fetch, i) => {
        const resource = RESOURCE_NAMES[i]!;
        const body = JSON.parse((await get(fetch, true))!.toString('utf8')) as Record<string, RawRecord[]>;
        lists[resource] = body[resource] ?? [];
      }),
    );
    await Promise.all(detailFetches(lists).map((fetch) => get(fetch, false)));
  } finally {
    await pool.close();
  }
  report.elapsedMs = Math.round(performance.now() - started);
  return report;
}

const { values } = parseArgs({ options: { 'base-url': { type: 'string' }, concurrency: { type: 'string' }, write: { type: 'string' } }, strict: true });
const token = process.env.INVENTORY_API_TOKEN;
const concurrency = Number(values.concurrency ?? '16');
if (!values['base-url'] || !token || !Number.isInteger(concurrency) || concurrency < 1) {
  process.stderr.write('floor: needs --base-url URL, --concurrency N (a positive integer) and env INVENTORY_API_TOKEN\n');
  process.exitCode = 2;
} else {
  floor(values['base-url'], token, concurrency, values.write).then(
    (report) => process.stdout.write(`${JSON.stringify(report)}\n`),
    (error: unknown) => {
      process.stderr.write(`floor: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
