/**
 * When to try a request again. Pure, so the policy is tested on its own.
 */

export interface RetryPolicy {
  retries: number;
  baseMs: number;
  maxMs: number;
}

/** HTTP statuses worth another attempt: the service or a proxy is overloaded or restarting. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || (status >= 500 && status <= 599);
}

/**
 * Parses Retry-After (seconds or an HTTP date) into milliseconds from `now`, or undefined when
 * absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Delay before attempt `attempt + 1` (attempt counts from 0): the service's Retry-After when it
 * gave one (capped at `maxMs`) plus a jitter of up to a quarter of it (at least `baseMs`), else
 * exponential backoff with full jitter capped at `maxMs`. Without the jitter a service that
 * alternates 503 and 200 on a fixed beat met the retry on its 503 every time until the run failed.
 */
export function retryDelay(attempt: number, policy: RetryPolicy, retryAfterMs: number | undefined, random: () => number = Math.random): number {
  if (retryAfterMs !== undefined) {
    const asked = Math.min(retryAfterMs, policy.maxMs);
    return asked + Math.round(random() * Math.max(policy.baseMs, asked / 4));
  }
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
