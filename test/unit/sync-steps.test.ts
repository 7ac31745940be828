/**
 * The pure steps of a sync, without a network: what the plan asks the service for each body,
 * and the assembly's decisions: the lists without the records that answered 404, mass removal.
 */
import { describe, expect, it } from 'vitest';
import { finalLists, massRemovalProblem } from '../../src/sync/assemble.js';
import { itemDigest, ItemDigests, type ListSummary } from '../../src/sync/list-summary.js';
import { plan, Reason, recordValidators } from '../../src/sync/plan.js';
import { filterFile, recordFile } from '../../src/snapshot/paths.js';
import { FileTable } from '../../src/snapshot/table.js';
import { RESOURCE_NAMES, type ResourceName } from '../../src/spec/resources.js';
import { StringList } from '../../src/util/string-set.js';

const ITEM = Buffer.from('{"id":"1","name":"web01"}');
const validators = { etag: '"e1"', lastModified: 'Mon, 23 Nov 2026 10:00:00 GMT', item: itemDigest(ITEM) };
const asked = { etag: '"e1"', lastModified: 'Mon, 23 Nov 2026 10:00:00 GMT' };

/** A list as the plan reads it: its ids and, when read from a body, its items' digests. */
function list(resource: ResourceName, items: [string, Buffer][] | undefined, changed = true): ListSummary {
  const ids = new StringList();
  const digests = items ? new ItemDigests() : undefined;
  for (const [id, item] of items ?? []) {
    ids.push(id);
    digests!.push(item);
  }
  return { resource, ids, changed, digests } as ListSummary;
}

function lists(servers: ListSummary): Record<ResourceName, ListSummary> {
  return Object.fromEntries(RESOURCE_NAMES.map((r) => [r, r === 'servers' ? servers : list(r, [])])) as Record<ResourceName, ListSummary>;
}

/** A previous snapshot's table: servers 1 (checked against ITEM, with validators), 2 (no validators), 3 (checked against another item). */
function previousTable(): FileTable {
  const table = new FileTable();
  table.set(recordFile('servers', '1'), '0'.repeat(64), 10, validators);
  table.set(recordFile('servers', '2'), '0'.repeat(64), 10, { item: itemDigest(ITEM) });
  table.set(recordFile('servers', '3'), '0'.repeat(64), 10, { ...validators, item: itemDigest(Buffer.from('{"id":"3"}')) });
  table.set(filterFile('servers', 'by_virtual', '1'), '0'.repeat(64), 10, { etag: '"v1"' });
  return table;
}

const views = [{ resource: 'servers' as const, param: 'by_virtual', value: '1' }];

describe('the plan', () => {
  it('fetches every record of a first sync whole, as new', () => {
    const planned = plan({ previous: undefined, cached: false, quality: false, lists: lists(list('servers', [['1', ITEM]])), views });
    expect([...planned.records.servers.reasons]).toEqual([Reason.New]);
    expect(planned.views[0]).toEqual({ view: views[0], validators: undefined, recheck: true });
    expect(planned.carry).toBe(false);
  });

  it('asks "changed since?" only for a record checked against its very list item, with validators and findings to carry over', () => {
    const previous = previousTable();
    const servers = list('servers', [['1', ITEM], ['2', ITEM], ['3', Buffer.from('{"id":"3","name":"renamed"}')], ['4', ITEM]]);
    const planned = plan({ previous, cached: true, quality: true, lists: lists(servers), views });
    expect([...planned.records.servers.reasons]).toEqual([Reason.Recheck, Reason.Unverified, Reason.Changed, Reason.New]);
    expect(recordValidators(planned.records.servers, 0, previous)).toEqual(asked);
    for (const n of [1, 2, 3]) expect(recordValidators(planned.records.servers, n, previous)).toBeUndefined();
    // The list changed: a 304 for the view is read again to check its members.
    expect(planned.views[0]).toMatchObject({ validators: { etag: '"v1"' }, recheck: true });
  });

  it('takes a list kept as it was (a 304) to hold the items its records were checked against', () => {
    const planned = plan({ previous: previousTable(), cached: true, quality: true, lists: lists(list('servers', undefined, false)), views });
    expect(planned.views[0]!.recheck).toBe(false);
  });

  it('fetches every record whole when the previous findings cannot be carried over, yet still asks for views', () => {
    const previous = previousTable();
    const planned = plan({ previous, cached: true, quality: false, lists: lists(list('servers', [['1', ITEM]], false)), views });
    expect([...planned.records.servers.reasons]).toEqual([Reason.Unverified]);
    expect(planned.views[0]).toMatchObject({ validators: { etag: '"v1"' }, recheck: true });
  });

  it('digests a list item by its bytes', () => {
    expect(itemDigest(ITEM)).toBe(validators.item);
    expect(itemDigest(Buffer.from('{"name":"web01","id":"1"}'))).not.toBe(validators.item);
  });
});

describe('assemble: the mass-removal guard', () => {
  const counts = (servers: number) => ({ applications: 10, databases: 10, operating_systems: 5, servers, appservers: 10 });
  const settings = { maxShare: 0.5, minPrevious: 100 };

  it('refuses a resource losing more than the share allowed, naming it', () => {
    expect(massRemovalProblem(counts(1000), counts(400), settings)).toEqual({ resource: 'servers', lost: 600, before: 1000, maxShare: 0.5 });
  });

  it('lets pass a loss within the share, and any loss of a resource too small to judge', () => {
    expect(massRemovalProblem(counts(1000), counts(500), settings)).toBeUndefined();
    expect(massRemovalProblem(counts(99), counts(0), settings)).toBeUndefined();
  });
});

describe('assemble: the lists and views without the records that answered 404', () => {
  const none = (): Record<ResourceName, string[]> => ({ applications: [], databases: [], operating_systems: [], servers: [], appservers: [] });
  const views = [
    { resource: 'servers' as const, param: 'by_virtual', value: '1' },
    { resource: 'servers' as const, param: 'by_system', value: 'debian' },
    { resource: 'databases' as const, param: 'by_type', value: 'mysql' },
  ];

  it('cuts the list and every view of a resource with a gone record, and nothing else', () => {
    const cuts = finalLists({ ...none(), servers: ['7', '9'] }, views);
    expect(cuts).toEqual([
      { file: 'servers.json', key: 'servers', without: new Set(['7', '9']) },
      { file: filterFile('servers', 'by_virtual', '1'), key: 'servers', without: new Set(['7', '9']) },
      { file: filterFile('servers', 'by_system', 'debian'), key: 'servers', without: new Set(['7', '9']) },
    ]);
  });

  it('leaves every file as the pull staged it when no record is gone', () => {
    expect(finalLists(none(), views)).toEqual([]);
  });
});
