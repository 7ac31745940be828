import { describe, expect, it } from 'vitest';
import { FindingSet, findingsOf, type Finding } from '../../src/validate/findings.js';

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

    expect(set.groups().reduce((n, g) => n + g.ids.length, 0)).toBe(5000 + 4 + 1 + 1 + 2);
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

  it('take groups carried over whole, merged in id order with what the run found, each id once, values from both', () => {
    const set = new FindingSet();
    set.add({ resource: 'servers', id: '10', field: 'memory_GB', code: 'wrong_type', value: 'x' });
    set.add({ resource: 'servers', id: '2', field: 'memory_GB', code: 'wrong_type', value: 'y' });
    set.carry({ resource: 'servers', field: 'memory_GB', code: 'wrong_type', ids: ['1', '3', '10', '11'], values: new Map([['1', 'a'], ['11', 'b']]) });
    set.carry({ resource: 'servers', field: 'ip', code: 'null', ids: ['9', '10', 'b', 'a'], values: new Map() });
    set.carry({ resource: 'servers', field: 'ip', code: 'null', ids: ['9'], values: new Map() });
    set.carry({ resource: 'servers', field: 'ip', code: 'missing', ids: [], values: new Map() });

    expect(set.valuesOf('servers', 'memory_GB', 'wrong_type')).toEqual(new Map([['1', 'a'], ['11', 'b'], ['10', 'x'], ['2', 'y']]));
    expect(set.groups().map((g) => [g.field, g.code, g.ids, Object.fromEntries(g.values)])).toEqual([
      ['ip', 'null', ['9', '10', 'a', 'b'], {}],
      ['memory_GB', 'wrong_type', ['1', '2', '3', '10', '11'], { 1: 'a', 2: 'y', 10: 'x', 11: 'b' }],
    ]);
    expect([...findingsOf({ resource: 'servers', field: 'memory_GB', code: 'wrong_type', ids: ['1', '3'], values: new Map([['1', 'a']]) })]).toEqual([
      { resource: 'servers', id: '1', field: 'memory_GB', code: 'wrong_type', value: 'a' },
      { resource: 'servers', id: '3', field: 'memory_GB', code: 'wrong_type' },
    ]);
  });
});
