/**
 * The one HTTP client of a sync: a single undici keep-alive pool, a p-limit cap on requests in
 * flight, retries with backoff, a per-request timeout and an overall deadline. It returns
 * parsed JSON whose envelope the caller checked, so a login page, a truncated body or a wrong
 * envelope is a fault of that request and is retried like a 503.
 */
import { setMaxListeners } from 'node:events';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import pLimit from 'p-limit';
import { Pool, errors as undiciErrors } from 'undici';
import { MirrorError, RequestError, TokenRejectedError } from '../errors.js';
import { isRetryableStatus, parseRetryAfter, retryDelay, type RetryPolicy } from './retry.js';

export interface ClientOptions {
  baseUrl: string;
  token: string;
  concurrency: number;
  timeoutMs: number;
  deadlineMs: number;
  maxBodyBytes: number;
  retry: RetryPolicy;
  /** Called once per finished request, for progress. */
  onResponse?: () => void;
  /** Called before each retry with the reason, for the log. */
  onRetry?: (path: string, reason: string, delayMs: number) => void;
  /** Aborts every request (a shutdown); requests then fail with E_ABORTED. */
  signal?: AbortSignal | undefined;
}

/** Validators from an earlier response, sent so the service may answer 304. */
export interface Validators {
  etag?: string | undefined;
  lastModified?: string | undefined;
}

export type FetchResult<T> =
  | { status: 200; value: T; bytes: Buffer; validators: Validators }
  | { status: 304 }
  | { status: 404 };

export interface ClientStats {
  requests: number;
  retries: number;
  bytes: number;
  notModified: number;
}

/** Thrown by a body check: the answer was 200 but unusable; the request is retried. */
export class BodyFault extends Error {}

/** Stops reading a body; undici then reports the abort on the stream, which nobody awaits any more. */
function abandon(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

/** Deeper JSON would overflow the recursive walks of validation and encoding. */
const MAX_DEPTH = 100;

/** Whether `value` nests deeper than `limit` levels; iterative, so it cannot overflow itself. */
export function depthExceeds(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND', 'ECONNABORTED']);

function describeNetworkError(error: unknown): string | undefined {
  if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) return 'timed out';
  if (error instanceof undiciErrors.SocketError) return 'connection closed by the service';
  if (error instanceof undiciErrors.RequestContentLengthMismatchError || error instanceof undiciErrors.ResponseContentLengthMismatchError) return 'truncated body';
  if (error instanceof undiciErrors.UndiciError) return error.message;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code && NETWORK_CODES.has(code)) return code;
  return undefined;
}

export class Client {
  readonly stats: ClientStats = { requests: 0, retries: 0, bytes: 0, notModified: 0 };
  readonly #options: ClientOptions;
  readonly #pool: Pool;
  readonly #prefix: string;
  readonly #limit: ReturnType<typeof pLimit>;
  readonly #deadline: AbortController = new AbortController();
  readonly #deadlineTimer: NodeJS.Timeout;
  readonly #origin: string;

