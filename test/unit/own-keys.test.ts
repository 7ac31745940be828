/**
 * Field names and ids that are also names on Object.prototype (`constructor`, `toString`,
 * `hasOwnProperty`, `__proto__`) are data like any other: a diff, a redaction or the offline page
 * must see only the record's own properties and keep every own one. Values with an own
 * `__proto__` are built with JSON.parse, as the mirror reads them (an object literal would set the
 * prototype instead).
 */
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { bucketOf, bucketScript } from '../../src/browser/data.js';
import { buildChangeSet, classifyTables, diffValues } from '../../src/diff/engine.js';
import { formatReport } from '../../src/diff/format.js';
import { changeEntry } from '../../src/diff/history.js';
import { sha256 } from '../../src/snapshot/manifest.js';
import { FileTable } from '../../src/snapshot/table.js';
import { spansOf } from '../../src/util/string-set.js';
import { countRecords } from '../../src/index/tree.js';
import { recordFile } from '../../src/snapshot/paths.js';
import { redactBody, redactRecord, MASK } from '../../src/redact/redact.js';

const NAMES = ['constructor', 'toString', 'hasOwnProperty', '__proto__'];
const json = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

describe('diff', () => {
  it('a removed or added field named like an Object.prototype member is removed or added, not changed', () => {
    const withAll = json(`{"id":"1",${NAMES.map((n) => `"${n}":"v-${n}"`).join(',')}}`);
    const without = json('{"id":"1"}');
    const sorted = [...NAMES].sort();
    expect(diffValues(withAll, without)).toEqual(sorted.map((n) => ({ path: n, old: `v-${n}` })));
    expect(diffValues(without, withAll)).toEqual(sorted.map((n) => ({ path: n, new: `v-${n}` })));
    expect(diffValues(withAll, json(`{"id":"1",${NAMES.map((n) => `"${n}":"w-${n}"`).join(',')}}`))).toEqual(sorted.map((n) => ({ path: n, old: `v-${n}`, new: `w-${n}` })));
    // Nested, and an own __proto__ holding an object.
    expect(diffValues(json('{"a":{"__proto__":{"x":1}}}'), json('{"a":{"__proto__":{"x":2}}}'))).toEqual([{ path: 'a.__proto__.x', old: 1, new: 2 }]);
  });

  it('records whose ids are such names get their own field lists, in the report and the history', () => {
    const server = (id: string, memory: number): Buffer => Buffer.from(`{"server":{"id":${JSON.stringify(id)},"memory_GB":${memory}}}\n`);
    const before = new Map(NAMES.map((id) => [recordFile('servers', id), server(id, 1)]));
    const after = new Map(NAMES.map((id) => [recordFile('servers', id), server(id, 2)]));
    const table = (files: Map<string, Buffer>): FileTable => {
      const out = new FileTable();
      for (const [path, bytes] of files) out.set(path, sha256(bytes), bytes.length);
      return out;
    };
    const changes = buildChangeSet(classifyTables(table(before), table(after)), before, after);
    expect(changes.servers.changed).toEqual([...NAMES].sort());
    for (const id of NAMES) {
      expect(Object.hasOwn(changes.servers.fields, id)).toBe(true);
      expect(changes.servers.fields[id]).toEqual([{ path: 'memory_GB', old: 1, new: 2 }]);
    }
    expect(Object.getPrototypeOf(changes.servers.fields)).toBe(Object.prototype);
    expect(formatReport(changes, 'old', 'new').match(/memory_GB: 1 → 2|memory_GB/g)).toHaveLength(4);
    const entry = changeEntry('2024-01-01T00:00:00Z', changes) as unknown as { resources: { servers: { changed: { id: string; fields: string[] }[] } } };
    expect(entry.resources.servers.changed).toEqual([...NAMES].sort().map((id) => ({ id, fields: ['memory_GB'] })));
  });
});

describe('redact', () => {
  it('masks and drops an own field named __proto__ or constructor, and leaves absent ones absent', () => {
    const policy = { servers: { drop: ['extended_attributes.constructor'], mask: ['extended_attributes.__proto__'], maskUrlCredentials: [] } };
    const record = json('{"id":"1","extended_attributes":{"__proto__":"secret","constructor":"also secret","toString":"kept"}}');
    const out = redactRecord('servers', record, policy) as { extended_attributes: Record<string, unknown> };
    expect(Object.keys(out.extended_attributes)).toEqual(['__proto__', 'toString']);
    expect(Object.getOwnPropertyDescriptor(out.extended_attributes, '__proto__')?.value).toBe(MASK);
    expect(Object.getPrototypeOf(out.extended_attributes)).toBe(Object.prototype);
    expect(JSON.stringify(out)).not.toContain('secret');
    // A record without the fields comes back as it was, with no field added.
    const plain = json('{"id":"2","extended_attributes":{"a":1}}');
    expect(redactRecord('servers', plain, policy)).toEqual(plain);
    expect(JSON.stringify(redactBody('servers', { servers: [record] }, policy))).not.toContain('secret');
  });
});

describe('offline page data', () => {
  it('keeps records whose ids are such names in their buckets, as own properties once loaded', () => {
    const records = new Map(NAMES.map((id) => [id, JSON.parse(`{"id":${JSON.stringify(id)},"name":"n-${id}","memory_GB":4}`) as unknown]));
    const loaded: Record<string, unknown>[] = [];
    const text = bucketScript('servers', 0, records);
    expect(bucketOf('x', 1)).toBe(0);
    runInNewContext(text, { IM_RECORDS: (_r: string, _n: number, records: Record<string, unknown>) => loaded.push(records) });
    const bucket = loaded[0]!;
    for (const id of NAMES) {
      expect(Object.hasOwn(bucket, id), id).toBe(true);
      expect((Object.getOwnPropertyDescriptor(bucket, id)?.value as { id: string }).id).toBe(id);
    }
  });
});

describe('record counts', () => {
  it('counts only the resources, whatever other folder names a manifest holds', () => {
    const counts = countRecords(spansOf(['servers/1.json', ...NAMES.map((n) => `${n}/1.json`)]));
    expect(counts).toEqual({ applications: 0, databases: 0, operating_systems: 0, servers: 1, appservers: 0 });
    expect(Object.keys(counts)).toHaveLength(5);
  });
});
