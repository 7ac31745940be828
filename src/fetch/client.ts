/**
 * The one HTTP client of a sync: a single undici keep-alive pool, a cap on requests in flight
 * that adapts to the service (limit.ts: started low, raised while latency stays flat, cut when it
 * grows or the service says it is overloaded), a pace set by 429 answers (pacer.ts: the refused
 * request waits its own Retry-After, the others go on), an optional rate cap, retries with backoff, a
 * timeout per request (headers, body inactivity, and a total) and an overall deadline. A body is
 * handed to the caller's reader as it arrives; a reader that finds it unusable (a wrong envelope,
 * a cut body, a login page) makes it a fault of that request, retried like a 503.
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import pLimit from 'p-limit';
import { Pool, errors as undiciErrors, type Dispatcher } from 'undici';
import {
  AbortedError,
  BodyFault,
  BodyTooLargeError,
  DeadlineError,
  HttpStatusError,
  MirrorError,
  RequestFailedError,
  TokenRejectedError,
  ValidationError,
  WrongServiceError,
} from '../errors.js';
import { ScanError, TooDeepError } from '../json/scan.js';
import { ConcurrencyLimit } from './limit.js';
import { RatePacer, type PaceReport } from './pacer.js';
import { RateWindow } from './rate-window.js';
import { WholeBody, type Answer } from './whole-body.js';
import { isRetryableStatus, parseRetryAfter, retryDelay, type RetryPolicy } from './retry.js';
import { shorten } from '../util/secrets.js';

interface ClientOptions {
  baseUrl: string;
  token: string;
  /** Requests in flight at most (the adaptive cap never goes above it). */
  concurrency: number;
  /** Adapt the cap to the service's latency and overload answers; false: always `concurrency`. */
  adaptive: boolean;
  /** Requests started per second at most; 0: no cap. */
  maxRequestsPerSecond?: number;
  /** Headers, and body inactivity, per request. */
  timeoutMs: number;
  /** A whole request, body included (a service dripping a byte a second is cut off here). */
  requestDeadlineMs?: number;
  /** The whole sync. */
  deadlineMs: number;
  maxBodyBytes: number;
  retry: RetryPolicy;
  /** Called once per finished request, for progress. */
  onResponse?: () => void;
  /** Called before each retry with the reason, for the log. */
  onRetry?: (path: string, reason: string, delayMs: number) => void;
  /** Told when the service's 429s set a slower pace of requests. */
  onPace?: (rate: number, reason: string) => void;
  /** Told when the cap on requests in flight goes down. */
  onConcurrency?: (limit: number, reason: string) => void;
  /** Aborts every request (a shutdown); requests then fail with E_ABORTED. */
  signal?: AbortSignal | undefined;
}

/** Validators from an earlier response, sent so the service may answer 304. */
export interface RequestValidators {
  etag?: string | undefined;
  lastModified?: string | undefined;
}

export type Fetched<T> = { status: 200; value: T; validators: RequestValidators } | { status: 304 } | { status: 404 };

/** Reads one attempt's body. Throw BodyFault (or a ScanError, SyntaxError) to have the request retried. */
type BodyReader<T> = (body: AsyncIterable<Buffer>) => Promise<T>;

interface ClientStats {
  requests: number;
  retries: number;
  bytes: number;
  notModified: number;
  /** Retries per reason, for one summary line instead of one line per retry. */
  retryReasons: Map<string, number>;
  /** Answers that said the service is overloaded, by status (429, 503). */
  overloadAnswers: Map<number, number>;
}

/** A body that took longer than sync.requestDeadlineMs in all (a service dripping a byte a second). */
class RequestDeadlineError extends Error {
  constructor(ms: number) {
    super(`the answer did not arrive whole within ${Math.round(ms / 1000)}s (sync.requestDeadlineMs)`);
  }
}

/** A body read whole (getWhole) rather than streamed to a reader. */
const WHOLE = Symbol('whole body');

/** Reads a body nobody needs to its end (at most 64 KiB), so that its connection serves the next request. */
async function discard(body: Dispatcher.ResponseData['body']): Promise<void> {
  try {
    await body.dump({ limit: 64 * 1024 });
  } catch {
    // The connection goes; nothing of this answer is needed.
  }
}

