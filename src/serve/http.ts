/**
 * The HTTP side of `serve`: token check, methods, conditional requests, compression and the
 * request log around `route`. Compressed forms of a body are made once and kept on its entry.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { encodeJson } from '../json/encode.js';
import { route, type Answer } from './route.js';
import type { Entry, Snapshot } from './snapshot.js';

const JSON_TYPE = 'application/json; charset=utf-8';
/** Smaller bodies are sent as they are: compressing them saves nothing worth the work. */
const MIN_COMPRESS_BYTES = 256;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

type Coding = 'br' | 'gzip';

/** What every request is answered with. */
export interface HandlerOptions {
  snapshot: () => Snapshot;
  token: string | undefined;
  caseSensitive: boolean;
  /** One line per request; undefined for none. */
  log: ((line: string) => void) | undefined;
}

/** The preferred coding the client accepts (brotli, then gzip), or undefined. */
export function pickCoding(header: string | undefined): Coding | undefined {
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

function compressed(entry: Entry, coding: Coding): Promise<Buffer> {
  let made = entry.compressed[coding];
  if (!made) {
    made = coding === 'br' ? brotli(entry.bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5, [zlib.BROTLI_PARAM_SIZE_HINT]: entry.bytes.length } }) : gzipAsync(entry.bytes, { level: 6 });
    entry.compressed[coding] = made;
  }
  return made;
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

/** Builds the request listener. */
export function createHandler(options: HandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const tokenDigest = options.token === undefined ? undefined : createHash('sha256').update(options.token).digest();
  // Digests have one length whatever was sent, so the comparison leaks neither content nor length.
  const authorized = (sent: string | string[] | undefined): boolean =>
    tokenDigest === undefined || (typeof sent === 'string' && timingSafeEqual(createHash('sha256').update(sent).digest(), tokenDigest));

  const sendError = (res: ServerResponse, answer: Extract<Answer, { error: string }>, headers: Record<string, string> = {}): Buffer => {
    const body = encodeJson(answer.parameter === undefined ? { error: answer.error } : { error: answer.error, parameter: answer.parameter });
    res.writeHead(answer.status, { 'Content-Type': JSON_TYPE, 'Content-Length': String(body.length), ...headers });
    res.end(res.req.method === 'HEAD' ? undefined : body);
    return body;
  };

  const sendEntry = async (req: IncomingMessage, res: ServerResponse, entry: Entry, snapshot: Snapshot): Promise<number> => {
    const coding = entry.bytes.length >= MIN_COMPRESS_BYTES ? pickCoding(req.headers['accept-encoding']) : undefined;
    const etag = coding ? `${entry.etag.slice(0, -1)}-${coding}"` : entry.etag;
    // A flat [name, value, ...] list: the cheapest form for writeHead on the hot path.
    const headers = ['ETag', etag, 'Last-Modified', snapshot.lastModifiedText, 'Cache-Control', 'no-cache', 'Vary', 'Accept-Encoding'];
    const ifNoneMatch = req.headers['if-none-match'];
    if (ifNoneMatch !== undefined ? etagMatches(ifNoneMatch, entry.etag) : notModifiedSince(req.headers['if-modified-since'], snapshot.lastModified)) {
      res.writeHead(304, headers);
      res.end();
      return 0;
    }
    const body = coding ? await compressed(entry, coding) : entry.bytes;
    if (coding) headers.push('Content-Encoding', coding);
    headers.push('Content-Type', JSON_TYPE, 'Content-Length', String(body.length));
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
    return body.length;
  };

  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<number> => {
    if (!authorized(req.headers['x-api-token'])) return sendError(res, { status: 401, error: 'unauthorized: send the X-Api-Token header with the token this server was started with' }).length;
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, { status: 405, error: `method ${req.method ?? ''} not allowed: this mirror is read-only` }, { Allow: 'GET, HEAD' }).length;
    // One snapshot per request, read once: a switch mid-request cannot mix two snapshots.
    const snapshot = options.snapshot();
    const result = route(snapshot, req.url ?? '/', options.caseSensitive);
    if (result.status !== 200 || !('entry' in result)) return sendError(res, result as Extract<Answer, { error: string }>).length;
    return sendEntry(req, res, result.entry, snapshot);
  };

  return (req, res) => {
    const started = performance.now();
    req.on('error', () => res.destroy());
    answer(req, res).then(
      (bytes) => {
        const target = (req.url ?? '').length > 200 ? `${(req.url ?? '').slice(0, 200)}…` : req.url;
        options.log?.(`${req.method} ${target} ${res.statusCode} ${bytes} ${(performance.now() - started).toFixed(1)}ms`);
      },
      (error: unknown) => {
        options.log?.(`${req.method} ${req.url} failed: ${error instanceof Error ? error.message : String(error)}`);
        if (!res.headersSent) sendError(res, { status: 500, error: 'internal error' });
        else res.destroy();
      },
    );
  };
}
