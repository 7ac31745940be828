import { describe, expect, it } from 'vitest';
import { isRetryableStatus, parseRetryAfter, retryDelay } from '../../src/fetch/retry.js';

const policy = { retries: 5, baseMs: 100, maxMs: 5_000 };

describe('retry policy', () => {
  it('retries overload and server errors, not client errors', () => {
    expect([429, 500, 502, 503, 504, 408].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 304, 200].some(isRetryableStatus)).toBe(false);
  });

  it('backs off exponentially with jitter inside [ceiling/2, ceiling]', () => {
    expect(retryDelay(0, policy, undefined, () => 0)).toBe(50);
    expect(retryDelay(0, policy, undefined, () => 1)).toBe(100);
    expect(retryDelay(3, policy, undefined, () => 0)).toBe(400);
    expect(retryDelay(3, policy, undefined, () => 1)).toBe(800);
    expect(retryDelay(20, policy, undefined, () => 1)).toBe(5_000);
  });

  it("honours the service's Retry-After, in seconds or as a date, capped", () => {
    const now = Date.parse('2026-11-21T10:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:03 GMT', now)).toBe(3_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(retryDelay(0, policy, 2_000, () => 0)).toBe(2_000);
    expect(retryDelay(0, policy, 600_000, () => 0)).toBe(5_000);
  });

  it('adds a jitter to Retry-After, never waiting less than asked (issue 29: a 503/200 beat phase-locked the retries)', () => {
    expect(retryDelay(0, policy, 2_000, () => 1)).toBe(2_500);
    expect(retryDelay(0, policy, 0, () => 1)).toBe(100);
    expect(retryDelay(0, policy, 600_000, () => 1)).toBe(6_250);
    const delays = new Set(Array.from({ length: 50 }, (_, i) => retryDelay(0, policy, 1_000, () => i / 50)));
    expect(delays.size).toBeGreaterThan(40);
    for (const delay of delays) expect(delay).toBeGreaterThanOrEqual(1_000);
  });
});
