/**
 * Records to response bodies. The service is a Rails app: compact JSON, fields in the order the
 * spec lists them, and a weak ETag over the body. List items are derived from the single view
 * by dropping the fields the spec documents as single-only.
 */
import { createHash } from 'node:crypto';
import { RESOURCES, type ResourceName } from '../spec/resources.js';
import type { View } from './data.js';
import { hashString } from './random.js';
import { APP_OWNERS } from './vocab.js';

/** A rendered 200 body with its ETag. */
export interface Body {
  data: Buffer;
  etag: string;
}

/** Wraps a JSON text as a body with a Rails-style weak ETag. */
export function toBody(json: string): Body {
  const data = Buffer.from(json, 'utf8');
  return { data, etag: `W/"${createHash('md5').update(data).digest('hex')}"` };
}

/** The list item of a record: the single view without its single-only fields. */
export function listItem(resource: ResourceName, view: View): Record<string, unknown> {
  if (resource === 'servers') {
    const { ip: _ip, ...item } = view;
    return item;
  }
  if (resource === 'databases') {
    const { servers: _servers, ...item } = view;
    if (Array.isArray(item.instances)) {
      item.instances = item.instances.map((instance: unknown) => {
        if (typeof instance !== 'object' || instance === null) return instance;
        const { config: _config, databases: _databases, ...rest } = instance as Record<string, unknown>;
        return rest;
      });
    }
    return item;
  }
  return view;
}

/**
 * Fields the spec does not list, as a real service grows them. They derive from the record's
 * content, so they stay byte-stable and change exactly when the record does.
 */
export function extraFields(resource: ResourceName, view: View): Record<string, unknown> {
  const hash = hashString(`${resource}\u0000${JSON.stringify(view)}`);
  const updatedAt = new Date(Date.UTC(2026, 0, 1) + (hash % (365 * 86_400)) * 1000).toISOString();
  return {
    updated_at: updatedAt,
    meta: { source: 'inventory-sim', revision: (hash % 97) + 1, owner: { team: APP_OWNERS[hash % APP_OWNERS.length], contact: null } },
    tags: ['managed', resource],
  };
}

/** Appends `extra`'s fields that `record` does not already have. */
function withExtra(record: Record<string, unknown>, extra: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!extra) return record;
  const out = { ...record };
  for (const [key, value] of Object.entries(extra)) if (!(key in out)) out[key] = value;
  return out;
}

/** A record rendered once: its list-item JSON and its single-view body. */
export interface Rendered {
  item: string;
  single: Body;
  /** The extra fields given to this record, reused when a list item gains `servers`. */
  extra: Record<string, unknown> | undefined;
}

/** Renders one record for the list and the single endpoint. */
export function renderRecord(resource: ResourceName, view: View, withExtras: boolean): Rendered {
  const extra = withExtras ? extraFields(resource, view) : undefined;
  const singular = RESOURCES[resource].singular;
  return {
    item: JSON.stringify(withExtra(listItem(resource, view), extra)),
    single: toBody(`{${JSON.stringify(singular)}:${JSON.stringify(withExtra(view, extra))}}`),
    extra,
  };
}

/** A database list item with `servers` after the documented fields (`include=servers`). */
export function databaseItemWithServers(view: View, extra: Record<string, unknown> | undefined): string {
  return JSON.stringify(withExtra({ ...listItem('databases', view), servers: view.servers ?? [] }, extra));
}

/** The list body from already rendered item JSONs. */
export function listBody(resource: ResourceName, items: readonly string[]): Body {
  return toBody(`{${JSON.stringify(resource)}:[${items.join(',')}]}`);
}
