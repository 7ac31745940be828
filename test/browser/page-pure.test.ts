/**
 * The offline page's pure parts (src/browser/page/): export, filters, the OS tree, matching and
 * sorting, the changes page's rows. The DOM parts run in
 * Chromium in browser.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { changeRows, unlisted } from '../../src/browser/page/changes.js';
import { csvField, exportName, neutralise, toCsv, toJson } from '../../src/browser/page/csv.js';
import { chipText, parseFilters, passes, withFilter, withoutFilter } from '../../src/browser/page/filters.js';
import { descendants, osTree } from '../../src/browser/page/os-tree.js';
import { searchHits } from '../../src/browser/page/search-hits.js';
import { filterRows, matching, mergeChunks, sortRows } from '../../src/browser/page/table-data.js';
import type { History, SearchChunk } from '../../src/browser/page/types.js';
import { bucketOf as pageBucketOf } from '../../src/browser/page/bucket.js';
import { bucketOf } from '../../src/browser/data.js';

describe('CSV export', () => {
  it('neutralises text a spreadsheet would run as a formula, and leaves numbers alone', () => {
    for (const bad of ['=1+2', '+1', '-1+1', '@SUM(1)', '\t=1', '\r=1', "=cmd|' /C calc'!A0", '=HYPERLINK("x")']) expect(neutralise(bad)).toBe(`'${bad}`);
    expect(neutralise(-5)).toBe('-5');
    expect(neutralise('web-1')).toBe('web-1');
    expect(neutralise(['=a', 'b'])).toBe("'=a, b");
    expect(csvField('=1,2')).toBe(`"'=1,2"`);
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField(null)).toBe('');
  });

  it('writes CRLF lines, with a UTF-8 byte-order mark only when asked', () => {
    const rows = [['1', 'Zürich', 8, true, null]];
    const header = ['id', 'name', 'memory_GB', 'virtual', 'ip'];
    expect(toCsv(header, rows, true)).toBe('\uFEFFid,name,memory_GB,virtual,ip\r\n1,Zürich,8,true,\r\n');
    expect(toCsv(header, rows, false).startsWith('id,')).toBe(true);
  });

  it('JSON keeps lists as lists, and a column named __proto__ as a key', () => {
    const parsed = JSON.parse(toJson(['id', 'server_names', '__proto__'], [['d1', ['a', 'b'], 'x']])) as Record<string, unknown>[];
    expect(parsed).toEqual([JSON.parse('{"id":"d1","server_names":["a","b"],"__proto__":"x"}')]);
    expect(Object.keys(parsed[0]!)).toEqual(['id', 'server_names', '__proto__']);
  });

  it('names the file after the resource and its filters, in characters every system accepts', () => {
    expect(exportName('servers', ['virtual=false', 'maintainer=Team A/B'], 'csv')).toBe('servers_virtual=false_maintainer=Team-A-B.csv');
    expect(exportName('servers', [], 'json')).toBe('servers.json');
    expect(exportName('servers', ['x'.repeat(500)], 'csv').length).toBeLessThanOrEqual(124);
  });
});

describe('filters in the URL', () => {
  const params = new URLSearchParams('f.virtual=true&f.location.site=Paris&f.location.site=Lyon&o.memory_GB=lt:8&o.ip=empty&q=web&sort=name&page=3');

  it('reads facet values (repeatable) and operator filters', () => {
    expect(parseFilters(params).map((f) => [f.kind, f.col, f.op, f.value])).toEqual([
      ['facet', 'virtual', 'eq', 'true'],
      ['facet', 'location.site', 'eq', 'Paris'],
      ['facet', 'location.site', 'eq', 'Lyon'],
      ['op', 'memory_GB', 'lt', '8'],
      ['op', 'ip', 'empty', ''],
    ]);
    expect(parseFilters(new URLSearchParams('o.name=bogus:x')).map((f) => f.op)).toEqual(['has']);
  });

  it('removes one filter value and adds one, back on page 1', () => {
    const lyon = parseFilters(params)[2]!;
    expect(withoutFilter(params, lyon).toString()).toBe('f.virtual=true&f.location.site=Paris&o.memory_GB=lt%3A8&o.ip=empty&q=web&sort=name');
    expect(withFilter(params, 'f.location.site', 'Nice').getAll('f.location.site')).toEqual(['Paris', 'Lyon', 'Nice']);
    expect(withFilter(params, 'f.location.site', 'Nice').has('page')).toBe(false);
  });

  it('compares numbers as numbers, text case-insensitively, lists by any entry', () => {
    expect(passes(7.5, 'lt', '8')).toBe(true);
    expect(passes(8, 'lt', '8')).toBe(false);
    expect(passes(8, 'le', '8')).toBe(true);
    expect(passes(64, 'gt', '8')).toBe(true);
    expect(passes(64, 'ge', '64')).toBe(true);
    expect(passes('10', 'lt', '9')).toBe(false);
    expect(passes('2026-01-02T00:00:00Z', 'gt', '2026-01-01')).toBe(true);
    expect(passes('Debian', 'eq', 'debian')).toBe(true);
    expect(passes('web-01', 'has', 'EB-0')).toBe(true);
    expect(passes(['a', 'db-x'], 'has', 'db')).toBe(true);
    expect(passes(null, 'lt', '8')).toBe(false);
    expect(passes(null, 'empty', '')).toBe(true);
    expect(passes('', 'empty', '')).toBe(true);
    expect(passes([], 'empty', '')).toBe(true);
    expect(passes(0, 'empty', '')).toBe(false);
  });

  it('writes a chip as heading, operator and value', () => {
    const [, , , memory, ip] = parseFilters(params);
    expect(chipText(memory!, (c) => (c === 'memory_GB' ? 'memory GB' : c))).toBe('memory GB < 8');
    expect(chipText(ip!, (c) => c)).toBe('ip is empty');
  });
});

describe('the operating-system tree', () => {
  it('takes ids named like Object.prototype members as ids (constructor, __proto__)', () => {
    const T = mergeChunks('operating_systems', [
      {
        ids: ['constructor', '__proto__', 'toString', 'hasOwnProperty'],
        columns: [
          ['name', ['Linux', 'Debian', 'Debian 12', 'BSD']],
          ['parent.id', [null, ['constructor'], ['__proto__'], null]],
        ],
      },
    ]);
    const tree = osTree(T);
    expect(tree.roots).toEqual(['constructor', 'hasOwnProperty']);
    expect(tree.children.get('constructor')).toEqual(['__proto__']);
    expect([...descendants(tree, 'constructor')]).toEqual(['constructor', '__proto__', 'toString']);
    expect([...descendants(tree, 'hasOwnProperty')]).toEqual(['hasOwnProperty']);
  });

  it('filters servers on a system and its descendants, several facet values OR-ed', () => {
    const systems = mergeChunks('operating_systems', [{ ids: ['1', '2', '3'], columns: [['parent.id', [null, ['1'], null]]] }]);
    const servers = mergeChunks('servers', [
      {
        ids: ['a', 'b', 'c', 'd'],
        columns: [
          ['name', ['d-host', 'c-host', 'b-host', 'a-host']],
          ['operating_system.id', [['1'], ['2'], ['3'], null]],
          ['operating_system', ['Linux', 'Debian', 'BSD', null]],
          ['memory_GB', [4, 16, 2, 8]],
        ],
      },
    ]);
    const tree = osTree(systems);
    const ids = (q: string): string[] => matching(servers, new URLSearchParams(q), tree).map((i) => servers.ids[i]!);
    expect(ids('f.operating_system=1')).toEqual(['b', 'a']);
    expect(ids('f.operating_system=2&f.operating_system=3')).toEqual(['c', 'b']);
    expect(ids('f.operating_system=1&o.memory_GB=lt:8')).toEqual(['a']);
    expect(ids('o.operating_system=empty')).toEqual(['d']);
    expect(ids('sort=-memory_GB')).toEqual(['b', 'd', 'a', 'c']);
  });

  it('sorts only as far as the page shown, in the order a whole sort gives, ties and nulls included', () => {
    const n = 1000;
    const T = mergeChunks('servers', [
      { ids: Array.from({ length: n / 2 }, (_, i) => `a${i}`), columns: [['name', Array.from({ length: n / 2 }, (_, i) => (i % 7 === 0 ? null : `Host-${(i * 37) % 101}`))], ['memory_GB', Array.from({ length: n / 2 }, (_, i) => i % 2), [4, 2]]] },
      { ids: Array.from({ length: n / 2 }, (_, i) => `b${i}`), columns: [['name', Array.from({ length: n / 2 }, (_, i) => `host-${(i * 53) % 89}`)]] },
    ]);
    // Columns are merged on first use, a column of the second chunk only holding nulls for the first.
    expect(T.cols.has('memory_GB')).toBe(true);
    expect(T.cols.get('memory_GB')!.slice(0, 3)).toEqual([4, 2, 4]);
    expect(T.cols.get('memory_GB')![n - 1]).toBe(null);
    expect(T.pos.get('b0')).toBe(n / 2);
    const rows = filterRows(T, new URLSearchParams());
    for (const q of ['', 'sort=-name', 'sort=memory_GB', 'sort=-memory_GB', 'sort=nothing']) {
      const params = new URLSearchParams(q);
      const whole = sortRows(T, rows, params);
      expect(whole).toHaveLength(n);
      for (const limit of [1, 50, 100]) expect(sortRows(T, rows, params, limit)).toEqual(whole.slice(0, limit));
    }
    expect(T.cols.get('name')![sortRows(T, rows, new URLSearchParams(), 1)[0]!]).toBe('Host-0');
    expect(sortRows(T, rows, new URLSearchParams(), n).slice(-1).map((i) => T.cols.get('name')![i])).toEqual([null]);
  });
});

describe('changes', () => {
  it('lists every change the history keeps, filtered by sync, resource, kind and text', () => {
    const history: History = {
      entries: [
        {
          at: '2026-01-02T03:00:00.000Z',
          initial: false,
          records: {},
          resources: {
            servers: { counts: { added: 1, removed: 0, changed: 700 }, added: [['9', 'new-1']], removed: [], changed: [['1', 'web-1', [['memory_GB', 8, 16]]]] },
            applications: { counts: { added: 0, removed: 1, changed: 0 }, added: [], removed: [['x', 'gone']], changed: [] },
          },
        },
        { at: '2026-01-01T03:00:00.000Z', initial: true, records: { servers: 2 }, resources: {} },
      ],
    };
    expect(changeRows(history, ['servers'], {}).map((r) => [r.kind, r.id])).toEqual([['added', '9'], ['changed', '1']]);
    expect(changeRows(history, ['servers'], { text: 'memory' }).map((r) => r.id)).toEqual(['1']);
    expect(changeRows(history, ['servers'], { kind: 'added' }).map((r) => r.name)).toEqual(['new-1']);
    expect(changeRows(history, ['servers'], { sync: 1 })).toEqual([]);
    expect(unlisted(history, { resource: 'servers' })).toBe(699);
  });

  it('the page finds a record bucket as the sync made it', () => {
    for (const id of ['1', 'web-01', '__proto__', 'Zürich', '😀']) expect(pageBucketOf(id, 64)).toBe(bucketOf(id, 64));
  });
});

describe('the search over an index chunk', () => {
  const chunk: SearchChunk = {
    ids: ['1', '2', '3', '4'],
    fields: ['name', 'ip', 'dns', 'hypervisor_name'],
    columns: [[['Web-1', 'db-1', 'web-2', '']], [['10.0.0.1', '10.0.0.2', '', '10.0.0.4']], [['web-1.example.net', '', 'WEB-2.example.net', '']], [[0, 0, 0, 1], ['kvm-1', 'Hyper-V-2']]],
  };

  it('counts every row holding the term in any field, case-insensitively, and details the first few with the fields that matched', () => {
    expect(searchHits(chunk, 'web', 1)).toEqual({ count: 2, hits: [{ id: '1', name: 'Web-1', extra: 'dns web-1.example.net' }] });
    expect(searchHits(chunk, '10.0.0.2', 10)).toEqual({ count: 1, hits: [{ id: '2', name: 'db-1', extra: 'ip 10.0.0.2' }] });
    // A term never spans two fields.
    expect(searchHits(chunk, '1 10', 10).count).toBe(0);
  });

  it('tests a coded field through its values, and names a record without a name by its id', () => {
    expect(searchHits(chunk, 'kvm', 10).count).toBe(3);
    expect(searchHits(chunk, 'hyper-v', 10)).toEqual({ count: 1, hits: [{ id: '4', name: '4', extra: 'hypervisor_name Hyper-V-2' }] });
    expect(searchHits(chunk, 'nowhere', 10)).toEqual({ count: 0, hits: [] });
  });
});
