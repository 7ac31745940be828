/**
 * The simulated service's body cache: bounded by bytes for the product's `upstream` command, and
 * unbounded for the bench's service, whose timed passes must render nothing again.
 */
import { describe, expect, it } from 'vitest';
import { ByteLru } from '../../src/upstream/cache.js';

const size = (value: string): number => value.length;

describe('ByteLru', () => {
  it('drops the least recently asked values once their bytes pass the limit', () => {
    const cache = new ByteLru<string>(10, size);
    cache.set('a', 'aaaa');
    cache.set('b', 'bbbb');
    expect(cache.get('a')).toBe('aaaa');
    cache.set('c', 'cccc');
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('aaaa');
    expect(cache.get('c')).toBe('cccc');
  });

  it('keeps no value bigger than the limit, and counts a replaced value once', () => {
    const cache = new ByteLru<string>(10, size);
    cache.set('big', 'x'.repeat(11));
    expect(cache.get('big')).toBeUndefined();
    cache.set('a', 'aaaaa');
    cache.set('a', 'aaaaa');
    cache.set('b', 'bbbbb');
    expect([cache.get('a'), cache.get('b')]).toEqual(['aaaaa', 'bbbbb']);
  });

  it('with no limit keeps every value, as the bench service asks', () => {
    const cache = new ByteLru<string>(Infinity, size);
    for (let n = 0; n < 10_000; n++) cache.set(`k${n}`, 'v'.repeat(1000));
    for (let n = 0; n < 10_000; n += 997) expect(cache.get(`k${n}`)).toHaveLength(1000);
  });
});
