/** The streaming scanner and encoder: pieces of a body, cut anywhere, give what a whole parse gives. */
import { describe, expect, it } from 'vitest';
import { EnvelopeEncoder, encodeAt, encodeJson } from '../../src/json/encode.js';
import { EnvelopeScanner, piecesText, ScanError, type ScannedElement } from '../../src/json/scan.js';
import { encodeManifest, parseManifest } from '../../src/snapshot/manifest.js';
import { FileTable } from '../../src/snapshot/table.js';
import { createRng } from '../../src/upstream/random.js';

function value(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 3 ? 5 : 7));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return next() < 0.5;
    case 2:
      return Math.round(next() * 1e6) / 100 - 5000;
    case 3:
      return ['', 'a"b', 'back\\slash', 'nl\nx', 'üñí', '日本', '{[,]}:', '\u0001'][Math.floor(next() * 8)];
    case 4:
      return `s${Math.floor(next() * 1000)}`;
    case 5:
      return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: Math.floor(next() * 4) }, (_, i) => [['k', 'a:b', '"q"', '7', 'x y'][i % 5]! + i, value(next, depth + 1)]));
  }
}

/** Feeds `bytes` to `scanner` in random pieces. */
function scanInPieces(scanner: EnvelopeScanner, bytes: Buffer, next: () => number): ScannedElement[] {
  const out: ScannedElement[] = [];
  let at = 0;
  while (at < bytes.length) {
    const size = 1 + Math.floor(next() * (next() < 0.3 ? 3 : 200));
    out.push(...scanner.push(bytes.subarray(at, at + size)));
    at += size;
  }
  scanner.end();
  return out;
}

describe('EnvelopeScanner', () => {
  it('splits list bodies cut anywhere into their elements (and where each sits) and other members, compact or indented', () => {
    const next = createRng(42).next;
    for (let round = 0; round < 300; round++) {
      const items = Array.from({ length: Math.floor(next() * 6) }, (_, i) => ({ id: String(i), v: value(next, 0) }));
      const body: Record<string, unknown> = {};
      if (next() < 0.3) body.before = value(next, 1);
      body.servers = items;
      if (next() < 0.3) body.after = value(next, 1);
      const text = next() < 0.5 ? JSON.stringify(body) : JSON.stringify(body, null, next() < 0.5 ? 2 : '\t');
      const scanner = new EnvelopeScanner('servers');
      const bytes = Buffer.from(` ${text}\n`);
      const elements = scanInPieces(scanner, bytes, next);
      expect(elements.map((e) => JSON.parse(e.bytes.toString()))).toEqual(items);
      // Where each element sits in the body: a kept list's records read their items from there.
      for (const e of elements) expect(bytes.subarray(e.at, e.at + e.bytes.length).equals(e.bytes)).toBe(true);
      expect(Object.fromEntries(scanner.members.map((m) => [m.key, JSON.parse(m.bytes.toString())]))).toEqual(Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'servers')));
      expect(scanner.found).toBe(true);
    }
  });

  it('hands a member over in the pieces it came in, whose text and joined bytes are the member', () => {
    const body = Buffer.from('{"a":"São-Paulo-db-1 日本-web-2","list":[1],"b":[{"x":"é"}]}');
    // Cut every 3 bytes: inside names, inside characters.
    const scanner = new EnvelopeScanner('list');
    for (let at = 0; at < body.length; at += 3) scanner.push(body.subarray(at, at + 3));
    scanner.end();
    const [a, b] = scanner.takeMembers();
    expect(a!.pieces.length).toBeGreaterThan(1);
    expect([piecesText(a!.pieces), a!.bytes.toString()]).toEqual(['"São-Paulo-db-1 日本-web-2"', '"São-Paulo-db-1 日本-web-2"']);
    expect(JSON.parse(piecesText(b!.pieces))).toEqual([{ x: 'é' }]);
    expect(scanner.takeMembers()).toEqual([]);
  });

  it('counts the keys an element holds, duplicates included', () => {
    const [element] = new EnvelopeScanner('a').push(Buffer.from('{"a":[{"x":1,"y":{"z":":","x":2},"x":3}]}'));
    expect(element!.keys).toBe(5);
    expect(Object.keys(JSON.parse(element!.bytes.toString()))).toHaveLength(2);
  });

  it('streams the members of an object', () => {
    const elements = new EnvelopeScanner('files', 'object').push(Buffer.from('{"format":1,"files":{"a/b.json":{"size":1},"c":[1,2]}}'));
    expect(elements.map((e) => [e.key, JSON.parse(e.bytes.toString())])).toEqual([['a/b.json', { size: 1 }], ['c', [1, 2]]]);
  });

  it('refuses what is not the envelope, and tells a cut body from a wrong one', () => {
    const fails = (text: string, key = 'servers'): ScanError => {
      const scanner = new EnvelopeScanner(key);
      try {
        scanner.push(Buffer.from(text));
        scanner.end();
      } catch (error) {
        return error as ScanError;
      }
      throw new Error(`accepted ${text}`);
    };
    expect(fails('[1,2]').message).toMatch(/expected a JSON object with key "servers", got an array/);
    expect(fails('{"servers":[{"id":"1"},').truncated).toBe(true);
    expect(fails('').truncated).toBe(true);
    expect(fails('{"servers":[1 2]}').truncated).toBe(false);
    expect(fails('{"servers":[]} x').message).toMatch(/after the end/);
    expect(fails(`{"servers":[${'['.repeat(150)}${']'.repeat(150)}]}`).message).toMatch(/deeper than 100/);
    const missing = new EnvelopeScanner('servers');
    missing.push(Buffer.from('{"other":[1]}'));
    missing.end();
    expect(missing.found).toBe(false);
  });
});

