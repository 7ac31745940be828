/** The carry that joins a chunk's unfinished end to the next chunk, as serve's list and manifest readers use it. */
import { describe, expect, test } from 'vitest';
import { Carry } from '../../src/util/carry.js';

/** Splits `text` into lines fed in chunks of the given sizes, keeping each unfinished line in a Carry. */
function linesIn(text: string, sizes: readonly number[]): string[] {
  const bytes = Buffer.from(text);
  const carry = new Carry();
  const lines: string[] = [];
  // One reused chunk buffer, as scanFile reads: the carry must not keep a view of it.
  const chunk = Buffer.alloc(Math.max(...sizes));
  for (let at = 0, k = 0; at < bytes.length; k++) {
    const n = Math.min(sizes[k % sizes.length]!, bytes.length - at);
    bytes.copy(chunk, 0, at, at + n);
    at += n;
    const joined = carry.join(chunk.subarray(0, n));
    let start = 0;
    for (let end = joined.indexOf(0x0a); end !== -1; end = joined.indexOf(0x0a, start)) {
      lines.push(joined.toString('utf8', start, end));
      start = end + 1;
    }
    carry.keep(joined, start);
    chunk.fill(0x21);
  }
  return lines;
}

describe('Carry', () => {
  test('lines split across any chunking come out whole, long ones spanning many chunks too', () => {
    const lines = Array.from({ length: 300 }, (_, i) => 'x'.repeat((i * 37) % 211) + `line ${i} é`);
    lines.push('y'.repeat(5000));
    const text = `${lines.join('\n')}\n`;
    for (const sizes of [[1], [7], [64], [3, 100, 1], [4096], [text.length]]) {
      expect(linesIn(text, sizes)).toEqual(lines);
    }
  });

  test('with nothing kept, join hands the chunk back as it is', () => {
    const carry = new Carry();
    const chunk = Buffer.from('abc');
    expect(carry.join(chunk)).toBe(chunk);
    carry.keep(chunk, 3);
    expect(carry.join(chunk)).toBe(chunk);
    carry.keep(chunk, 1);
    expect(carry.join(Buffer.from('d')).toString()).toBe('bcd');
  });
});
