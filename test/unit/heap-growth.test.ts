import { describe, expect, it } from 'vitest';
import { growthPercent } from '../../src/util/heap-growth.js';

const MB = 2 ** 20;

describe('how far the heap may grow past what is in use', () => {
  it('by about 32 MB while the heap is small and that is more than 30% of it: a small sync collects rarely', () => {
    expect(growthPercent(25 * MB)).toBe(130);
    expect(growthPercent(60 * MB)).toBe(60);
  });

  it('by 30% of a heap of 64 MB or more, so that a large sync holds no more than before', () => {
    expect(growthPercent(64 * MB)).toBe(30);
    expect(growthPercent(120 * MB)).toBe(30);
    expect(growthPercent(1024 * MB)).toBe(30);
  });

  it('three-fold at most, for a heap that holds next to nothing', () => {
    expect(growthPercent(1 * MB)).toBe(200);
    expect(growthPercent(0)).toBe(200);
  });
});
