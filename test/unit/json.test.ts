/** sameJson: equality of parsed JSON values, used to tell whether a list item is the one published before; encodeJsonPieces against encodeJson. */
import { describe, expect, it } from 'vitest';
import { parseArrayInSlices } from '../../src/json/array-slices.js';
import { encodeJson, encodeJsonPieces } from '../../src/json/encode.js';
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

describe('encodeJsonPieces', () => {
  it('writes the bytes encodeJson writes, whatever the array holds and wherever it stands', () => {
    const values: [Record<string, unknown>, string][] = [
      [{ format: 1, records: { servers: 2 }, shape: {}, findings: [{ ids: ['1', '2'], names: ['São-Paulo-db-1', '日本-web-2'], values: { '1': { a: [null, 'x\n"'] } } }, { ids: [] }] }, 'findings'],
      [{ findings: [], after: { a: [] } }, 'findings'],
      [{ before: 'x', items: [1, 'two', [3], { four: 4 }, null], after: 5, skipped: undefined }, 'items'],
      [{ items: 'not an array' }, 'items'],
      [{ other: [1] }, 'items'],
    ];
    for (const [value, key] of values) expect(Buffer.concat([...encodeJsonPieces(value, key)]).toString('utf8')).toBe(encodeJson(value).toString('utf8'));
  });
});

describe('parseArrayInSlices', () => {
  it('parses what JSON.parse parses, whatever the elements hold, and refuses what it refuses', () => {
    const arrays = [
      '[]',
      ' [ null , "3/12 3/13" ] ',
      '["a,b", "[", "]", "\\"", {"x": [1, {"y": ","}]}, [[]], null, "é", 7, null]',
      `[${Array.from({ length: 10 }, (_, n) => (n % 3 ? `"${n},"` : 'null')).join(',')}]`,
    ];
    for (const text of arrays) for (const slice of [1, 2, 3, 32_768]) expect(parseArrayInSlices(text, slice)).toEqual(JSON.parse(text));
    for (const text of ['{}', '[1,]', '[1,2,]', '[,1]', '[1,,2]', '[1]]', '["a]', '[1 2]', '']) for (const slice of [1, 2, 32_768]) expect(() => parseArrayInSlices(text, slice), `${text} by ${slice}`).toThrow(SyntaxError);
  });
});
