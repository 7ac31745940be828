import { describe, expect, it } from 'vitest';
import { FindingSet, type Finding } from '../../src/validate/findings.js';

describe('a sync’s findings', () => {
  it('count each record once per resource, field and code, keep the values given, and list ids in id order', () => {
    const set = new FindingSet();
    const ids = Array.from({ length: 5000 }, (_, n) => String((n * 7919) % 5000));
    const nulls = (id: string): Finding => ({ resource: 'appservers', id, field: 'dbconn_url', code: 'null' });
    for (const id of ids) expect(set.add(nulls(id))).toBe(true);
    // Again, and ids that only share a prefix or a length with those already in.
    for (const id of ids) expect(set.add(nulls(id))).toBe(false);
    for (const id of ['50000', '4999 ', ' 1', 'x']) expect(set.add(nulls(id))).toBe(true);
    expect(set.add({ resource: 'servers', id: '1', field: 'dbconn_url', code: 'null' })).toBe(true);
    expect(set.add({ resource: 'appservers', id: '1', field: 'dbconn_url', code: 'missing' })).toBe(true);
    const mismatch = { list: 'a', single: 'b' };
    expect(set.add({ resource: 'servers', id: '7', field: 'name', code: 'view_mismatch', value: mismatch })).toBe(true);
    expect(set.add({ resource: 'servers', id: '8', field: 'name', code: 'view_mismatch', value: { list: 'c', single: 'd' } })).toBe(true);
    expect(set.add({ resource: 'servers', id: '7', field: 'name', code: 'view_mismatch', value: { list: 'x', single: 'y' } })).toBe(false);

    expect(set.size).toBe(5000 + 4 + 1 + 1 + 2);
    expect(set.valuesOf('servers', 'name', 'view_mismatch')).toEqual(new Map([['7', mismatch], ['8', { list: 'c', single: 'd' }]]));
    const groups = set.groups();
    expect(groups.map((g) => [g.resource, g.field, g.code, g.ids.length])).toEqual([
      ['servers', 'dbconn_url', 'null', 1],
      ['servers', 'name', 'view_mismatch', 2],
      ['appservers', 'dbconn_url', 'missing', 1],
      ['appservers', 'dbconn_url', 'null', 5004],
    ]);
    expect(groups[3]!.ids.slice(0, 3)).toEqual(['0', '1', '2']);
    expect(new Set(groups[3]!.ids)).toEqual(new Set([...ids, '50000', '4999 ', ' 1', 'x']));
  });
});
