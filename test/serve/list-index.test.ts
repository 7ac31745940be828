/**
 * The list index and the answers cut from a list file: for lists in the published form, fed in
 * pieces cut anywhere, the ids, items and substring matches are those of a whole parse, and the
 * bytes of an answer are exactly encodeJson of the records it keeps.
 */
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EnvelopeEncoder, encodeAt, encodeJson } from '../../src/json/encode.js';
import { answerBytes } from '../../src/serve/answer.js';
import { ListFormatError, ListIndexer, type ListIndex } from '../../src/serve/list-index.js';
import { createRng } from '../../src/upstream/random.js';
import { tempDir } from '../helpers/tmp.js';

// Names that look like the index's own markers, escapes, case pairs that differ in length.
const NAMES = ['web-01', 'WEB-02', 'Zürich-db', 'İstanbul', 'ΟΔΟΣ', 'a"b', 'back\\slash', 'nl\nx', '\n      "name": "fake"', '日本-app', '', 'x\u0000y', 'straße'];

function record(next: () => number, i: number): Record<string, unknown> {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const name = next() < 0.1 ? pick([null, 7, { name: 'nested' }, ['web']]) : `${pick(NAMES)}-${i}`;
  const out: Record<string, unknown> = { id: next() < 0.1 ? `id "${i}" \\ é` : String(1000 + i), name };
  if (next() < 0.5) out.extended_attributes = { name: 'web-inner', list: [{ name: 'deep' }, 1, null], empty: {}, none: [] };
  if (next() < 0.3) out.dns = `${pick(NAMES)}.apps.example`;
  if (next() < 0.2) delete out.name;
  return out;
}

/** Pushes `bytes` in random pieces (some of one byte, some large). */
function index(bytes: Buffer, key: string, fields: string[], next: () => number, caseSensitive = false): ListIndex {
  const indexer = new ListIndexer(key, fields, caseSensitive);
  for (let at = 0; at < bytes.length; ) {
    const size = next() < 0.3 ? 1 + Math.floor(next() * 3) : 1 + Math.floor(next() * 400);
    indexer.push(bytes.subarray(at, at + size));
    at += size;
  }
  return indexer.end();
}

const includes = (value: unknown, term: string, caseSensitive = false): boolean =>
  typeof value === 'string' && (caseSensitive ? value : value.toLowerCase()).includes(caseSensitive ? term : term.toLowerCase());

