import { describe, expect, it } from 'vitest';
import { growthPercent } from '../../src/util/heap-growth.js';

const MB = 2 ** 20;

describe('how far the heap may grow past what is in use', () => {
  it('by about 32 MB while that is more than 30% of it: a small sync collects rarely', () => {
    expect(growthPercent(25 * MB)).toBe(130);
    expect(growthPercent(64 * MB)).toBe(50);
  });

  it('by 30% of a large heap, so that memory stays in proportion', () => {
    expect(growthPercent(120 * MB)).toBe(30);
    expect(growthPercent(1024 * MB)).toBe(30);
  });

  it('three-fold at most, for a heap that holds next to nothing', () => {
    expect(growthPercent(1 * MB)).toBe(200);
    expect(growthPercent(0)).toBe(200);
  });
});
