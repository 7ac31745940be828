/**
 * Record names beside ids in findings (the summary, --warnings-file, _meta/quality.json): a person
 * reading `12` must look it up, `12 (web-01)` they know. Names come from the lists, the same
 * bytes from run to run, so what carries them stays deterministic.
 */
import type { ResourceName } from '../spec/resources.js';
import type { FindingGroup } from '../validate/findings.js';
import type { ListSummary } from './lists.js';

/** The names of `wanted` ids of one list (those with a name), in one pass over it. */
function namesIn(list: ListSummary, wanted: (id: string) => boolean): Map<string, string> {
  const names = new Map<string, string>();
  for (let n = 0; n < list.ids.length; n++) {
    const name = list.nameAt.at(n);
    if (!name) continue;
    const id = list.ids.at(n);
    if (wanted(id) && !names.has(id)) names.set(id, name);
  }
  return names;
}

/** The groups, each with the names of its ids that have one; one pass per resource that has findings. */
export function withNames(groups: readonly FindingGroup[], lists: Record<ResourceName, ListSummary>): FindingGroup[] {
  const wanted = new Map<ResourceName, Set<string>>();
  for (const group of groups) {
    const ids = wanted.get(group.resource) ?? new Set<string>();
    for (const id of group.ids) ids.add(id);
    wanted.set(group.resource, ids);
  }
  const names = new Map([...wanted].map(([resource, ids]) => [resource, namesIn(lists[resource], (id) => ids.has(id))]));
  return groups.map((group) => ({ ...group, names: names.get(group.resource)! }));
}

/**
 * A record's name by id, for findings written as they are made (--warnings-file): each resource's
 * names are read from its list on first use, and only then.
 */
export function nameLookup(lists: Record<ResourceName, ListSummary>): (resource: ResourceName, id: string) => string | undefined {
  const maps = new Map<ResourceName, Map<string, string>>();
  return (resource, id) => {
    let names = maps.get(resource);
    if (!names) {
      names = namesIn(lists[resource], () => true);
      maps.set(resource, names);
    }
    return names.get(id);
  };
}
