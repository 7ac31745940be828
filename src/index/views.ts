/**
 * Which filtered views a snapshot holds: every value the data reveals (operating-system ids for
 * `by_system`, database types for `by_type`), the closed sets (`by_virtual` 0/1,
 * `include=servers`), and the configured values of filters that cannot be discovered. Pure.
 */
import type { FilterSettings } from '../config/schema.js';
import { RESOURCE_NAMES, RESOURCES, type FilterSpec, type ResourceName } from '../spec/resources.js';
import { compareCodeUnits } from '../util/order.js';

export interface ViewKey {
  resource: ResourceName;
  param: string;
  value: string;
}

/** What the lists revealed: the operating-system ids, and the values of a `field` filter's field. */
interface Discovered {
  osIds: readonly string[];
  fieldValues(resource: ResourceName, field: string): Iterable<string>;
}

/** The configured values of a `config` filter. */
function configuredValues(configured: FilterSettings, resource: ResourceName, param: string): readonly string[] {
  const section = (configured as Record<string, Record<string, string[]> | undefined>)[resource];
  return section && Object.hasOwn(section, param) ? section[param]! : [];
}

function valuesOf(resource: ResourceName, filter: FilterSpec, discovered: Discovered, configured: FilterSettings): Iterable<string> {
  switch (filter.values.kind) {
    case 'os-ids':
      return discovered.osIds;
    case 'fixed':
      return filter.values.values;
    case 'field':
      return discovered.fieldValues(resource, filter.values.field);
    case 'config':
      return configuredValues(configured, resource, filter.param);
    case 'substring':
      return [];
  }
}

/**
 * The filtered views to fetch, of the resources mirrored (default all). Sorted, without duplicates.
 * Without operating_systems there are no ids to discover, so servers get no by_system views.
 */
export function planViews(discovered: Discovered, configured: FilterSettings, resources: readonly ResourceName[] = RESOURCE_NAMES): ViewKey[] {
  const views: ViewKey[] = [];
  for (const resource of resources) {
    for (const filter of RESOURCES[resource].filters) {
      for (const value of new Set(valuesOf(resource, filter, discovered, configured))) views.push({ resource, param: filter.param, value });
    }
  }
  return views.sort((a, b) => compareCodeUnits(a.resource, b.resource) || compareCodeUnits(a.param, b.param) || compareCodeUnits(a.value, b.value));
}

/** How a view names itself in messages and findings: `?by_system=3`. */
export function viewLabel(view: ViewKey): string {
  return `?${view.param}=${view.value}`;
}
