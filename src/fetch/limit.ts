/**
 * How many requests a sync keeps in flight (pure: the client feeds it latencies and the clock).
 *
 * Adaptive, the default, in the manner of TCP Vegas and Netflix's concurrency-limits: latency is
 * the signal. It starts low and doubles while latency stays flat (slow start); then each window of
 * answers that kept every slot busy with latency still flat adds one. A service that begins to
 * queue answers later: at 1.5 times the baseline (the lowest window median seen) the limit holds,
 * at twice the baseline it shrinks by a fifth, and a 503 or a timeout halves it at once (a 429
 * speaks of the rate, not of how many requests the service can hold: pacer.ts answers it).
 * The baseline is never taken from loaded windows (that would let queueing become the norm and
 * the limit creep up); only when one request at a time is still slow has the service itself got
 * slower, and that latency becomes the baseline. Latency is the time to the response headers: the service's work and queue, not our own
 * parsing. Fixed: the ceiling, always (Retry-After is still honoured by the client).
 */

/** The limit an adaptive sync starts with (or the ceiling, when lower). */
export const INITIAL_LIMIT = 2;
/** Answers per window at least; a window is also at least twice the limit. */
const MIN_WINDOW = 16;
/**
 * Answers per window at least in slow start: two round trips at the limit, as TCP doubles per
 * round trip. At 16, a sync's first 35 requests (the lists and filtered views) went out two to
 * four at a time: against a service 20 ms away its records started 0.1-0.2 s later than at a fixed 16.
 */
const SLOW_START_WINDOW = 4;
/** Latency up to this factor of the baseline (plus a little absolute slack) counts as flat. */
const FLAT = 1.5;
/** Slow start doubles only while latency stays this close to the baseline: a doubling overshoots more than a step. */
const SLOW_START_FLAT = 1.2;
/** Past this factor of the baseline (plus slack) the service is queueing our requests: shrink. */
const QUEUEING = 2;
/** Milliseconds of jitter that are never a trend (a loopback service answers in 1 ms, and noise doubles that). */
const SLACK_MS = 2;
/** Overload cuts at most once per this long: the answers of one burst say one thing. */
const CUT_INTERVAL_MS = 1000;

/** A new limit and why. */
export interface LimitChange {
  limit: number;
  reason: string;
}

export class ConcurrencyLimit {
  readonly ceiling: number;
  readonly adaptive: boolean;
  #limit: number;
  #lowest: number;
  #highest: number;
  #slowStart = true;
  #window: number[] = [];
  /** The most requests in flight during the window: a window that never filled its slots says nothing about more. */
  #busiest = 0;
  #baseline = Number.POSITIVE_INFINITY;
  #lastCut = Number.NEGATIVE_INFINITY;

  constructor(ceiling: number, adaptive: boolean) {
    this.ceiling = ceiling;
    this.adaptive = adaptive;
    this.#limit = adaptive ? Math.min(INITIAL_LIMIT, ceiling) : ceiling;
    this.#lowest = this.#limit;
    this.#highest = this.#limit;
  }

  get limit(): number {
    return this.#limit;
  }

  /** The range the limit took in this run. */
  get range(): { lowest: number; highest: number } {
    return { lowest: this.#lowest, highest: this.#highest };
  }

  /** One answer's latency, with the requests in flight when it came; a change when a window closes on one. */
  answered(latencyMs: number, inFlight: number): LimitChange | undefined {
    if (!this.adaptive) return undefined;
    this.#window.push(latencyMs);
    this.#busiest = Math.max(this.#busiest, inFlight);
    if (this.#window.length < Math.max(this.#slowStart ? SLOW_START_WINDOW : MIN_WINDOW, 2 * this.#limit)) return undefined;
    const median = medianOf(this.#window);
    const saturated = this.#busiest >= this.#limit;
    this.#window = [];
    this.#busiest = 0;
    if (this.#limit === 1) this.#baseline = median;
    const baseline = (this.#baseline = Math.min(this.#baseline, median));
    if (median > baseline * QUEUEING + 2 * SLACK_MS) {
      this.#slowStart = false;
      return this.#set(Math.floor(this.#limit * 0.8), `latency rose from ${Math.round(baseline)} to ${Math.round(median)} ms`);
    }
    if (median > baseline * FLAT + SLACK_MS) {
      this.#slowStart = false;
      return undefined;
    }
    if (median > baseline * SLOW_START_FLAT + SLACK_MS) this.#slowStart = false;
    if (!saturated) return undefined;
    return this.#set(this.#slowStart ? this.#limit * 2 : this.#limit + 1, `latency flat at ${Math.round(median)} ms`);
  }

  /** The service said it is overloaded (429, 503, a timeout): halve, at most once per CUT_INTERVAL_MS. */
  overloaded(now: number, reason: string): LimitChange | undefined {
    if (!this.adaptive || now - this.#lastCut < CUT_INTERVAL_MS) return undefined;
    this.#lastCut = now;
    this.#slowStart = false;
    this.#window = [];
    this.#busiest = 0;
    return this.#set(Math.floor(this.#limit / 2), reason);
  }

  #set(wanted: number, reason: string): LimitChange | undefined {
    const limit = Math.max(1, Math.min(this.ceiling, wanted));
    if (limit === this.#limit) return undefined;
    this.#limit = limit;
    this.#lowest = Math.min(this.#lowest, limit);
    this.#highest = Math.max(this.#highest, limit);
    return { limit, reason };
  }
}

function medianOf(values: number[]): number {
  const sorted = values.sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
