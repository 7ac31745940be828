import { describe, expect, it } from 'vitest';
import { countRecords } from '../../src/index/tree.js';
import { recordResource } from '../../src/snapshot/paths.js';
import { foldersOf } from '../../src/snapshot/safe-folder.js';
import { FileTable } from '../../src/snapshot/table.js';
import { RESOURCE_NAMES } from '../../src/spec/resources.js';

const hex = (c: string) => c.repeat(64);
const item = 'AAAAAAAAAAAAAAAA';

describe('a table derived from the previous snapshot', () => {
  const previous = (): FileTable => {
    const table = new FileTable();
    table.set('servers/1.json', hex('a'), 10, { etag: `"${'1'.repeat(32)}"`, item });
    table.set('servers/2.json', hex('b'), 20, { etag: 'W/"v2"', lastModified: 'Mon, 23 Nov 2026 10:00:00 GMT' });
    table.set('servers.json', hex('c'), 30);
    return table;
  };

  it('keeps a file as the previous snapshot has it, validators included', () => {
    const base = previous();
    const table = FileTable.over(base);
    for (const path of ['servers/2.json', 'servers/1.json']) table.copyFrom(base, base.indexOf(path)!, path);
    expect(table.size).toBe(2);
    for (const path of ['servers/1.json', 'servers/2.json']) {
      const i = table.indexOf(path)!;
      const j = base.indexOf(path)!;
      expect([table.sha256(i), table.fileSize(i), table.validators(i)]).toEqual([base.sha256(j), base.fileSize(j), base.validators(j)]);
    }
    expect(table.has('servers.json')).toBe(false);
  });

  it('takes the previous file back over one this run had put under that path', () => {
    const base = previous();
    const table = FileTable.over(base);
    table.set('servers/1.json', hex('d'), 11, { etag: '"new"' });
    table.copyFrom(base, base.indexOf('servers/1.json')!);
    const i = table.indexOf('servers/1.json')!;
    expect([table.sha256(i), table.fileSize(i), table.validators(i)]).toEqual([hex('a'), 10, base.validators(base.indexOf('servers/1.json')!)]);
    expect([...table.paths()]).toEqual(['servers/1.json']);
  });

  it('records a confirmation without a copy, and forgets it when the file is kept or replaced again', () => {
    const base = previous();
    const table = FileTable.over(base);
    const one = base.indexOf('servers/1.json')!;
    table.holdBase(one, 'servers/1.json');
    table.confirm(one, 9);
    expect(table.validators(one)).toEqual({ ...base.validators(one), seen: 9 });
    expect([table.seen(one), base.seen(one)]).toEqual([9, 0]);
    // Held, not copied: nothing differs from the base but the confirmation.
    expect(table.changesFrom(base)).toEqual({ own: [], dropped: [base.indexOf('servers/2.json')!, base.indexOf('servers.json')!] });
    table.copyFrom(base, one);
    expect(table.validators(one)).toEqual(base.validators(one));
  });

  it('names what differs from its base: files added or replaced, and files dropped', () => {
    const base = previous();
    const table = FileTable.over(base);
    table.copyFrom(base, base.indexOf('servers/1.json')!);
    table.set('servers/2.json', hex('e'), 21);
    table.set('servers/3.json', hex('f'), 22);
    const delta = table.changesFrom(base)!;
    expect(delta.own.map((i) => table.path(i))).toEqual(['servers/2.json', 'servers/3.json']);
    expect(delta.dropped.map((j) => base.path(j))).toEqual(['servers.json']);
    expect(table.changesFrom(new FileTable())).toBeUndefined();
  });
});

describe('a table with room made for its files', () => {
  it('keeps what it held and holds everything added after, past the room made and beyond', () => {
    const table = new FileTable();
    const entry = (n: number) => ({ path: `servers/${n}.json`, sha256: n.toString(16).padStart(64, '0'), size: n, validators: n % 3 === 0 ? undefined : { etag: `"${n.toString(16).padStart(32, '0')}"`, item: n % 2 ? item : undefined } });
    const put = (n: number) => {
      const e = entry(n);
      table.set(e.path, e.sha256, e.size, e.validators);
    };
    for (let n = 1; n <= 10; n++) put(n);
    table.reserve(5000);
    table.reserve(100);
    for (let n = 11; n <= 6000; n++) put(n);
    expect(table.size).toBe(6000);
    for (let n = 1; n <= 6000; n++) {
      const e = entry(n);
      const i = table.indexOf(e.path)!;
      expect([table.path(i), table.sha256(i), table.fileSize(i), table.validators(i)]).toEqual([e.path, e.sha256, e.size, e.validators && { etag: e.validators.etag, ...(e.validators.item ? { item } : {}) }]);
    }
    expect(table.has('servers/6001.json')).toBe(false);
  });
});

