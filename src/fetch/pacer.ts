/**
 * How fast a sync starts requests once the service has answered 429 Too Many Requests (pure: the
 * client feeds it the clock and each answer).
 *
 * A 429 is a signal on the rate, not a reason to stop everything: AIMD on the requests a second,
 * in the manner of TCP and rclone's pacer. There is no pace until the service refuses more than
 * a few of a window's answers; then the pace becomes a little under what it let through in the
 * last second (the limiter's own rate), and it creeps up again by a twentieth per window while
 * the refusals stay scattered. A few 429s that do not mean "too fast" (a fixed share of them,
 * whatever the rate) rarely cross that threshold, and when they do, the cut is a tenth; a real
 * limiter refuses everything above its rate, so the pace settles just under it. Answers to
 * requests started before a cut, or within a second after it, are not counted for the next one:
 * they tell about the old pace.
 * The request that got the 429 waits its own Retry-After (the client's job); the others go on.
 */

/** A window of answers is judged once it is this old and holds MIN_ANSWERS. */
const WINDOW_MS = 250;
const MIN_ANSWERS = 20;
/**
 * A window is "too fast" when its 429s are more than MIN_REFUSED and more than this share of its
 * answers would give, by SIGMAS standard deviations (a share drawn at random would rarely get
 * there); the share is BACKGROUND times that of the last SHARES windows that passed, when that is more:
 * a service that refuses a tenth of everything at any pace is not asking us to slow down.
 */
const REFUSED_SHARE = 0.05;
const MIN_REFUSED = 2;
const SIGMAS = 2;
const BACKGROUND = 1.25;
const SHARES = 8;
/**
 * Answers to requests started this long after a cut are not judged yet: a limiter counting by the
 * second still remembers the burst that made us cut, and refuses the new pace too until its
 * second has passed.
 */
const GRACE_MS = 1000;
/**
 * Half of the last RECENT answers refused: no need to wait for the window to end (a limiter hit
 * hard), and no request starts before the Retry-After of that answer, at most HARD_PAUSE_MS: a
 * limiter counting by the second refuses everything until its second is over.
 */
const RECENT = 20;
const HARD_PAUSE_MS = 5000;
/** After a cut, the pace is this share of the answers let through in the last second. */
const CUT_TO = 0.9;
/**
 * Each window without too many refusals raises the pace by RAISE_BY; by RAISE_FAST while it is
 * well under what got through before the last cut (a cut that was a false alarm is soon undone), and never
 * past twice the requests actually started in the last second (a pace nobody reaches means nothing).
 */
const RAISE_BY = 0.05;
const RAISE_FAST = 0.25;
/** The slowest pace, requests a second. */
const MIN_RATE = 1;

/** What the pacer saw and did, for the summary, the run record and the metrics. */
export interface PaceReport {
  /** Answers that were 429. */
  refused: number;
  /** All answers it was told of. */
  answers: number;
  /** Times the pace was cut. */
  cuts: number;
  /** The slowest pace it set, requests a second; undefined: never paced. */
  lowestRate: number | undefined;
  /** The pace at the end; undefined: never paced. */
  rate: number | undefined;
  /** Milliseconds from the first request to the first 429; undefined: none. */
  firstRefusedAfterMs: number | undefined;
}

/** A new pace and why. */
export interface PaceChange {
  rate: number;
  reason: string;
}

export class RatePacer {
  #rate = Number.POSITIVE_INFINITY;
  #lowest = Number.POSITIVE_INFINITY;
  /** No request starts before this time. */
  #next = 0;
  #firstStart: number | undefined;
  #firstRefused: number | undefined;
  #cuts = 0;
  #cutAt = Number.NEGATIVE_INFINITY;
  #answers = 0;
  #refused = 0;
  /** The window being judged: when it began, its answers and 429s. */
  #windowStart: number | undefined;
  #windowAnswers = 0;
  #windowRefused = 0;
  /** The last RECENT answers: a 429 or not, and how many of them were. */
  #recent = new Recent();
  /** The 429s and answers of each of the last SHARES windows that passed. */
  #shares: { refused: number; answers: number }[] = [];
  /** The answers let through in the second before the last cut. */
  #ceiling = Number.POSITIVE_INFINITY;
  /** When each request started, within the last second. */
  #starts = new LastSecond();
  /** When each answer that was not a 429 came, within the last second. */
  #through = new LastSecond();

  /** When the next request may start (milliseconds, same clock as `now`). */
  readyAt(): number {
    return this.#next;
  }

