/**
 * Which filtered views a snapshot holds: every value the data reveals (operating-system ids for
 * `by_system`, database types for `by_type`), the closed sets (`by_virtual` 0/1,
 * `include=servers`), and the configured values of filters that cannot be discovered. Pure.
 */
import type { FilterSettings } from '../config/schema.js';
import { RESOURCE_NAMES, RESOURCES, type ResourceName } from '../spec/resources.js';
import type { RawRecord } from '../spec/schemas.js';

export interface ViewKey {
  resource: ResourceName;
  param: string;
  value: string;
}

/** The filtered views to fetch, given the full lists. Sorted, without duplicates. */
export function planViews(lists: Readonly<Record<ResourceName, readonly RawRecord[]>>, configured: FilterSettings): ViewKey[] {
  const views: ViewKey[] = [];
  for (const resource of RESOURCE_NAMES) {
    for (const filter of RESOURCES[resource].filters) {
      const add = (values: Iterable<string>): void => {
        for (const value of new Set(values)) views.push({ resource, param: filter.param, value });
      };
      switch (filter.values.kind) {
        case 'os-ids':
          add(lists.operating_systems.map((os) => os.id));
          break;
        case 'fixed':
          add(filter.values.values);
          break;
        case 'field': {
          const field = filter.values.field;
          add(lists[resource].map((r) => r[field]).filter((v): v is string => typeof v === 'string' && v.length > 0));
          break;
        }
        case 'config':
          add((configured as Record<string, Record<string, string[]> | undefined>)[resource]?.[filter.param] ?? []);
          break;
        case 'substring':
          break;
      }
    }
  }
  return views.sort((a, b) => compare(a.resource, b.resource) || compare(a.param, b.param) || compare(a.value, b.value));
}

/** Code-unit order: the same on every machine and locale. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