describe('validator columns of a table derived from the previous snapshot', () => {
  it('hold the same rows whether entries are copied as blocks or row by row: kept, confirmed, replaced, dropped and added alike', () => {
    const base = new FileTable();
    for (let n = 0; n < 40; n++) {
      const etag = n % 5 === 0 ? `"other-${n}"` : n % 5 === 1 ? `W/"${n.toString(16).padStart(32, '0')}"` : n % 5 === 2 ? `"${n.toString(16).padStart(32, '0')}"` : undefined;
      base.set(`servers/${String(n).padStart(2, '0')}.json`, hex((n % 10).toString()), n, { etag, lastModified: n % 7 === 0 ? 'Mon, 23 Nov 2026 10:00:00 GMT' : undefined, item: n % 3 === 0 ? item : undefined, seen: n % 4, refs: n % 6 === 0 ? `servers:${n + 1}` : undefined });
    }
    const table = FileTable.over(base);
    for (let j = 0; j < base.size; j++) if (j !== 37) table.holdBase(j, base.path(j));
    table.confirm(base.indexOf('servers/05.json')!, 9);
    table.confirm(base.indexOf('servers/30.json')!, 11);
    table.set('servers/35.json', hex('f'), 99, { etag: '"replaced"', seen: 12 });
    table.set('servers/99.json', hex('e'), 7, { etag: 'W/"added"', item, refs: 'servers:1' });

    const order = table.sortedIndexes();
    // The first 35 rows are the base's own: one block.
    expect(order.slice(0, 36)).toEqual([...Array.from({ length: 35 }, (_, n) => n), 40]);
    const rowByRow = new FileTable();
    for (const i of order) rowByRow.set(table.path(i), table.sha256(i), table.fileSize(i), table.validators(i));
    expect(table.validatorColumns(order)).toEqual(rowByRow.validatorColumns(rowByRow.sortedIndexes()));
  });
});

describe('walking a table of many files without making their paths', () => {
  it('finds the same folders and record counts as the paths themselves give, across joined chunks and a derived table', () => {
    const paths = ['servers.json', '_meta/filters.json', 'servers/by_os/7.json', 'servers//1.json', 'servers/x/.json', 'servers/a.jsonx', 'constructor/1.json', 'servers/.json'];
    for (let n = 0; n < 9000; n++) paths.push(`${['servers', 'databases', 'operating_systems'][n % 3]}/${n}.json`);
    paths.push('appservers/9.json', 'index.html');
    const base = new FileTable(16);
    for (const path of paths) base.set(path, 'ab'.repeat(32), 1);
    const derived = FileTable.over(base);
    for (const path of paths.slice(0, 5000)) derived.copyFrom(base, base.indexOf(path)!);
    derived.set('applications/new.json', 'cd'.repeat(32), 2);

    for (const table of [base, derived]) {
      const listed = [...table.paths()];
      const inFolder = new Map<string, number>();
      for (const path of listed) {
        const folder = path.slice(0, Math.max(0, path.lastIndexOf('/')));
        inFolder.set(folder, (inFolder.get(folder) ?? 0) + 1);
      }
      expect(foldersOf(table.pathSpans())).toEqual(inFolder);
      const counts = countRecords(table.pathSpans());
      for (const resource of RESOURCE_NAMES) expect([resource, counts[resource]]).toEqual([resource, listed.filter((path) => recordResource(path) === resource).length]);
    }
    expect(countRecords(base.pathSpans())).toEqual({ servers: 3000, databases: 3000, operating_systems: 3000, appservers: 1, applications: 0 });
    expect(recordResource('servers//1.json')).toBeUndefined();
    expect(recordResource('servers/.json')).toBeUndefined();
  });
});
