/**
 * One GET whose body is read whole, straight from undici's handler callbacks. `request` makes a
 * stream, an async resource and promises for every answer; a sync makes one request per record,
 * 36 000 of them at 20 000 servers, nearly all with a body of one chunk or (a re-sync) none, and
 * those objects cost it more than reading the answers did.
 */
import type { Dispatcher } from 'undici';

/** At most this much of a body nobody needs is read past, keeping its connection; beyond, the connection goes. */
const SKIP_BYTES = 64 * 1024;

/** Why a body read past too long was cut off (never seen by the caller). */
class SkippedTooMuch extends Error {}

const SKIPPED: Promise<void> = Promise.resolve();
const ignore = (): void => undefined;

/** An answer whose status and headers are in: its body to read, read past, or stop. */
export interface Answer<T> {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as the caller wants it, each chunk through `take` first (which may throw to cut it off). */
  value(take: (chunk: Buffer) => void): Promise<T>;
  /** Reads past a body nobody needs, so that its connection serves the next request; never fails. */
  skip(): Promise<void>;
  /** Stops reading the body; what reads it fails with `error`. */
  destroy(error?: Error): void;
}

/** The handler of such a GET, and its answer once `started` settles. */
export class WholeBody implements Dispatcher.DispatchHandler, Answer<Buffer> {
  statusCode = 0;
  headers: Answer<Buffer>['headers'] = {};
  /** Settles when the status line and headers are in, or with the error that came first. */
  readonly started: Promise<void>;
  #start!: { resolve: () => void; reject: (error: Error) => void };
  #controller: Dispatcher.DispatchController | undefined;
  #chunks: Buffer[] = [];
  /** Sees each chunk first once `bytes` asked for them; throws to cut the body off. */
  #take: ((chunk: Buffer) => void) | undefined;
  #skipping = false;
  #skipped = 0;
  /** The whole body, or why there is none; set once. */
  #outcome: Buffer | Error | undefined;
  #waiter: { resolve: (body: Buffer) => void; reject: (error: Error) => void } | undefined;

  constructor() {
    this.started = new Promise((resolve, reject) => (this.#start = { resolve, reject }));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Answer<Buffer>['headers']): void {
    // 1xx answers come before the real one.
    if (statusCode < 200) return;
    this.statusCode = statusCode;
    this.headers = headers;
    this.#start.resolve();
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#skipping) {
      this.#skipped += chunk.length;
      if (this.#skipped > SKIP_BYTES) controller.abort(new SkippedTooMuch());
      return;
    }
    try {
      this.#take?.(chunk);
    } catch (error) {
      this.destroy(error as Error);
      return;
    }
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    const chunks = this.#chunks;
    this.#settle(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.statusCode === 0) this.#start.reject(error);
    this.#settle(error);
  }

  value(take: (chunk: Buffer) => void): Promise<Buffer> {
    if (!(this.#outcome instanceof Error)) {
      try {
        for (const chunk of this.#chunks) take(chunk);
      } catch (error) {
        this.destroy(error as Error);
        return Promise.reject(error as Error);
      }
      this.#take = take;
    }
    return this.#whole();
  }

  /** Reads past at most SKIP_BYTES. */
  skip(): Promise<void> {
    this.#skipping = true;
    this.#skipped = this.#chunks.reduce((n, chunk) => n + chunk.length, 0);
    this.#chunks = [];
    if (this.#skipped > SKIP_BYTES) this.#controller?.abort(new SkippedTooMuch());
    // A 304 has ended by the time anyone asks (its headers and end come in one read): no promise chain for it.
    if (this.#outcome !== undefined) return SKIPPED;
    return this.#whole().then(ignore, ignore);
  }

  destroy(error: Error = new Error('the body was abandoned')): void {
    this.#controller?.abort(error);
    this.#settle(error);
  }

  #whole(): Promise<Buffer> {
    const outcome = this.#outcome;
    if (outcome instanceof Error) return Promise.reject(outcome);
    if (outcome) return Promise.resolve(outcome);
    return new Promise((resolve, reject) => (this.#waiter = { resolve, reject }));
  }

  #settle(outcome: Buffer | Error): void {
    if (this.#outcome) return;
    this.#outcome = outcome;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    if (outcome instanceof Error) waiter?.reject(outcome);
    else waiter?.resolve(outcome);
  }
}