/** A streamed answer's body as an Answer: handed to the reader as it arrives. */
function streamedAnswer<T>(response: Dispatcher.ResponseData, read: BodyReader<T>): Answer<T> {
  const { body } = response;
  return {
    statusCode: response.statusCode,
    headers: response.headers,
    value: (count) =>
      read(
        (async function* () {
          for await (const chunk of body as AsyncIterable<Buffer>) {
            count(chunk);
            yield chunk;
          }
        })(),
      ),
    skip: () => discard(body),
    destroy: (error) => {
      // undici then reports the abort on the stream, which nobody awaits any more.
      body.on('error', () => {});
      body.destroy(error);
    },
  };
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

type Attempt<T> = { kind: 'done'; result: Fetched<T> } | { kind: 'retry'; reason: string; status?: number; retryAfterMs?: number; overload?: boolean };

/** How often a waiter for an answered place looks again, should it miss the answer. */
const WINDOW_POLL_MS = 250;

/** How many non-JSON answers (a login page, a proxy's error page) a request gets before any JSON was seen. */
const HTML_ATTEMPTS_BEFORE_JSON = 3;

export class Client {
  readonly stats: ClientStats;
  readonly #options: ClientOptions;
  readonly #pool: Pool;
  readonly #prefix: string;
  readonly #limit: ReturnType<typeof pLimit>;
  readonly #deadline: AbortController = new AbortController();
  readonly #deadlineTimer: NodeJS.Timeout;
  readonly #origin: string;
  /** Whether any request got a usable JSON answer: before that, an HTML page means a wrong base URL. */
  #sawJson = false;
  readonly #cap: ConcurrencyLimit;
  /** The pace a service that answers 429 asks for (a 429 delays only its own request, by its Retry-After). */
  readonly #pacer = new RatePacer();
  /** No request starts before this time (a Retry-After applies to the whole service). */
  #pausedUntil = 0;
  /** The rate cap (`maxRequestsPerSecond`), when there is one. */
  readonly #rate: RateWindow | undefined;
  /** Bodies being read, with when their request started: a sweep cuts off those past requestDeadlineMs. */
  readonly #reading = new Map<Answer<unknown>, number>();
  readonly #sweep: NodeJS.Timeout | undefined;

  constructor(options: ClientOptions) {
    this.#options = options;
    const url = new URL(options.baseUrl);
    this.#origin = url.origin;
    this.#prefix = url.pathname.replace(/\/+$/, '');
    this.#pool = new Pool(url.origin, { connections: options.concurrency, keepAliveTimeout: 10_000, pipelining: 1 });
    this.#cap = new ConcurrencyLimit(options.concurrency, options.adaptive);
    this.#limit = pLimit(this.#cap.limit);
    this.#rate = options.maxRequestsPerSecond ? new RateWindow(options.maxRequestsPerSecond) : undefined;
    this.stats = { requests: 0, retries: 0, bytes: 0, notModified: 0, retryReasons: new Map(), overloadAnswers: new Map() };
    // Every request waiting out a retry or a pace listens on this one signal.
    setMaxListeners(0, this.#deadline.signal);
    // It ends the requests in flight by closing the pool, not by a signal given to each: undici
    // keeps a listener on that signal per request, and 50 000 of them coming and going on one
    // long-lived signal tripled a sync's young-generation GC time (34 against 26 µs of CPU per request).
    this.#deadline.signal.addEventListener('abort', () => void this.#pool.destroy().catch(() => undefined), { once: true });
    this.#deadlineTimer = setTimeout(() => this.#deadline.abort(), options.deadlineMs);
    this.#deadlineTimer.unref();
    // One timer for all requests rather than a timeout signal each (those cost a sync 5% of its CPU).
    const requestDeadline = options.requestDeadlineMs;
    if (requestDeadline) {
      this.#sweep = setInterval(() => {
        const now = Date.now();
        for (const [body, started] of this.#reading) if (now - started > requestDeadline) body.destroy(new RequestDeadlineError(requestDeadline));
      }, Math.min(1000, requestDeadline));
      this.#sweep.unref();
    }
    options.signal?.addEventListener('abort', () => this.#deadline.abort(), { once: true });
  }

  /** The base URL without credentials or query, for messages. */
  get displayUrl(): string {
    return `${this.#origin}${this.#prefix}`;
  }

  /** What the service's 429s did to the pace of requests. */
  get pace(): PaceReport {
    return this.#pacer.report();
  }

  /** The range the cap on requests in flight took so far. */
  get concurrency(): { lowest: number; highest: number } {
    return this.#cap.range;
  }

  /**
   * GETs `path` (relative to the base URL) and hands the body to `read`; retries faults. 304 and
   * 404 are returned, not thrown: whether they are errors depends on the path.
   */
  get<T>(path: string, read: BodyReader<T>, validators?: RequestValidators): Promise<Fetched<T>> {
    return this.#attempts(path, read, validators, undefined);
  }

  /**
   * GETs a small body whole and hands its bytes to `check` (a record's single view), which may
   * take its time: the request's place under the cap is free by then. `check` judges the body as
   * a reader would (a BodyFault, ScanError or SyntaxError has the request retried).
   */
  getWhole<T>(path: string, check: (bytes: Buffer) => Promise<T>, validators?: RequestValidators): Promise<Fetched<T>> {
    return this.#attempts<Buffer, T>(path, WHOLE, validators, check);
  }

  async close(): Promise<void> {
    clearTimeout(this.#deadlineTimer);
    clearInterval(this.#sweep);
    this.#limit.clearQueue();
    this.#deadline.abort();
    await this.#pool.destroy();
  }

  async #attempts<R, T>(path: string, read: BodyReader<R> | typeof WHOLE, validators: RequestValidators | undefined, check: ((value: R) => Promise<T>) | undefined): Promise<Fetched<T>> {
    const { retry } = this.#options;
    let htmlAnswers = 0;
    // When the first attempt started: sync.requestDeadlineMs bounds the request, retries included.
    let since: number | undefined;
    for (let attempt = 0; ; attempt++) {
      this.#checkDeadline(path);
      const received = await this.#limit(async () => {
        const { started, place } = this.#turn() ?? (await this.#waitTurn(path));
        const answered = (): void => {
          if (place !== undefined) this.#rate!.answered(place, performance.now());
        };
        try {
          since ??= Date.now();
          const answer = await this.#once(path, read, validators, since, answered);
          this.#paced(started, answer);
          return answer;
        } finally {
          answered();
        }
      });
      const outcome = check ? await this.#checked(path, received, check) : (received as Attempt<T>);
      if (outcome.kind === 'done') {
        this.#options.onResponse?.();
        return outcome.result;
      }
      if (outcome.reason.startsWith('the body is not JSON') && !this.#sawJson && ++htmlAnswers >= HTML_ATTEMPTS_BEFORE_JSON) {
        throw new WrongServiceError(path, `GET ${this.displayUrl}${path} answered ${outcome.reason.replace(/^the body is not JSON /, 'a page that is not JSON ')}, ${htmlAnswers} times: is the base URL right? It must be the API's root (the one whose /servers.json is the server list), not the web interface or a login page`);
      }
      if (attempt >= retry.retries) {
        throw new RequestFailedError(path, `GET ${path} failed after ${attempt + 1} attempt${attempt === 0 ? '' : 's'}: ${outcome.reason}`, outcome.status === undefined ? {} : { status: outcome.status });
      }
      if (outcome.status === 429 || outcome.status === 503) this.stats.overloadAnswers.set(outcome.status, (this.stats.overloadAnswers.get(outcome.status) ?? 0) + 1);
      if (outcome.overload) this.#apply(this.#cap.overloaded(Date.now(), outcome.reason));
      const delay = retryDelay(attempt, retry, outcome.retryAfterMs);
      const budget = this.#options.requestDeadlineMs;
      if (budget !== undefined && since !== undefined && Date.now() + delay - since >= budget) {
        throw new RequestFailedError(path, `GET ${path} got no usable answer within ${Math.round(budget / 1000)}s, retries included (sync.requestDeadlineMs), after ${attempt + 1} attempt${attempt === 0 ? '' : 's'}: ${outcome.reason}`, outcome.status === undefined ? {} : { status: outcome.status });
      }
      if (outcome.retryAfterMs !== undefined && outcome.status !== 429) this.#pausedUntil = Math.max(this.#pausedUntil, Date.now() + delay);
      this.stats.retries++;
      const reason = outcome.reason.replace(/\(content type [^)]*\)/, '').trim();
      this.stats.retryReasons.set(reason, (this.stats.retryReasons.get(reason) ?? 0) + 1);
      this.#options.onRetry?.(path, outcome.reason, delay);
      try {
        await sleep(delay, undefined, { signal: this.#deadline.signal });
      } catch {
        this.#checkDeadline(path);
      }
    }
  }

  /** An attempt's body judged by `check`, outside the cap: a check that fails it makes it a retry, as a reader would. */
  async #checked<R, T>(path: string, received: Attempt<R>, check: (value: R) => Promise<T>): Promise<Attempt<T>> {
    if (received.kind !== 'done' || received.result.status !== 200) return received as Attempt<T>;
    const { value, validators } = received.result;
    try {
      return { kind: 'done', result: { status: 200, value: await check(value), validators } };
    } catch (error) {
      return this.#unreadable(path, error, value instanceof Buffer ? value.length : 0);
    }
  }

  /** What a body that could not be read or checked means: a retry, or an error thrown. */
  #unreadable(path: string, error: unknown, size: number): Attempt<never> {
    if (error instanceof MirrorError) throw error;
    if (error instanceof TooDeepError) throw new ValidationError(`GET ${path} sent ${error.message}; an inventory record is never that deep`);
    this.#checkDeadline(path);
    if (error instanceof RequestDeadlineError) return { kind: 'retry', reason: error.message, status: 200, overload: true };
    if (error instanceof BodyFault) return { kind: 'retry', reason: error.message, status: 200 };
    if (error instanceof ScanError) return { kind: 'retry', reason: error.truncated ? `truncated body (${error.message})` : `the body is not valid JSON (${error.message})`, status: 200 };
    if (error instanceof SyntaxError) return { kind: 'retry', reason: `the body is not valid JSON (${size} bytes)`, status: 200 };
    const network = describeNetworkError(error);
    if (network !== undefined) return { kind: 'retry', reason: network, status: 200, overload: network === 'timed out' };
    throw error;
  }

  /** How long a request must wait for a Retry-After pause, the 429 pacer's turn and a place under the rate cap (see rate-window.ts); at most 0: none. */
  #wait(): number {
    const paused = Math.max(this.#pausedUntil, this.#pacer.readyAt()) - Date.now();
    const capped = (this.#rate?.readyAt() ?? Number.NEGATIVE_INFINITY) - performance.now();
    return Math.max(paused, capped);
  }

  /**
   * Starts a request when it need not wait (nearly always): when it starts, and its place under
   * the rate cap, to be given back at its answer. Undefined when it must wait (#waitTurn).
   */
  #turn(): { started: number; place: number | undefined } | undefined {
    return this.#wait() > 0 ? undefined : this.#start();
  }

  #start(): { started: number; place: number | undefined } {
    const place = this.#rate?.start(performance.now());
    const started = Date.now();
    this.#pacer.started(started);
    return { started, place };
  }

  /** Waits for its turn (see #wait), then starts the request as #turn does. Waiters that woke together check again; one goes. */
  async #waitTurn(path: string): Promise<{ started: number; place: number | undefined }> {
    for (;;) {
      const wait = this.#wait();
      if (wait <= 0) return this.#start();
      try {
        // A place held by a request not yet answered frees at its answer; the timer bounds the wait all the same.
        if (Number.isFinite(wait)) await sleep(wait, undefined, { signal: this.#deadline.signal });
        else await Promise.race([this.#rate!.nextAnswer(), sleep(WINDOW_POLL_MS, undefined, { signal: this.#deadline.signal, ref: false })]);
      } catch {
        this.#checkDeadline(path);
      }
    }
  }

  /** Tells the pacer of an HTTP answer (network faults say nothing about the rate). */
  #paced(started: number, answer: Attempt<unknown>): void {
    const status = answer.kind === 'done' ? answer.result.status : answer.status;
    if (status === undefined) return;
    const change = this.#pacer.answered(started, status === 429, Date.now(), answer.kind === 'retry' ? answer.retryAfterMs : undefined);
    if (change) this.#options.onPace?.(change.rate, change.reason);
  }

  /** Puts a new cap in force; a lower one is worth a line in the log. */
  #apply(change: { limit: number; reason: string } | undefined): void {
    if (!change) return;
    const lower = change.limit < this.#limit.concurrency;
    this.#limit.concurrency = change.limit;
    if (lower) this.#options.onConcurrency?.(change.limit, change.reason);
  }

  #checkDeadline(path: string): void {
    if (this.#options.signal?.aborted) throw new AbortedError(`the sync was stopped while fetching GET ${path}; nothing was published`);
    if (this.#deadline.signal.aborted) {
      throw new DeadlineError(path, `the sync deadline of ${Math.round(this.#options.deadlineMs / 1000)}s passed while fetching GET ${path}; raise sync.deadlineMs or check the service`);
    }
  }

  /** One attempt; `since`: when the request's first attempt started, which its body's deadline counts from. */
  async #once<T>(path: string, read: BodyReader<T> | typeof WHOLE, validators: RequestValidators | undefined, since: number, answered: () => void): Promise<Attempt<T>> {
    const headers: Record<string, string> = { 'x-api-token': this.#options.token, accept: 'application/json' };
    if (validators?.etag) headers['if-none-match'] = validators.etag;
    if (validators?.lastModified) headers['if-modified-since'] = validators.lastModified;
    this.stats.requests++;
    const sent = performance.now();
    const request = { path: this.#prefix + path, method: 'GET', headers, headersTimeout: this.#options.timeoutMs, bodyTimeout: this.#options.timeoutMs } as const;
    let answer: Answer<T>;
    try {
      if (read === WHOLE) {
        const whole = new WholeBody();
        this.#pool.dispatch(request, whole);
        await whole.started;
        // A whole body is a Buffer: getWhole asks for T = Buffer.
        answer = whole as Answer<unknown> as Answer<T>;
      } else answer = streamedAnswer(await this.#pool.request(request), read);
    } catch (error) {
      answered();
      return this.#unsent(path, error);
    }
    // The service has the request: its place under the rate cap counts from now.
    answered();
    const { statusCode } = answer;
    if (statusCode === 200 || statusCode === 304 || statusCode === 404) this.#apply(this.#cap.answered(performance.now() - sent, this.#limit.activeCount));
    // The answers of a re-sync, nearly every one: kept small, the rest is #answer's.
    if (statusCode === 304 && validators) {
      await answer.skip();
      this.stats.notModified++;
      return { kind: 'done', result: { status: 304 } };
    }
    if (statusCode === 404) {
      await answer.skip();
      return { kind: 'done', result: { status: 404 } };
    }
    return this.#answer(path, answer, since);
  }

  /** What a request that got no answer comes to: a retry, or an error thrown. */
  #unsent(path: string, error: unknown): Attempt<never> {
    this.#checkDeadline(path);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND') throw new RequestFailedError(path, `the host of ${this.displayUrl} is not known (DNS: ENOTFOUND); check the base URL`);
    const reason = describeNetworkError(error);
    if (reason === undefined) throw error;
    if (code === 'ECONNREFUSED') return { kind: 'retry', reason: `the service at ${this.displayUrl} is unreachable (ECONNREFUSED)` };
    return { kind: 'retry', reason, overload: reason === 'timed out' };
  }

  /** An answer other than a 304 or a 404: its body read when it is a JSON 200, else a retry or an error thrown. */
  async #answer<T>(path: string, answer: Answer<T>, since: number): Promise<Attempt<T>> {
    const { statusCode } = answer;
    const header = (name: string): string | undefined => {
      const value = answer.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    if (statusCode === 401 || statusCode === 403) {
      await answer.skip();
      throw new TokenRejectedError(path, statusCode);
    }
    if (statusCode >= 300 && statusCode < 400) {
      await answer.skip();
      const location = header('location');
      throw new WrongServiceError(path, `GET ${this.displayUrl}${path} answered HTTP ${statusCode}${location ? `, redirecting to ${shorten(location, 200)}` : ' without a Location'}: is the base URL right? A redirect to a login page means the URL points at the web interface or the token is not accepted there`, { status: statusCode });
    }
    if (isRetryableStatus(statusCode)) {
      await answer.skip();
      return { kind: 'retry', reason: `HTTP ${statusCode}`, status: statusCode, retryAfterMs: parseRetryAfter(header('retry-after'), Date.now()), overload: statusCode === 503 };
    }
    if (statusCode !== 200) {
      await answer.skip();
      throw new HttpStatusError(path, statusCode, `GET ${path} answered HTTP ${statusCode}; expected 200`);
    }
    const contentType = header('content-type') ?? '(none)';
    if (!/[/+]json\b/i.test(contentType)) {
      await answer.skip();
      return { kind: 'retry', reason: `the body is not JSON (content type ${contentType})`, status: 200 };
    }
    const max = this.#options.maxBodyBytes;
    const length = header('content-length');
    if (length !== undefined && Number(length) > max) {
      answer.destroy();
      throw new BodyTooLargeError(path, `GET ${path} sent ${length} bytes, over the limit of ${max} (sync.maxBodyBytes)`);
    }
    const stats = this.stats;
    let size = 0;
    const count = (chunk: Buffer): void => {
      size += chunk.length;
      stats.bytes += chunk.length;
      if (size > max) throw new BodyTooLargeError(path, `GET ${path} sent more than ${max} bytes (sync.maxBodyBytes)`);
    };
    let value: T;
    this.#reading.set(answer, since);
    try {
      value = await answer.value(count);
    } catch (error) {
      answer.destroy();
      return this.#unreadable(path, error, size);
    } finally {
      this.#reading.delete(answer);
    }
    this.#sawJson = true;
    return { kind: 'done', result: { status: 200, value, validators: { etag: header('etag'), lastModified: header('last-modified') } } };
  }
}
