/**
 * The HTTP side of `serve`: token check, methods, conditional requests, compression and the
 * request log around `route` and the bodies of answer.ts. Each request answers from the snapshot
 * it started with; when a file on disk does not match that snapshot (a publish under way or just
 * done), it waits for the new snapshot and answers from it, or gives 503 when none comes in time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, createBrotliCompress, createGzip, gzip } from 'node:zlib';
import { encodeJson } from '../json/encode.js';
import type { ListQuery } from '../index/query.js';
import type { ResourceName } from '../spec/resources.js';
import { cachedFileBody, fileBody, prepareQuery, queryBody, quoted, type Body, type BodySources } from './answer.js';
import { STALE, type Stale } from './files.js';
import { JSON_TYPE, route } from './route.js';
import type { Snapshot } from './snapshot.js';
import type { SnapshotWatch } from './watch.js';
import { shorten } from '../util/secrets.js';

/** Smaller bodies are sent as they are: compressing them saves nothing worth the work. */
const MIN_COMPRESS_BYTES = 256;
const BROTLI_QUALITY = 5;
const GZIP_LEVEL = 6;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

type Coding = 'br' | 'gzip';
type ErrorAnswer = { status: number; error: string; parameter?: string | undefined };

/** What every request is answered with. */
interface HandlerOptions {
  watch: Pick<SnapshotWatch, 'current' | 'newer'>;
  token: string | undefined;
  /** How long a request waits for a new snapshot when a file does not match its own. */
  waitMs: number;
  sources: BodySources;
  /** One line per request; undefined for none. */
  log: ((line: string) => void) | undefined;
}

/** The preferred coding the client accepts (brotli, then gzip), or undefined. */
function pickCoding(header: string | undefined): Coding | undefined {
  if (!header) return undefined;
  const accepted = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    accepted.set(name!.trim(), q === undefined ? 1 : Number(q));
  }
  const weight = (coding: string): number => accepted.get(coding) ?? accepted.get('*') ?? 0;
  if (weight('br') > 0) return 'br';
  if (weight('gzip') > 0) return 'gzip';
  return undefined;
}

/** Whether If-None-Match names this body (weak comparison; the coding suffix is ignored). */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const bare = etag.slice(1, -1);
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '').replace(/^"|"$/g, '').replace(/-(br|gzip)$/, '') === bare);
}

function notModifiedSince(header: string | undefined, lastModified: Date): boolean {
  if (header === undefined) return false;
  const since = Date.parse(header);
  return Number.isFinite(since) && lastModified.getTime() <= since;
}

/** The body compressed whole, as a stream when it is not in memory. */
async function compress(body: Body, coding: Coding): Promise<Buffer> {
  const size = 'bytes' in body ? body.bytes.length : body.size;
  const brotliParams = { params: { [zlib.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: size } };
  if ('bytes' in body) return coding === 'br' ? brotli(body.bytes, brotliParams) : gzipAsync(body.bytes, { level: GZIP_LEVEL });
  const out: Buffer[] = [];
  await pipeline(Readable.from(body.chunks()), coding === 'br' ? createBrotliCompress(brotliParams) : createGzip({ level: GZIP_LEVEL }), async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) out.push(chunk);
  });
  return Buffer.concat(out);
}

