/** sameJson: equality of parsed JSON values, used to tell whether a list item is the one published before. */
import { describe, expect, it } from 'vitest';
import { sameJson } from '../../src/util/json-value.js';

describe('sameJson', () => {
  it('ignores object key order but not array order, and tells types apart', () => {
    expect(sameJson({ a: 1, b: { c: [1, 2, { d: null }] } }, { b: { c: [1, 2, { d: null }] }, a: 1 })).toBe(true);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameJson({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
    expect(sameJson({ a: null }, { a: {} })).toBe(false);
    expect(sameJson([], {})).toBe(false);
    expect(sameJson('1', 1)).toBe(false);
    expect(sameJson({ a: [{ b: 'x' }] }, { a: [{ b: 'y' }] })).toBe(false);
  });
});
