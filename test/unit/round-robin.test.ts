/**
 * The records pass takes the five lists' records in turn. Every record must come exactly once, in
 * its list's order, and a pass stopped by a failure must close the list files still being read.
 */
import { describe, expect, it } from 'vitest';
import { allSettled, forEachConcurrent, roundRobin } from '../../src/util/concurrent.js';

async function* source(name: string, count: number, closed: string[]): AsyncGenerator<string> {
  try {
    for (let n = 0; n < count; n++) yield `${name}${n}`;
  } finally {
    closed.push(name);
  }
}

describe('roundRobin', () => {
  it('takes one item from each source in turn until every source is done', async () => {
    const closed: string[] = [];
    const taken: string[] = [];
    for await (const item of roundRobin([source('a', 3, closed), source('b', 1, closed), source('c', 0, closed), source('d', 2, closed)])) taken.push(item);
    expect(taken).toEqual(['a0', 'b0', 'd0', 'a1', 'd1', 'a2']);
    expect(closed.sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('closes the sources still open when the consumer fails part way', async () => {
    const closed: string[] = [];
    const done: string[] = [];
    const work = async (item: string): Promise<void> => {
      if (item === 'b1') throw new Error('record b1 failed');
      done.push(item);
    };
    await expect(forEachConcurrent(roundRobin([source('a', 5, closed), source('b', 5, closed)]), 1, work)).rejects.toThrow('record b1 failed');
    expect(done).toEqual(['a0', 'b0', 'a1']);
    expect(closed.sort()).toEqual(['a', 'b']);
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