describe('ListIndexer', () => {
  it('gives the ids, byte ranges and substring matches of a whole parse, however the bytes are cut', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const next = createRng(seed).next;
      const records = Array.from({ length: Math.floor(next() * 60) }, (_, i) => record(next, i));
      const bytes = encodeJson({ servers: records });
      const list = index(bytes, 'servers', ['name', 'dns'], next);
      expect(list.count).toBe(records.length);
      records.forEach((r, i) => {
        expect(list.id(i)).toBe(r.id);
        expect(bytes.toString('utf8', list.offsets[i]!, list.offsets[i]! + list.lengths[i]!)).toBe(encodeAt(r, 2));
      });
      for (const term of ['web', 'WEB', 'é', 'İ', 'i̇', 'οδος', 'ς', '"', '\\', '\n', '', 'x\u0000y', '\u0000', 'name', 'nested', 'zzz', 'ss']) {
        for (const field of ['name', 'dns']) {
          const expected = records.flatMap((r, i) => (includes(r[field], term) ? [i] : []));
          expect([...list.matching(field, term.toLowerCase())], `${seed} ${field} ${JSON.stringify(term)}`).toEqual(expected);
          // Restricted to some items, sparse and dense.
          for (const share of [0.05, 0.9]) {
            const among = Int32Array.from(records.flatMap((_, i) => (next() < share ? [i] : [])));
            expect([...list.matching(field, term.toLowerCase(), among)]).toEqual(expected.filter((i) => among.includes(i)));
          }
        }
      }
    }
  });

  it('finds the positions of a view\'s records, in list order or not, and leaves out ids the list lacks', () => {
    const records = Array.from({ length: 50 }, (_, i) => ({ id: i % 7 === 0 ? `é${i}` : String(i), name: `n${i}` }));
    const list = index(encodeJson({ servers: records }), 'servers', ['name'], createRng(8).next);
    const pick = (ids: string[]): ListIndex => index(encodeJson({ servers: ids.map((id) => ({ id })) }), 'servers', [], createRng(9).next);
    const inOrder = records.filter((_, i) => i % 3 === 0).map((r) => r.id);
    expect([...list.positionsOf(pick(inOrder))]).toEqual(records.flatMap((_, i) => (i % 3 === 0 ? [i] : [])));
    expect([...list.positionsOf(pick(['5', 'é0', '48', 'nope', '3']))]).toEqual([0, 3, 5, 48]);
    expect([...list.positionsOf(pick(['é49', 'gone']))]).toEqual([49]);
    expect([...list.positionsOf(pick(['49']))]).toEqual([]);
    expect([...list.positionsOf(pick([]))]).toEqual([]);
    expect(list.has('é7')).toBe(true);
    expect(list.has('7')).toBe(false);
  });

  it('matches case-sensitively when asked', () => {
    const records = [{ id: '1', name: 'Web' }, { id: '2', name: 'web' }, { id: '3', name: 'WEB' }];
    const list = index(encodeJson({ servers: records }), 'servers', ['name'], createRng(3).next, true);
    expect([...list.matching('name', 'web')]).toEqual([1]);
    expect([...list.matching('name', 'W')]).toEqual([0, 2]);
  });

  it('finds the list among other envelope members, and reads an empty list', () => {
    const records = [{ id: 'a', name: 'one' }, { id: 'b', name: 'two' }];
    const encoder = new EnvelopeEncoder('servers', [['total', { servers: [{ id: 'no' }] }], ['note', '\n  "servers": [']]);
    const bytes = Buffer.from(encoder.head() + records.map((r) => encoder.separator() + encoder.element(r)).join('') + encoder.tail([['after', [1]]]));
    const list = index(bytes, 'servers', ['name'], createRng(5).next);
    expect([0, 1].map((i) => list.id(i))).toEqual(['a', 'b']);
    expect(index(encodeJson({ servers: [] }), 'servers', ['name'], createRng(6).next).count).toBe(0);
    expect(index(encodeJson({ other: 1, servers: [] }), 'servers', ['name'], createRng(6).next).count).toBe(0);
  });

  it('refuses what is not the published form rather than guessing', () => {
    const records = [{ id: '1', name: 'a' }];
    const cases: Buffer[] = [
      Buffer.from(JSON.stringify({ servers: records })),
      Buffer.from(JSON.stringify({ servers: records }, null, 4)),
      encodeJson({ servers: records }).subarray(0, 30),
      encodeJson({ servers: [{ name: 'no id' }] }),
      encodeJson({ servers: [{ id: 5 }] }),
      encodeJson({ servers: [['not', 'an', 'object']] }),
      encodeJson({ applications: records }),
    ];
    for (const bytes of cases) {
      expect(() => index(bytes, 'servers', ['name'], createRng(1).next), bytes.toString().slice(0, 40)).toThrow(ListFormatError);
    }
  });
});

describe('answers cut from the list file', () => {
  it('are byte for byte encodeJson of the records they keep, adjacent items read in one piece', () => {
    const dir = tempDir('im-answer-');
    for (let seed = 1; seed <= 8; seed++) {
      const next = createRng(100 + seed).next;
      const records = Array.from({ length: 1 + Math.floor(next() * 80) }, (_, i) => record(next, i));
      const file = join(dir, `${seed}.json`);
      const bytes = encodeJson({ servers: records });
      writeFileSync(file, bytes);
      const list = index(bytes, 'servers', ['name'], next);
      const fd = openSync(file, 'r');
      try {
        for (const share of [0, 0.1, 0.5, 0.95, 1]) {
          const kept = Int32Array.from(records.flatMap((_, i) => (next() < share ? [i] : [])));
          const answer = answerBytes(fd, 'servers', list.ranges(kept));
          expect(answer.equals(encodeJson({ servers: [...kept].map((i) => records[i]) })), `${seed} ${share}`).toBe(true);
        }
        expect(answerBytes(fd, 'servers', list.ranges('all')).equals(bytes)).toBe(true);
      } finally {
        closeSync(fd);
      }
    }
  });
});