  constructor(options: ClientOptions) {
    this.#options = options;
    const url = new URL(options.baseUrl);
    this.#origin = url.origin;
    this.#prefix = url.pathname.replace(/\/+$/, '');
    this.#pool = new Pool(url.origin, { connections: options.concurrency, keepAliveTimeout: 10_000, pipelining: 1 });
    this.#limit = pLimit(options.concurrency);
    // Every request in flight listens on this one signal.
    setMaxListeners(0, this.#deadline.signal);
    this.#deadlineTimer = setTimeout(() => this.#deadline.abort(), options.deadlineMs);
    this.#deadlineTimer.unref();
    options.signal?.addEventListener('abort', () => this.#deadline.abort(), { once: true });
  }

  /** The base URL without credentials or query, for messages. */
  get displayUrl(): string {
    return `${this.#origin}${this.#prefix}`;
  }

  /**
   * GETs `path` (relative to the base URL), parses JSON and runs `check` on it; retries faults.
   * 404 is returned, not thrown: whether it is an error depends on the path.
   */
  get<T>(path: string, check: (value: unknown) => T, validators?: Validators): Promise<FetchResult<T>> {
    return this.#limit(() => this.#attempts(path, check, validators));
  }

  async close(): Promise<void> {
    clearTimeout(this.#deadlineTimer);
    this.#limit.clearQueue();
    this.#deadline.abort();
    await this.#pool.destroy();
  }

  async #attempts<T>(path: string, check: (value: unknown) => T, validators: Validators | undefined): Promise<FetchResult<T>> {
    const { retry } = this.#options;
    for (let attempt = 0; ; attempt++) {
      this.#checkDeadline(path);
      const outcome = await this.#once(path, check, validators);
      if (outcome.kind === 'done') {
        this.#options.onResponse?.();
        return outcome.result;
      }
      if (attempt >= retry.retries) {
        throw new RequestError('E_REQUEST_FAILED', path, `GET ${path} failed after ${attempt + 1} attempt${attempt === 0 ? '' : 's'}: ${outcome.reason}`, outcome.status === undefined ? {} : { status: outcome.status });
      }
      const delay = retryDelay(attempt, retry, outcome.retryAfterMs);
      this.stats.retries++;
      this.#options.onRetry?.(path, outcome.reason, delay);
      try {
        await sleep(delay, undefined, { signal: this.#deadline.signal });
      } catch {
        this.#checkDeadline(path);
      }
    }
  }

  #checkDeadline(path: string): void {
    if (this.#options.signal?.aborted) throw new RequestError('E_ABORTED', path, `the sync was stopped while fetching GET ${path}; nothing was published`);
    if (this.#deadline.signal.aborted) {
      throw new RequestError('E_DEADLINE', path, `the sync deadline of ${Math.round(this.#options.deadlineMs / 1000)}s passed while fetching GET ${path}; raise sync.deadlineMs or check the service`);
    }
  }

  async #once<T>(
    path: string,
    check: (value: unknown) => T,
    validators: Validators | undefined,
  ): Promise<{ kind: 'done'; result: FetchResult<T> } | { kind: 'retry'; reason: string; status?: number; retryAfterMs?: number }> {
    const headers: Record<string, string> = { 'x-api-token': this.#options.token, accept: 'application/json' };
    if (validators?.etag) headers['if-none-match'] = validators.etag;
    if (validators?.lastModified) headers['if-modified-since'] = validators.lastModified;
    this.stats.requests++;
    let response;
    try {
      response = await this.#pool.request({
        path: this.#prefix + path,
        method: 'GET',
        headers,
        headersTimeout: this.#options.timeoutMs,
        bodyTimeout: this.#options.timeoutMs,
        signal: this.#deadline.signal,
      });
    } catch (error) {
      this.#checkDeadline(path);
      const reason = describeNetworkError(error);
      if (reason === undefined) throw error;
      if ((error as NodeJS.ErrnoException).code === 'ECONNREFUSED' || (error as NodeJS.ErrnoException).code === 'ENOTFOUND') {
        return { kind: 'retry', reason: `the service at ${this.displayUrl} is unreachable (${(error as NodeJS.ErrnoException).code})` };
      }
      return { kind: 'retry', reason };
    }
    const { statusCode } = response;
    const header = (name: string): string | undefined => {
      const value = response.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    let bytes: Buffer;
    try {
      bytes = await this.#readBody(response.body, path, statusCode === 200 ? header('content-length') : undefined);
    } catch (error) {
      if (error instanceof MirrorError) throw error;
      this.#checkDeadline(path);
      return { kind: 'retry', reason: describeNetworkError(error) ?? `body read failed (${String(error)})`, status: statusCode };
    }
    this.stats.bytes += bytes.length;
    if (statusCode === 401 || statusCode === 403) throw new TokenRejectedError(path, statusCode);
    if (statusCode === 304 && validators) {
      this.stats.notModified++;
      return { kind: 'done', result: { status: 304 } };
    }
    if (statusCode === 404) return { kind: 'done', result: { status: 404 } };
    if (isRetryableStatus(statusCode)) {
      return { kind: 'retry', reason: `HTTP ${statusCode}`, status: statusCode, retryAfterMs: parseRetryAfter(header('retry-after'), Date.now()) };
    }
    if (statusCode !== 200) {
      throw new RequestError('E_HTTP_STATUS', path, `GET ${path} answered HTTP ${statusCode}; expected 200`, { status: statusCode });
    }
    const contentType = header('content-type') ?? '(none)';
    if (!/[/+]json\b/i.test(contentType)) return { kind: 'retry', reason: `the body is not JSON (content type ${contentType})`, status: 200 };
    let value: T;
    try {
      const parsed: unknown = JSON.parse(bytes.toString('utf8'));
      if (depthExceeds(parsed, MAX_DEPTH)) {
        throw new RequestError('E_BODY_TOO_DEEP', path, `GET ${path} sent JSON nested deeper than ${MAX_DEPTH} levels (${bytes.length} bytes); an inventory record is never that deep`);
      }
      value = check(parsed);
    } catch (error) {
      if (error instanceof SyntaxError) return { kind: 'retry', reason: `the body is not valid JSON (content type ${contentType}, ${bytes.length} bytes)`, status: 200 };
      if (error instanceof BodyFault) return { kind: 'retry', reason: error.message, status: 200 };
      throw error;
    }
    return { kind: 'done', result: { status: 200, value, bytes, validators: { etag: header('etag'), lastModified: header('last-modified') } } };
  }

  async #readBody(body: Readable, path: string, contentLength: string | undefined): Promise<Buffer> {
    const max = this.#options.maxBodyBytes;
    if (contentLength !== undefined && Number(contentLength) > max) {
      abandon(body);
      throw new RequestError('E_BODY_TOO_LARGE', path, `GET ${path} sent ${contentLength} bytes, over the limit of ${max} (sync.maxBodyBytes)`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.length;
      if (size > max) {
        abandon(body);
        throw new RequestError('E_BODY_TOO_LARGE', path, `GET ${path} sent more than ${max} bytes (sync.maxBodyBytes)`);
      }
      chunks.push(chunk);
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
  }
}