describe('EnvelopeEncoder', () => {
  it('writes exactly what encodeJson writes for the whole body', () => {
    const next = createRng(7).next;
    for (let round = 0; round < 200; round++) {
      const items = Array.from({ length: Math.floor(next() * 4) }, () => value(next, 0));
      const before = next() < 0.4 ? [['meta', value(next, 1)] as const] : [];
      const after = next() < 0.4 ? [['total', value(next, 1)] as const] : [];
      const encoder = new EnvelopeEncoder('servers', before);
      const text = encoder.head() + items.map((item) => encoder.separator() + encoder.element(item)).join('') + encoder.tail(after);
      expect(text).toBe(encodeJson({ ...Object.fromEntries(before), servers: items, ...Object.fromEntries(after) }).toString());
    }
  });

  it('encodes a value at any depth as the whole document holds it, with strings holding line breaks and empty containers', () => {
    const next = createRng(11).next;
    const values = [[], {}, 'two\nlines', [[], {}, [[]]], { '1': [], b: { c: '\n' } }, ...Array.from({ length: 100 }, () => value(next, 0))];
    for (const depth of [0, 1, 2, 3, 6]) {
      for (const v of values) expect(encodeAt(v, depth)).toBe(JSON.stringify(v, null, 2).replaceAll('\n', `\n${'  '.repeat(depth)}`));
    }
  });
});

describe('manifest', () => {
  it('writes encodeJson bytes and reads them back into the same table', () => {
    const table = new FileTable();
    table.set('servers/2.json', 'a'.repeat(64), 12);
    table.set('servers.json', 'b'.repeat(64), 3400);
    table.set('_meta/filters.json', 'c'.repeat(64), 0);
    const bytes = encodeManifest(table);
    const files = { '_meta/filters.json': { sha256: 'c'.repeat(64), size: 0 }, 'servers.json': { sha256: 'b'.repeat(64), size: 3400 }, 'servers/2.json': { sha256: 'a'.repeat(64), size: 12 } };
    expect(bytes.toString()).toBe(encodeJson({ format: 1, generator: 'inventory-mirror', files }).toString());
    const read = parseManifest(bytes)!;
    expect([...read.table.paths()]).toEqual(Object.keys(files));
    expect(read.table.sha256(read.table.indexOf('servers.json')!)).toBe('b'.repeat(64));
    expect(encodeManifest(new FileTable()).toString()).toBe(encodeJson({ format: 1, generator: 'inventory-mirror', files: {} }).toString());
    expect(parseManifest(Buffer.from('{"format":2,"generator":"inventory-mirror","files":{}}'))).toBeUndefined();
    expect(parseManifest(Buffer.from('{"format":1,"generator":"inventory-mirror","files":{"a":{"sha256":"x","size":1}}}'))).toBeUndefined();
  });
});
