/** Re-encoding a value from its bytes: what it accepts comes out as parsing and encoding it would give. */
import { describe, expect, it } from 'vitest';
import { encodeAt } from '../../src/json/encode.js';
import { Reindenter } from '../../src/json/reindent.js';
import { createRng } from '../../src/upstream/random.js';

/** JSON-ish text: mostly JSON, with the escapes, numbers, keys and slips a service may send. */
function text(next: () => number, depth: number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const space = (): string => (next() < 0.7 ? '' : pick([' ', '\n', '\t', '\r\n  ']));
  const strings = ['', 'id', 'name', 'Zürich', '日本', 'a\\"b', 'back\\\\slash', 'a\\/b', 'tab\\t', 'e\\u00e9', '0', '12', '-1', 'k', 'k', '__proto__', 'ctl\\u0001', '\u2028', 'raw\u0001'];
  const numbers = ['0', '-0', '7', '-12', '1.50', '2.6', '1e3', '1E-7', '123456789012345678', '0.0000001', '-0.0', '1e400', '01', '1.', '.5', '-'];
  const r = next();
  if (depth > 4 || r < 0.3) return pick([`"${pick(strings)}"`, pick(numbers), 'true', 'false', 'null', 'nul']);
  const count = Math.floor(next() * 5);
  if (r < 0.65) {
    const members = Array.from({ length: count }, () => `${space()}"${pick(strings)}"${space()}:${space()}${text(next, depth + 1)}${space()}`);
    return `{${space()}${members.join(',')}${space()}}`;
  }
  return `[${Array.from({ length: count }, () => `${space()}${text(next, depth + 1)}${space()}`).join(',')}]`;
}

function reference(source: string, depth: number): string | undefined {
  try {
    return encodeAt(JSON.parse(source), depth);
  } catch {
    return undefined;
  }
}

describe('a value re-encoded from its bytes', () => {
  it('is, whenever it is not declined, what parsing and encoding gives, and never accepts what JSON.parse refuses', () => {
    const next = createRng(11).next;
    const reindenter = new Reindenter();
    let accepted = 0;
    for (let n = 0; n < 30_000; n++) {
      const source = text(next, 0);
      const depth = Math.floor(next() * 3);
      const got = reindenter.run(Buffer.from(source), depth);
      if (got === undefined) continue;
      accepted++;
      expect(got.toString('utf8'), source).toBe(reference(source, depth));
    }
    // The generator makes declinable text often; well over a third still goes the fast way.
    expect(accepted).toBeGreaterThan(10_000);
  });

  it('writes numbers as JavaScript does, and declines those beyond a double', () => {
    const next = createRng(5).next;
    const digits = (k: number): string => Array.from({ length: k }, () => String(Math.floor(next() * 10))).join('');
    const reindenter = new Reindenter();
    for (let n = 0; n < 30_000; n++) {
      let source = (next() < 0.3 ? '-' : '') + (next() < 0.3 ? '0' : `${1 + Math.floor(next() * 9)}${digits(Math.floor(next() * 20))}`);
      if (next() < 0.6) source += `.${next() < 0.3 ? '0'.repeat(Math.floor(next() * 9)) : ''}${digits(1 + Math.floor(next() * 18))}`;
      if (next() < 0.2) source += `e${next() < 0.3 ? '-' : ''}${digits(1 + Math.floor(next() * 3))}`;
      // One beyond a double is published as null, and reported: that takes the parse.
      const expected = reference(`[${source}]`, 1);
      expect(reindenter.run(Buffer.from(`[${source}]`), 1)?.toString('utf8'), source).toBe(expected?.includes('null') ? undefined : expected);
    }
  });

  it('takes records as services send them, compact or spaced, and finds the top-level fields asked for', () => {
    const reindenter = new Reindenter(['id', 'server_names', 'name', 'size']);
    const record = { id: 'srv-7', name: 'München "mail" \\ 1', memory_GB: 0.5, tags: [], attributes: { id: 'inner', size: 3 }, server_names: ['a', { b: [] }], list: [1, [2, {}]] };
    for (const source of [JSON.stringify(record), JSON.stringify(record, null, 4)]) {
      const bytes = Buffer.from(source);
      expect(reindenter.run(bytes, 2)?.toString('utf8')).toBe(encodeAt(record, 2));
      expect(reindenter.text(bytes, 0)).toBe('srv-7');
      expect(JSON.parse(reindenter.field(bytes, 1)!.toString())).toEqual(record.server_names);
      // A string with an escape is there as text, not as a string taken as it is.
      expect(JSON.parse(reindenter.field(bytes, 2)!.toString())).toBe(record.name);
      expect(reindenter.text(bytes, 2)).toBeUndefined();
      // Only the top level counts.
      expect(reindenter.field(bytes, 3)).toBeUndefined();
    }
    const nested = Buffer.from('{"attributes":{"id":"inner"},"name":"x"}');
    reindenter.run(nested, 0);
    expect(reindenter.text(nested, 0)).toBeUndefined();
    expect(reindenter.text(nested, 2)).toBe('x');
  });

  it('declines what it would have to decode to get right', () => {
    const reindenter = new Reindenter();
    const declined = [
      '{"id":"\\u00e9"}',
      '{"id":"1","id":"2"}',
      '{"b":1,"7":2}',
      '{"a":"x\ty"}',
      `${'['.repeat(70)}${']'.repeat(70)}`,
      '{"a":1',
      '{"a":1}x',
      '{"a":1e400}',
      '{"a":tru}',
    ];
    for (const source of declined) expect(reindenter.run(Buffer.from(source), 0), source).toBeUndefined();
    expect(reindenter.run(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), 0)).toBeUndefined();
  });
});

