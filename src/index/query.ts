/**
 * List queries over a published snapshot, pure: (resource, query string, the snapshot's lists and
 * views) → the records the service would list, or the parameter the mirror cannot answer for.
 * Precomputed views answer the filters only the service can evaluate; substring filters are
 * evaluated on the list records; several parameters combine with AND, in list order.
 */
import { RESOURCES, type FilterSpec, type ResourceName } from '../spec/resources.js';
import type { RawRecord } from '../spec/schemas.js';

/** What a query needs from a snapshot. */
export interface QuerySource {
  /** The list records, in the service's list order. */
  list(resource: ResourceName): readonly RawRecord[];
  /** The records of a precomputed view (`_filter` file), or undefined when the snapshot has none. */
  view(resource: ResourceName, param: string, value: string): readonly RawRecord[] | undefined;
}

/** A list query reduced to the resource's own parameters: unknown ones dropped, the last repeat kept. */
export interface ListQuery {
  /** Canonical text, equal for queries that must give the same answer. */
  key: string;
  params: ReadonlyMap<string, string>;
}

/** A parameter value the mirror does not hold an answer for. */
export interface QueryRefusal {
  param: string;
  message: string;
}

export type QueryResult = { ok: true; records: readonly RawRecord[] } | ({ ok: false } & QueryRefusal);

/** Keeps the parameters the resource knows (the service ignores the others); the last repeat wins. */
export function normalizeListQuery(resource: ResourceName, search: URLSearchParams): ListQuery {
  const known = new Set(RESOURCES[resource].filters.map((f) => f.param));
  const params = new Map<string, string>();
  for (const [name, value] of search) if (known.has(name)) params.set(name, value);
  const key = [...params]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
  return { key, params };
}

/** Whether a filter's value is matched as free text (and so evaluated here rather than looked up). */
export function isSubstringFilter(resource: ResourceName, param: string): boolean {
  return RESOURCES[resource].filters.some((f) => f.param === param && f.values.kind === 'substring');
}

const refuse = (param: string, message: string): QueryResult => ({ ok: false, param, message });

type Condition = { ids: ReadonlySet<string> } | { field: string; term: string } | QueryRefusal | 'none';

function idsOf(records: readonly RawRecord[]): Set<string> {
  return new Set(records.map((r) => r.id));
}

/** How one parameter narrows the list: by a view's ids, by a substring, to nothing, or refused. */
function condition(resource: ResourceName, filter: FilterSpec, value: string, source: QuerySource, caseSensitive: boolean): Condition {
  const { param } = filter;
  const kind = filter.values.kind;
  if (kind === 'substring') return { field: filter.values.field, term: caseSensitive ? value : value.toLowerCase() };
  const view = source.view(resource, param, value);
  if (view) return { ids: idsOf(view) };
  switch (kind) {
    case 'os-ids':
      // Every operating-system id has its view; a value that is none of them matches nothing.
      if (source.list('operating_systems').some((os) => os.id === value)) {
        return { param, message: `the mirror lacks the view ${param}=${value} although that operating system exists; run sync again` };
      }
      return 'none';
    case 'field':
      // Every value seen in the list has its view; any other value matches nothing.
      return 'none';
    case 'fixed':
      return { param, message: `${param} must be one of ${filter.values.values.join(', ')}` };
    case 'config':
      return {
        param,
        message: `the mirror holds no view for ${param}=${JSON.stringify(value)}; list the value under filters.${resource}.${param} in the config and sync again`,
      };
  }
}

function matches(value: unknown, term: string, caseSensitive: boolean): boolean {
  if (typeof value !== 'string') return false;
  return (caseSensitive ? value : value.toLowerCase()).includes(term);
}

/**
 * Evaluates a normalized query on a snapshot. `include=servers` takes its records from that view;
 * any other `include` value is refused, since the mirror cannot know what it would add.
 */
export function evaluateListQuery(resource: ResourceName, query: ListQuery, source: QuerySource, options: { caseSensitive?: boolean } = {}): QueryResult {
  const caseSensitive = options.caseSensitive ?? false;
  let base: readonly RawRecord[] = source.list(resource);
  const conditions: ({ ids: ReadonlySet<string> } | { field: string; term: string })[] = [];
  let empty = false;
  for (const filter of RESOURCES[resource].filters) {
    const value = query.params.get(filter.param);
    if (value === undefined) continue;
    if (filter.param === 'include') {
      const view = value.split(',').every((part) => part === 'servers') ? source.view(resource, 'include', 'servers') : undefined;
      if (!view) return refuse('include', `include=${JSON.stringify(value)} is not held by the mirror; it holds include=servers only`);
      base = view;
      continue;
    }
    const found = condition(resource, filter, value, source, caseSensitive);
    if (found === 'none') empty = true;
    else if ('message' in found) return refuse(found.param, found.message);
    else conditions.push(found);
  }
  if (empty) return { ok: true, records: [] };
  if (conditions.length === 0) return { ok: true, records: base };
  const records = base.filter((record) => conditions.every((c) => ('ids' in c ? c.ids.has(record.id) : matches(record[c.field], c.term, caseSensitive))));
  return { ok: true, records };
}
