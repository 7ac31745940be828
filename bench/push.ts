/**
 * Push at the bench's scale: a first push of a synced folder into an empty bucket, then a
 * no-change push, each with its wall time, requests and the push process's peak RSS. The store is
 * s3rver in its own process (s3-child.ts), so its work is not counted as push's. Runs alone too:
 *
 *     node dist-bench/bench/push.js --dir DIR     (a folder synced before)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runChild, startChild, stopChild } from './children.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const CLI = join(HERE, '..', '..', 'dist', 'cli.js');
const S3_CHILD = join(HERE, 's3-child.js');

/** One push as measured. */
export interface PushRun {
  wallMs: number;
  requests: number;
  /** Listing pages among the requests. */
  listings: number;
  uploaded: number;
  peakRssBytes?: number | undefined;
}

export type PushBench = { first: PushRun; noChange: PushRun } | { skipped: string };

/** The figures from push's summary line (`uploaded N files (...), ..., R requests`). */
export function parsePushLine(stdout: string): { uploaded: number; requests: number; listings: number } | undefined {
  const match = /uploaded (\d+) files .* (\d+) requests \((\d+) of them listing\)$/m.exec(stdout);
  return match ? { uploaded: Number(match[1]), requests: Number(match[2]), listings: Number(match[3]) } : undefined;
}

/** Starts the store; resolves to its URL and a stop function. */
async function startStore(dir: string, env: NodeJS.ProcessEnv): Promise<{ url: string; stop: () => void }> {
  const child = startChild(process.execPath, ['--openssl-legacy-provider', S3_CHILD, dir], { env });
  const stop = (): void => stopChild(child);
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the bench S3 store did not start within 30 s')), 30_000);
    createInterface({ input: child.stdout! }).once('line', (text) => {
      clearTimeout(timer);
      resolve(text);
    });
    child.once('exit', (code) => reject(new Error(`the bench S3 store exited (${code})`)));
  });
  const url = /^s3 listening on (\S+)/.exec(line)?.[1];
  if (!url) {
    stop();
    throw new Error(`the bench S3 store said ${JSON.stringify(line)}`);
  }
  return { url, stop };
}

/** A first and a no-change push of `dir` into a fresh store. */
export async function benchPush(options: { dir: string; env: NodeJS.ProcessEnv; timeoutMs: number; log?: (line: string) => void }): Promise<PushBench> {
  const storeDir = await mkdtemp(join(tmpdir(), 'im-bench-s3-'));
  const env = { ...options.env, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_EC2_METADATA_DISABLED: 'true' };
  const store = await startStore(storeDir, env);
  try {
    const once = async (what: string): Promise<PushRun> => {
      options.log?.(`push: ${what}`);
      const child = await runChild(process.execPath, [CLI, 'push', '--dir', options.dir, '--to', 's3://mirror/bench', '--endpoint', store.url, '--path-style'], { env, timeoutMs: options.timeoutMs, measure: true });
      const figures = parsePushLine(child.stdout);
      // The push's own last line, not the report /usr/bin/time -v appends.
      const said = (child.stderr.split('\tCommand being timed:')[0] ?? '').trim().split('\n').pop() ?? '';
      if (child.code !== 0 || !figures) throw new Error(`push (${what}) exited with ${child.timedOut ? 'a timeout' : child.code}: ${said}`);
      return { wallMs: Math.round(child.wallMs), ...figures, peakRssBytes: child.peakRssBytes };
    };
    return { first: await once('first push into an empty bucket'), noChange: await once('no-change push') };
  } finally {
    store.stop();
    await rm(storeDir, { recursive: true, force: true });
  }
}

/** One line for the bench's notes. */
export function describePushBench(bench: PushBench): string {
  if ('skipped' in bench) return `push: skipped (${bench.skipped})`;
  const mib = (bytes: number | undefined): string => (bytes === undefined ? '?' : `${Math.round(bytes / (1024 * 1024))} MiB`);
  const { first, noChange } = bench;
  return `push to S3 (s3rver): first ${first.uploaded} files in ${(first.wallMs / 1000).toFixed(1)} s, ${first.requests} requests, peak RSS ${mib(first.peakRssBytes)}; no change ${(noChange.wallMs / 1000).toFixed(1)} s, ${noChange.requests - noChange.listings} requests + ${noChange.listings} listing pages (uploaded ${noChange.uploaded}), peak RSS ${mib(noChange.peakRssBytes)}`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { dir: { type: 'string' } } });
  if (!values.dir) {
    process.stderr.write('usage: node dist-bench/bench/push.js --dir DIR (a synced folder)\n');
    process.exitCode = 2;
  } else {
    const bench = await benchPush({ dir: resolve(values.dir), env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, timeoutMs: 3_600_000, log: (line) => process.stderr.write(`${line}\n`) });
    process.stdout.write(`${describePushBench(bench)}\n${JSON.stringify(bench)}\n`);
  }
}
