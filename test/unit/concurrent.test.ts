/**
 * The records pass takes the five lists' records in turn, in batches. Every record must come
 * exactly once, in its list's order, and a pass stopped by a failure must close the list files
 * still being read.
 */
import { describe, expect, it } from 'vitest';
import { allSettled, forEachConcurrent, forEachInBatches, inTurns } from '../../src/util/concurrent.js';

/** `count` items named after the source, in batches of `size`. */
async function* source(name: string, count: number, closed: string[], size = 2): AsyncGenerator<string[]> {
  try {
    for (let n = 0; n < count; n += size) yield Array.from({ length: Math.min(size, count - n) }, (_, k) => `${name}${n + k}`);
  } finally {
    closed.push(name);
  }
}

describe('inTurns', () => {
  it('takes a batch from each source in turn, their items interleaved, until every source is done', async () => {
    const closed: string[] = [];
    const taken: string[][] = [];
    for await (const turn of inTurns([source('a', 5, closed), source('b', 1, closed), source('c', 0, closed), source('d', 2, closed)])) taken.push(turn);
    expect(taken).toEqual([['a0', 'b0', 'd0', 'a1', 'd1'], ['a2', 'a3'], ['a4']]);
    expect(closed.sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('closes the sources still open when the consumer fails part way', async () => {
    const closed: string[] = [];
    const done: string[] = [];
    const work = async (item: string): Promise<void> => {
      if (item === 'b2') throw new Error('record b2 failed');
      done.push(item);
    };
    await expect(forEachInBatches(inTurns([source('a', 9, closed), source('b', 9, closed)]), 1, work)).rejects.toThrow('record b2 failed');
    expect(done).toEqual(['a0', 'b0', 'a1', 'b1', 'a2']);
    expect(closed.sort()).toEqual(['a', 'b']);
  });
});

describe('forEachInBatches', () => {
  it('runs every item once, at most `width` at a time, across batches of any size', async () => {
    const closed: string[] = [];
    const seen: string[] = [];
    let running = 0;
    let most = 0;
    const work = async (item: string): Promise<void> => {
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, item.endsWith('0') ? 5 : 1));
      seen.push(item);
      running--;
    };
    await forEachInBatches(source('x', 23, closed, 7), 3, work);
    expect(seen.sort()).toEqual(Array.from({ length: 23 }, (_, n) => `x${n}`).sort());
    expect(most).toBe(3);
    expect(closed).toEqual(['x']);
  });

  it('fails with the source\'s error when a batch cannot be read', async () => {
    async function* broken(): AsyncGenerator<string[]> {
      yield ['a', 'b'];
      throw new Error('the list file could not be read');
    }
    const seen: string[] = [];
    await expect(forEachInBatches(broken(), 2, async (item) => void seen.push(item))).rejects.toThrow('the list file could not be read');
    expect(seen).toEqual(['a', 'b']);
  });
});

describe('forEachConcurrent', () => {
  it('takes items from a generator one at a time, and from an array', async () => {
    function* items(): Generator<number> {
      for (let n = 0; n < 10; n++) yield n;
    }
    const seen: number[] = [];
    await forEachConcurrent(items(), 4, async (n) => void seen.push(n));
    await forEachConcurrent([10, 11], 4, async (n) => void seen.push(n));
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, n) => n));
  });
});

describe('allSettled', () => {
  it('throws the first failure only once the other work has finished', async () => {
    const done: string[] = [];
    const slow = new Promise<string>((resolve) => setTimeout(() => resolve('slow'), 30)).then((value) => {
      done.push(value);
      return value;
    });
    await expect(allSettled([Promise.reject(new Error('list too large')), slow])).rejects.toThrow('list too large');
    expect(done).toEqual(['slow']);
    expect(await allSettled([Promise.resolve(1), Promise.resolve(2)])).toEqual([1, 2]);
  });
});
