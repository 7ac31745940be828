/**
 * A rate limiter in front of the simulated service, as an API gateway has one: at most
 * `perSecond` requests admitted within any window of one second (a sliding log); the others are
 * answered 429 with Retry-After: 1 and do not count, so a client that slows down is let through
 * at once. Off by default.
 */

/** Admits requests by their arrival time. */
export interface RateLimiter {
  /** Whether a request arriving at `now` (milliseconds) may go on; false: answer 429. */
  admit(now: number): boolean;
  /** Changes the limit from now on; undefined turns it off. */
  set(perSecond: number | undefined): void;
}

/** Checks a limit; a bad value is a RangeError naming the option. */
export function checkRateLimit(perSecond: number | undefined): void {
  if (perSecond !== undefined && !(Number.isInteger(perSecond) && perSecond >= 1 && perSecond <= 1_000_000)) {
    throw new RangeError(`rateLimit must be an integer from 1 to 1000000 requests a second, got ${perSecond}`);
  }
}

export function createRateLimiter(perSecond: number | undefined): RateLimiter {
  // The admission times of the last `limit` admitted requests, a ring: the oldest at `next`.
  let admitted: number[] = [];
  let next = 0;
  let limit = 0;
  const set = (value: number | undefined): void => {
    checkRateLimit(value);
    limit = value ?? 0;
    admitted = [];
    next = 0;
  };
  set(perSecond);
  return {
    admit(now) {
      if (limit === 0) return true;
      const oldest = admitted[next];
      if (oldest !== undefined && now - oldest < 1000) return false;
      admitted[next] = now;
      next = (next + 1) % limit;
      return true;
    },
    set,
  };
}
