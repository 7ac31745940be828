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
 * gave one, else exponential backoff with full jitter, both capped at `maxMs`.
 */
export function retryDelay(attempt: number, policy: RetryPolicy, retryAfterMs: number | undefined, random: () => number = Math.random): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, policy.maxMs);
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
