/**
 * Record names beside ids in findings (the summary, --warnings-file, _meta/quality.json): a person
 * reading `12` must look it up, `12 (web-01)` they know. Names come from the lists, the same
 * bytes from run to run, so what carries them stays deterministic.
 */
import type { ResourceName } from '../spec/resources.js';
import { HashSet, RowIndex } from '../util/string-set.js';
import type { FindingGroup } from '../validate/findings.js';
import type { ListSummary } from './lists.js';

/** Names by id. */
type Names = Pick<ReadonlyMap<string, string>, 'get'>;

/**
 * The names of one list's records by id, for the ids `wanted` holds (all when undefined), in one
 * pass over it: an index of their rows in the list, not a map of id and name strings (a quarter of
 * a million findings at 200 000 servers, at the moment a sync peaks in memory).
 */
function namesIn(list: ListSummary, wanted: HashSet | undefined): Names {
  const rows = new RowIndex(list.ids, wanted?.size ?? list.ids.length);
  for (let n = 0; n < list.ids.length; n++) {
    const hash = list.ids.hashAt(n);
    // A list's ids differ (the list pull refuses one twice): each row goes in as it is.
    if ((!wanted || wanted.hasHash(hash)) && list.nameAt.lengthAt(n) > 0) rows.addRow(n, hash);
  }
  return {
    get: (id) => {
      const n = rows.find(id);
      return n === undefined ? undefined : list.nameAt.at(n);
    },
  };
}

/** The groups, each with the names of its ids that have one; one pass per resource that has findings. */
export function withNames(groups: readonly FindingGroup[], lists: Record<ResourceName, ListSummary>): FindingGroup[] {
  const wanted = new Map<ResourceName, ReturnType<typeof HashSet.builder>>();
  for (const group of groups) {
    const ids = wanted.get(group.resource) ?? HashSet.builder();
    for (const id of group.ids) ids.add(id);
    wanted.set(group.resource, ids);
  }
  const names = new Map([...wanted].map(([resource, ids]) => [resource, namesIn(lists[resource], ids.build())]));
  return groups.map((group) => ({ ...group, names: names.get(group.resource)! }));
}

/**
 * A record's name by id, for findings written as they are made (--warnings-file): each resource's
 * names are read from its list on first use, and only then.
 */
export function nameLookup(lists: Record<ResourceName, ListSummary>): (resource: ResourceName, id: string) => string | undefined {
  const maps = new Map<ResourceName, Names>();
  return (resource, id) => {
    let names = maps.get(resource);
    if (!names) {
      names = namesIn(lists[resource], undefined);
      maps.set(resource, names);
    }
    return names.get(id);
  };
}