describe('objects with many keys (issue 29: a hostile service\'s DoS)', () => {
  it('agrees with parsing on big objects, nested ones and repeated keys among many', () => {
    const keys = (n: number, prefix: string): string[] => Array.from({ length: n }, (_, i) => `"${prefix}${i}":${i}`);
    const distinct = [
      `{${keys(40, 'k').join(',')}}`,
      `{${[...keys(20, 'a'), `"inner":{${keys(50, 'a').join(',')}}`, ...keys(20, 'b')].join(',')}}`,
      `[{${keys(30, 'x').join(',')}},{${keys(30, 'x').join(',')}}]`,
    ];
    const repeated = [
      `{${[...keys(40, 'k'), '"k3":1'].join(',')}}`,
      `{${[...keys(20, 'a'), `"inner":{${keys(50, 'a').join(',')}}`, ...keys(20, 'b'), '"a5":0'].join(',')}}`,
      `{${[...keys(20, 'a'), `"inner":{${[...keys(50, 'a'), '"a49":1'].join(',')}}`].join(',')}}`,
    ];
    const reindenter = new Reindenter();
    for (const source of distinct) expect(reindenter.run(Buffer.from(source), 1)?.toString(), source.slice(0, 60)).toBe(reference(source, 1));
    // Declined when a key repeats (the caller parses and reports it), not re-encoded with the last one.
    for (const source of repeated) expect(reindenter.run(Buffer.from(source), 1), source.slice(0, 60)).toBeUndefined();
  });

  it('re-encodes one record of 400 000 keys, and finds its one repeated key', { timeout: 120_000 }, () => {
    const members = Array.from({ length: 400_000 }, (_, i) => `"field_${i}":${i}`);
    const source = Buffer.from(`{${members.join(',')}}`);
    const reindenter = new Reindenter();
    const out = reindenter.run(source, 1);
    expect(out?.toString()).toBe(reference(source.toString(), 1));
    expect(reindenter.run(Buffer.from(`{${members.join(',')},"field_7":0}`), 1)).toBeUndefined();
  });
});
