/**
 * A profile decides how the service's records become list items and single views. `exact`
 * renders what the API document lists and nothing else; `realistic` (realistic.ts) renders the
 * way the real CMDB does, with its extra fields, nulls and inconsistencies.
 */
import type { ResourceName } from '../spec/resources.js';
import type { View } from './data.js';

export const PROFILES = ['realistic', 'exact'] as const;
export type ProfileName = (typeof PROFILES)[number];

/** A JSON object whose keys are in rendering order. */
export type Fields = Record<string, unknown>;

/** How the service renders, and what it does to the records it holds. */
export interface Profile {
  readonly name: ProfileName;
  /** A record entering the data (generated or added by a mutation) with the profile's data quirks; may change `view` in place. */
  admit(resource: ResourceName, view: View): View;
  /** A save of the record at logical time `clock` (1, 2, …): later saves render later `updated_at`. */
  touch(resource: ResourceName, id: string, clock: number): void;
  /** The list item of a record. */
  item(resource: ResourceName, view: View): Fields;
  /** The single view of a record. */
  single(resource: ResourceName, view: View): Fields;
  /** The value of a field as the list shows it, which list filters match against. */
  listValue(resource: ResourceName, view: View, field: string): unknown;
  /** How `include=servers` adds servers to a database list item: its `servers` references, or each server's list item. */
  readonly includeServers: 'references' | 'list-items';
  /** Resources whose rendering reads records of `resource` (and must be rendered again when one changes). */
  dependents(resource: ResourceName): readonly ResourceName[];
}

/** The list item the API document describes: the single view without its documented single-only fields. */
export function documentedItem(resource: ResourceName, view: View): Fields {
  if (resource === 'servers') {
    const { ip: _ip, ...item } = view;
    return item;
  }
  if (resource === 'databases') {
    const { servers: _servers, ...item } = view;
    if (Array.isArray(item.instances)) {
      item.instances = item.instances.map((instance: unknown) => {
        if (typeof instance !== 'object' || instance === null) return instance;
        const { config: _config, databases: _databases, ...rest } = instance as Fields;
        return rest;
      });
    }
    return item;
  }
  return view;
}

/** The spec-exact rendering: records as stored, list items by dropping documented single-only fields. */
export const exactProfile: Profile = {
  name: 'exact',
  admit: (_resource, view) => view,
  touch: () => undefined,
  item: documentedItem,
  single: (_resource, view) => view,
  listValue: (_resource, view, field) => view[field],
  includeServers: 'references',
  dependents: () => [],
};
