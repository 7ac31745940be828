/** The body cache: bounded by bytes with each entry's overhead, least recently used out first, no pool slab kept alive. */
import { describe, expect, it } from 'vitest';
import { BodyCache } from '../../src/serve/cache.js';

describe('BodyCache', () => {
  it('stays within its bytes, drops the least recently used, refuses bodies over the entry limit', () => {
    const cache = new BodyCache(10_000, 3000);
    for (let i = 0; i < 20; i++) cache.set(`k${i}`, Buffer.alloc(1000, i));
    expect(cache.bytes).toBeLessThanOrEqual(10_000);
    expect(cache.get('k0')).toBeUndefined();
    expect(cache.get('k19')?.[0]).toBe(19);
    // k15 used now: the next insertions push out k16 before it.
    const survivor = [15, 16, 17, 18].find((i) => cache.get(`k${i}`))!;
    for (let i = 20; i < 23; i++) cache.set(`k${i}`, Buffer.alloc(1000));
    expect(cache.get(`k${survivor}`)).toBeDefined();
    cache.set('big', Buffer.alloc(3001));
    expect(cache.get('big')).toBeUndefined();
    cache.set('k19', Buffer.alloc(10, 7));
    expect(cache.get('k19')).toEqual(Buffer.alloc(10, 7));
    expect(cache.bytes).toBeLessThanOrEqual(10_000);
  });

  it('keeps a copy of a slice of a larger buffer, not the larger buffer', () => {
    const cache = new BodyCache(1 << 20, 1 << 20);
    const slab = Buffer.alloc(8192, 1);
    cache.set('slice', slab.subarray(100, 200));
    const kept = cache.get('slice')!;
    expect(kept.length).toBe(100);
    expect(kept.buffer.byteLength).toBe(100);
    expect(kept.equals(slab.subarray(100, 200))).toBe(true);
  });
});
