/**
 * `startServe`: a read-only HTTP server over a published folder. It finishes an interrupted
 * publish first (when no writer is running), loads the snapshot (the manifest and an index of
 * each list; the bodies stay on disk), then serves it and switches to each new snapshot once it
 * is complete.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import fs from 'fs-extra';
import { ConfigError } from '../errors.js';
import { journalPath, recover } from '../publish/journal.js';
import { acquireLock } from '../publish/lock.js';
import { guardConnections, serveLimits, serverOptions, type ServeLimits } from './connections.js';
import { BodyCache } from './cache.js';
import { Verdicts } from './files.js';
import { createHandler } from './http.js';
import { loadSnapshot, type Snapshot } from './snapshot.js';
import { watchSnapshots } from './watch.js';

/** How to start serving a folder. */
export interface ServeOptions {
  dir: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** When set, every request must carry it in X-Api-Token. */
  token?: string | undefined;
  /** Substring filters match case-sensitively (default false, as the service). */
  caseSensitive?: boolean;
  /** No per-request log lines. */
  quiet?: boolean;
  /** Where log lines go (default: nowhere). */
  log?: (line: string) => void;
  /** How often the manifest is checked for a new snapshot (default 500 ms). */
  pollMs?: number;
  /** Timeouts and the connection cap against floods of idle connections (connections.ts). */
  limits?: Partial<ServeLimits>;
  /**
   * How long a request waits for a new snapshot when a file on disk does not match the one it
   * started with, before it answers 503 (default 5000 ms).
   */
  waitMs?: number;
  /** Bytes of hot bodies and compressed forms kept in memory (default 48 MiB). */
  cacheBytes?: number;
  /**
   * Bodies larger than this are streamed from disk rather than held whole (default: 1 MiB for
   * files, 8 MiB for query answers). Small values make tests take the streaming paths.
   */
  streamAboveBytes?: number;
}

/** The snapshot a server answers from. */
export interface ServedSnapshot {
  /** When it was published (its manifest's time: the Last-Modified of every answer). */
  publishedAt: Date;
  /** The files its manifest lists. */
  files: number;
}

/** A running server. */
export interface RunningServe {
  url: string;
  port: number;
  /** The snapshot being served now. */
  snapshot(): ServedSnapshot;
  /** Checks for a new snapshot at once instead of waiting for the next poll. */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

const STARTUP_ATTEMPTS = 40;
const STARTUP_RETRY_MS = 250;
const CACHE_BYTES = 48 * 1024 * 1024;
/** One body may take at most this share of the cache. */
const CACHE_ENTRY_SHARE = 8;

/** Finishes an interrupted publish, unless a live writer holds the lock (it will finish it). */
async function recoverIfIdle(dir: string, log: (line: string) => void): Promise<void> {
  if (!(await fs.pathExists(journalPath(dir)))) return;
  const lock = await acquireLock(dir, 'serve').catch(() => undefined);
  if (!lock) return;
  try {
    const note = await recover(dir);
    if (note) log(note);
  } finally {
    await lock.release();
  }
}

/** Loads the first snapshot, waiting out a publish in progress for a few seconds. */
async function firstSnapshot(dir: string, caseSensitive: boolean): Promise<Snapshot> {
  let reason = '';
  for (let attempt = 0; attempt < STARTUP_ATTEMPTS; attempt++) {
    const loaded = await loadSnapshot(dir, { caseSensitive });
    if (loaded.ok) return loaded.snapshot;
    if (loaded.missing) throw new ConfigError(`${dir} is not a published snapshot: ${loaded.reason} (run sync into it first)`);
    if (loaded.permanent) throw new ConfigError(`${dir} cannot be served: ${loaded.reason}`);
    reason = loaded.reason;
    await new Promise((done) => setTimeout(done, STARTUP_RETRY_MS));
  }
  throw new ConfigError(`${dir} could not be loaded: ${reason}; run \`inventory-mirror verify --dir ${dir}\` to see what is wrong`);
}

/** Starts serving `options.dir`; resolves once the port is bound. */
export async function startServe(options: ServeOptions): Promise<RunningServe> {
  const dir = resolve(options.dir);
  const raw = options.log ?? (() => {});
  const log = (line: string): void => raw(`${new Date().toISOString()} ${line}`);
  const caseSensitive = options.caseSensitive ?? false;
  if (!(await fs.stat(dir).catch(() => undefined))?.isDirectory()) throw new ConfigError(`${dir} is not a folder; pass the output folder with --dir`);
  const started = performance.now();
  await recoverIfIdle(dir, log);
  const first = await firstSnapshot(dir, caseSensitive);
  const loadedIn = performance.now() - started;
  const watch = watchSnapshots(dir, first, {
    pollMs: options.pollMs ?? 500,
    caseSensitive,
    onSwitch: (snapshot) => log(`switched to the snapshot of ${snapshot.lastModified.toISOString()} (${snapshot.fileCount} files)`),
    onDefer: (failure) => log(`new snapshot not loaded yet: ${failure.reason}; still serving the previous one`),
  });
  const cacheBytes = options.cacheBytes ?? CACHE_BYTES;
  const handler = createHandler({
    watch,
    token: options.token,
    waitMs: options.waitMs ?? 5000,
    sources: {
      cache: new BodyCache(cacheBytes, Math.floor(cacheBytes / CACHE_ENTRY_SHARE)),
      verdicts: new Verdicts(),
      fileInMemoryBytes: options.streamAboveBytes,
      answerInMemoryBytes: options.streamAboveBytes,
    },
    log: options.quiet ? undefined : raw,
  });
  const limits = serveLimits(options.limits);
  const server = createServer(serverOptions(limits), handler);
  guardConnections(server, limits);
  const host = options.host ?? '127.0.0.1';
  try {
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(options.port ?? 0, host, () => {
        server.off('error', fail);
        done();
      });
    });
  } catch (error) {
    watch.stop();
    throw new ConfigError(`cannot listen on ${host}:${options.port ?? 0}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error });
  }
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  log(`serving ${dir} (${first.fileCount} files, snapshot of ${first.lastModified.toISOString()}, loaded in ${(loadedIn / 1000).toFixed(2)} s) on ${url}`);
  return {
    url,
    port,
    snapshot: () => {
      const current = watch.current();
      return { publishedAt: current.lastModified, files: current.fileCount };
    },
    refresh: watch.check,
    close: () =>
      new Promise<void>((done, fail) => {
        server.close((error) => {
          watch.stop();
          if (error) fail(error);
          else done();
        });
        server.closeAllConnections();
      }),
  };
}