/** Builds the request listener. */
export function createHandler(options: HandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { sources } = options;
  const tokenDigest = options.token === undefined ? undefined : createHash('sha256').update(options.token).digest();
  // Digests have one length whatever was sent, so the comparison leaks neither content nor length.
  const authorized = (sent: string | string[] | undefined): boolean =>
    tokenDigest === undefined || (typeof sent === 'string' && timingSafeEqual(createHash('sha256').update(sent).digest(), tokenDigest));
  /** Compressions under way, so simultaneous requests for a large body compress it once. */
  const compressing = new Map<string, Promise<Buffer>>();

  const compressed = (body: Body, coding: Coding): Promise<Buffer> => {
    const key = `${body.etag}-${coding}`;
    const hit = sources.cache.get(key);
    if (hit) return Promise.resolve(hit);
    let made = compressing.get(key);
    if (!made) {
      made = compress(body, coding)
        .then((bytes) => {
          sources.cache.set(key, bytes);
          return bytes;
        })
        .finally(() => compressing.delete(key));
      compressing.set(key, made);
    }
    return made;
  };

  const sendError = (res: ServerResponse, answer: ErrorAnswer, headers: Record<string, string> = {}): number => {
    const body = encodeJson(answer.parameter === undefined ? { error: answer.error } : { error: answer.error, parameter: answer.parameter });
    res.writeHead(answer.status, { 'Content-Type': JSON_TYPE, 'Content-Length': String(body.length), ...headers });
    res.end(res.req.method === 'HEAD' ? undefined : body);
    return body.length;
  };

  /** The coding to send a body of `size` bytes in, and the ETag that names that form. */
  const form = (req: IncomingMessage, etag: string, size: number): { coding: Coding | undefined; tag: string } => {
    const coding = size >= MIN_COMPRESS_BYTES ? pickCoding(req.headers['accept-encoding']) : undefined;
    return { coding, tag: coding ? `${etag.slice(0, -1)}-${coding}"` : etag };
  };

  const validators = (tag: string, snapshot: Snapshot): string[] => ['ETag', tag, 'Last-Modified', snapshot.lastModifiedText, 'Cache-Control', 'no-cache', 'Vary', 'Accept-Encoding'];

  /** A 304 when the request's validators name this body; false otherwise. */
  const notModified = (req: IncomingMessage, res: ServerResponse, etag: string, size: number, snapshot: Snapshot): boolean => {
    const ifNoneMatch = req.headers['if-none-match'];
    if (!(ifNoneMatch !== undefined ? etagMatches(ifNoneMatch, etag) : notModifiedSince(req.headers['if-modified-since'], snapshot.lastModified))) return false;
    res.writeHead(304, validators(form(req, etag, size).tag, snapshot));
    res.end();
    return true;
  };

  /** Sends a body; synchronously when it is in memory in the form asked for (the hot path of single records). */
  const sendBody = (req: IncomingMessage, res: ServerResponse, body: Body, snapshot: Snapshot): number | Promise<number> => {
    const size = 'bytes' in body ? body.bytes.length : body.size;
    const { coding, tag } = form(req, body.etag, size);
    // A flat [name, value, ...] list: the cheapest form for writeHead on the hot path.
    const headers = validators(tag, snapshot);
    const head = req.method === 'HEAD';
    const sendCompressed = (bytes: Buffer): number => {
      headers.push('Content-Encoding', coding!, 'Content-Type', body.type, 'Content-Length', String(bytes.length));
      res.writeHead(200, headers);
      res.end(head ? undefined : bytes);
      return bytes.length;
    };
    if ('bytes' in body) {
      if (coding) {
        const hit = sources.cache.get(`${body.etag}-${coding}`);
        return hit ? sendCompressed(hit) : compressed(body, coding).then(sendCompressed);
      }
      headers.push('Content-Type', body.type, 'Content-Length', String(size));
      res.writeHead(200, headers);
      res.end(head ? undefined : body.bytes);
      return size;
    }
    const streamed = async (): Promise<number> => {
      if (coding) return sendCompressed(await compressed(body, coding));
      headers.push('Content-Type', body.type, 'Content-Length', String(size));
      res.writeHead(200, headers);
      if (head) res.end();
      else await pipeline(Readable.from(body.chunks()), res);
      return size;
    };
    return streamed().finally(() => body.close());
  };

  /** Answers from one snapshot; STALE (nothing sent) when a file it needs does not match it. */
  const answerFrom = (req: IncomingMessage, res: ServerResponse, snapshot: Snapshot): number | Promise<number | Stale> => {
    const target = route((path) => snapshot.table.has(path), req.url ?? '/');
    if (target.kind === 'error') return sendError(res, target);
    if (target.kind === 'query') return answerQuery(req, res, snapshot, target.resource, target.query);
    const file = snapshot.file(target.path)!;
    const etag = quoted(file.sha256);
    if (notModified(req, res, etag, file.size, snapshot)) return 0;
    const cached = cachedFileBody(target.path, file, sources);
    if (cached) return sendBody(req, res, cached, snapshot);
    return fileBody(snapshot, target.path, file, sources).then((body) => (body === STALE ? STALE : sendBody(req, res, body, snapshot)));
  };

  const answerQuery = async (req: IncomingMessage, res: ServerResponse, snapshot: Snapshot, resource: ResourceName, query: ListQuery): Promise<number | Stale> => {
    const prepared = await prepareQuery(snapshot, resource, query);
    if (prepared === STALE) return STALE;
    if ('message' in prepared) return sendError(res, { status: 400, error: prepared.message, parameter: prepared.param });
    if (notModified(req, res, prepared.etag, prepared.size, snapshot)) return 0;
    const body = await queryBody(prepared, sources);
    return body === STALE ? STALE : sendBody(req, res, body, snapshot);
  };

  /** Answers from `snapshot`, or from a newer one while files do not match it, until `deadline`. */
  const answerFromNewest = async (req: IncomingMessage, res: ServerResponse, first: Promise<number | Stale>, snapshot: Snapshot, deadline: number): Promise<number> => {
    let sent = await first;
    while (sent === STALE) {
      const next = await options.watch.newer(snapshot, deadline);
      if (!next) return sendError(res, { status: 503, error: 'the mirror is being updated and this file does not match the snapshot being served yet; try again shortly' }, { 'Retry-After': '1' });
      snapshot = next;
      snapshot.acquire();
      try {
        sent = await answerFrom(req, res, snapshot);
      } finally {
        snapshot.release();
      }
    }
    return sent;
  };

  const answer = (req: IncomingMessage, res: ServerResponse): number | Promise<number> => {
    if (!authorized(req.headers['x-api-token'])) return sendError(res, { status: 401, error: 'unauthorized: send the X-Api-Token header with the token this server was started with' });
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, { status: 405, error: `method ${req.method ?? ''} not allowed: this mirror is read-only` }, { Allow: 'GET, HEAD' });
    // One snapshot per attempt, held until the answer is sent: its files stay open meanwhile.
    const snapshot = options.watch.current();
    snapshot.acquire();
    let sent: number | Promise<number | Stale>;
    try {
      sent = answerFrom(req, res, snapshot);
    } catch (error) {
      snapshot.release();
      throw error;
    }
    if (typeof sent === 'number') {
      snapshot.release();
      return sent;
    }
    const attempt = sent.finally(() => snapshot.release());
    return answerFromNewest(req, res, attempt, snapshot, Date.now() + options.waitMs);
  };

  return (req, res) => {
    req.on('error', () => res.destroy());
    const log = options.log;
    const started = log ? performance.now() : 0;
    // Read now: once the socket is gone it has no address.
    const client = log ? (req.socket.remoteAddress ?? '-') : '';
    const line = (outcome: string): void => {
      const target = shorten(req.url ?? '', 200);
      log!(`${new Date(performance.timeOrigin + started).toISOString()} ${client} ${req.method} ${target} ${outcome}`);
    };
    const done = (bytes: number): void => {
      if (log) line(`${res.statusCode} ${bytes} ${(performance.now() - started).toFixed(1)}ms`);
    };
    const failed = (error: unknown): void => {
      // A client that goes away in the middle of a long body is no failure of ours.
      const aborted = (error as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE';
      if (log) line(aborted ? `${res.statusCode} aborted by the client` : `failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) sendError(res, { status: 500, error: 'internal error' });
      else res.destroy();
    };
    try {
      const sent = answer(req, res);
      if (typeof sent === 'number') done(sent);
      else sent.then(done, failed);
    } catch (error) {
      failed(error);
    }
  };
}
