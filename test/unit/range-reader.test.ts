import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DamagedFileError, RangeReader } from '../../src/publish/writer.js';
import { createRng } from '../../src/upstream/random.js';
import { tempDir } from '../helpers/tmp.js';

describe('RangeReader', () => {
  it('reads any range of a file, in order, backwards or at random, and refuses one past its end', () => {
    const file = join(tempDir(), 'list.json');
    const bytes = Buffer.from(Array.from({ length: 200_000 }, (_, i) => String.fromCharCode(32 + (i % 90))).join(''));
    writeFileSync(file, bytes);
    const reader = new RangeReader('servers.json', file);
    const next = createRng(9).next;
    const ranges: [number, number][] = [];
    for (let at = 0; at < 150_000; at += 700) ranges.push([at, 600]);
    for (let n = 0; n < 300; n++) ranges.push([Math.floor(next() * 190_000), 1 + Math.floor(next() * 9_000)]);
    ranges.push([0, 200_000], [199_999, 1]);
    for (const [at, length] of ranges) expect(reader.read(at, length).equals(bytes.subarray(at, at + length))).toBe(true);
    expect(() => reader.read(199_990, 20)).toThrow(DamagedFileError);
    reader.close();
    expect(() => new RangeReader('servers.json', undefined).read(0, 1)).toThrow('servers.json no longer matches its manifest');
  });
});
