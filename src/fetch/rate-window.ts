/**
 * The `--max-rps N` cap, held where the service counts: by when each request reaches it. A request
 * handed to the pool may wait for a new connection (a TCP or TLS handshake, a busy accept queue)
 * while the next ones go out on warm connections, so counting starts where they are sent let
 * N + 2 arrive within one second (measured: 12 at N = 10 behind a 300 ms accept). Here a request's
 * place is held until its answer (or failure) shows it has arrived, and the request N places later
 * starts at least a second after that: however late the earlier one got there, no second of the
 * service's holds more than N. Starts are also spaced 1/N s apart, so the cap is never a burst.
 * Times are the caller's monotonic clock (performance.now), so a wall-clock step changes nothing.
 */

const WINDOW_MS = 1000;

export class RateWindow {
  /** Per place (the last N starts, a ring from #oldest): when its request was answered; Infinity while it is out. */
  readonly #answered: number[];
  #oldest = 0;
  #nextStart = Number.NEGATIVE_INFINITY;
  readonly #spacing: number;
  #wake: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(rate: number) {
    this.#answered = new Array<number>(Math.max(1, Math.floor(rate))).fill(Number.NEGATIVE_INFINITY);
    this.#spacing = WINDOW_MS / rate;
  }

  /** When the next request may start: Infinity while the request N places back has not been answered. */
  readyAt(): number {
    return Math.max(this.#nextStart, this.#answered[this.#oldest]! + WINDOW_MS);
  }

  /** A request starts at `now` (call only once readyAt() <= now); returns its place, for answered(). */
  start(now: number): number {
    const place = this.#oldest;
    this.#answered[place] = Number.POSITIVE_INFINITY;
    this.#oldest = (place + 1) % this.#answered.length;
    this.#nextStart = now + this.#spacing;
    return place;
  }

  /** The request at `place` was answered or failed at `now`: it has reached the service, or never will. Only the first call counts. */
  answered(place: number, now: number): void {
    if (this.#answered[place] !== Number.POSITIVE_INFINITY) return;
    this.#answered[place] = now;
    this.#wake?.resolve();
    this.#wake = undefined;
  }

  /** Resolves at the next answer (for a waiter whose turn depends on one). */
  nextAnswer(): Promise<void> {
    if (!this.#wake) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.#wake = { promise, resolve };
    }
    return this.#wake.promise;
  }
}