  /** A request starts at `now`: the next one is a pace's interval later. */
  started(now: number): void {
    this.#firstStart ??= now;
    this.#starts.add(now);
    if (Number.isFinite(this.#rate)) this.#next = Math.max(this.#next, now) + 1000 / this.#rate;
  }

  /**
   * An answer at `now` to a request started at `startedAt`: a 429 or not. Returns a change of
   * pace when this answer closes a window that calls for one.
   */
  answered(startedAt: number, refused: boolean, now: number, retryAfterMs?: number): PaceChange | undefined {
    this.#answers++;
    if (refused) {
      this.#refused++;
      this.#firstRefused ??= now;
    } else {
      this.#through.add(now);
    }
    if (startedAt < this.#cutAt) return undefined;
    this.#windowStart ??= now;
    this.#windowAnswers++;
    if (refused) this.#windowRefused++;
    this.#recent.add(refused);
    if (this.#recent.full && this.#recent.refused * 2 >= RECENT) {
      const change = this.#cut(now);
      this.#next = Math.max(this.#next, now + Math.min(HARD_PAUSE_MS, retryAfterMs ?? 0));
      return change;
    }
    if (now - this.#windowStart < WINDOW_MS || this.#windowAnswers < MIN_ANSWERS) return undefined;
    const share = Math.max(REFUSED_SHARE, BACKGROUND * shareOf(this.#shares));
    const n = this.#windowAnswers;
    if (this.#windowRefused > Math.max(MIN_REFUSED, n * share + SIGMAS * Math.sqrt(n * share * (1 - share)))) return this.#cut(now);
    // Only windows that passed: those of a limiter's overshoot would raise the tolerance that lets it happen.
    this.#shares.push({ refused: this.#windowRefused, answers: n });
    if (this.#shares.length > SHARES) this.#shares.shift();
    this.#newWindow(now);
    if (!Number.isFinite(this.#rate)) return undefined;
    const fast = this.#rate * (1 + RAISE_FAST);
    const raised = Math.max(this.#rate + Math.max(1, this.#rate * RAISE_BY), Math.min(fast, this.#ceiling * CUT_TO));
    this.#rate = Math.max(this.#rate, Math.min(raised, 2 * this.#starts.size));
    return undefined;
  }

  report(): PaceReport {
    const paced = Number.isFinite(this.#lowest);
    return {
      refused: this.#refused,
      answers: this.#answers,
      cuts: this.#cuts,
      lowestRate: paced ? Math.round(this.#lowest) : undefined,
      rate: paced ? Math.round(this.#rate) : undefined,
      firstRefusedAfterMs: this.#firstRefused === undefined || this.#firstStart === undefined ? undefined : Math.max(0, Math.round(this.#firstRefused - this.#firstStart)),
    };
  }

  /** Too many refused: a little under what the service let through in the last second, at most half as fast as before. */
  #cut(now: number): PaceChange {
    const window = `${this.#windowRefused} of ${this.#windowAnswers} answers were 429`;
    const through = this.#through.size * CUT_TO;
    // The pace in force: the one set, or what was started in the last second when that is less.
    const pace = Math.min(this.#rate, Math.max(this.#starts.size, this.#through.size));
    const rate = Math.max(MIN_RATE, Math.min(pace * CUT_TO, Math.max(through, pace / 2)));
    // What got through is the limiter's rate, if one is there: fast again only up to a little under it.
    this.#ceiling = Math.max(MIN_RATE, this.#through.size);
    this.#rate = rate;
    this.#lowest = Math.min(this.#lowest, rate);
    this.#cuts++;
    this.#cutAt = now + GRACE_MS;
    this.#newWindow(undefined);
    this.#recent = new Recent();
    return { rate: Math.round(rate), reason: window };
  }

  #newWindow(now: number | undefined): void {
    this.#windowStart = now;
    this.#windowAnswers = 0;
    this.#windowRefused = 0;
  }
}

/**
 * Times within the last second of the latest, oldest first, as a queue with a moving head: a sync
 * adds one per request, and Array.shift on the 20 000 of a busy second cost it a microsecond each.
 */
class LastSecond {
  #times: number[] = [];
  #head = 0;

  add(now: number): void {
    this.#times.push(now);
    while (now - this.#times[this.#head]! >= 1000) this.#head++;
    // Drop what fell out once it is half the array, so the array stays about one second long.
    if (this.#head * 2 > this.#times.length) {
      this.#times = this.#times.slice(this.#head);
      this.#head = 0;
    }
  }

  get size(): number {
    return this.#times.length - this.#head;
  }
}

/** The last RECENT answers, each a 429 or not, and how many were, kept as they come. */
class Recent {
  readonly #refusedAt = new Uint8Array(RECENT);
  #count = 0;
  refused = 0;

  add(refused: boolean): void {
    const slot = this.#count++ % RECENT;
    this.refused += Number(refused) - this.#refusedAt[slot]!;
    this.#refusedAt[slot] = Number(refused);
  }

  get full(): boolean {
    return this.#count >= RECENT;
  }
}

/** The share of 429s among the answers of `windows` together; 0 for none. */
function shareOf(windows: readonly { refused: number; answers: number }[]): number {
  const answers = windows.reduce((n, w) => n + w.answers, 0);
  return answers === 0 ? 0 : windows.reduce((n, w) => n + w.refused, 0) / answers;
}

/**
 * Jobs a sync keeps going beyond twice its cap on requests in flight, for the requests waiting out
 * a 429's Retry-After: each holds its job meanwhile, and at 1 000 requests a second, 3% of them
 * waiting a second each would hold 30 places; without the room they fill every place and the
 * whole sync waits with them.
 */
export const WAITING_ROOM = 256;
