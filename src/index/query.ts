/**
 * List queries over a published snapshot, pure. A query is first planned from what the snapshot
 * holds (which views exist, which ids the lists have): the answer, or the parameter the mirror
 * cannot answer for. The plan is then carried out on positions in a list: precomputed views keep
 * the records they list, substring filters are matched on the list's values, several parameters
 * combine with AND, and the answer keeps the list order.
 */
import { RESOURCES, type FilterSpec, type ResourceName } from '../spec/resources.js';

/** What planning needs to know of a snapshot. */
export interface QueryCatalog {
  /** Whether the snapshot holds the precomputed view (`_filter` file) for this parameter value. */
  hasView(resource: ResourceName, param: string, value: string): boolean;
  /** Whether the resource's list holds a record with this id. */
  hasRecord(resource: ResourceName, id: string): boolean;
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

/** How to answer a query from a snapshot. */
interface QueryPlan {
  /** The answer is the empty list, whatever else the query says. */
  empty: boolean;
  /** The records come from the `include=servers` view rather than from the list. */
  include: boolean;
  /** Views the records must all be in. */
  views: { param: string; value: string }[];
  /** Substring conditions: the field and the term, lowercased unless matching is case-sensitive. */
  substrings: { field: string; term: string }[];
}

type PlanResult = { ok: true; plan: QueryPlan } | ({ ok: false } & QueryRefusal);

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

const refuse = (param: string, message: string): PlanResult => ({ ok: false, param, message });

/** How one parameter without a view narrows the list: to nothing, or refused. */
function withoutView(resource: ResourceName, filter: FilterSpec, value: string, catalog: QueryCatalog): QueryRefusal | 'none' {
  const { param } = filter;
  switch (filter.values.kind) {
    case 'os-ids':
      // Every operating-system id has its view; a value that is none of them matches nothing.
      if (catalog.hasRecord('operating_systems', value)) {
        return { param, message: `the mirror lacks the view ${param}=${value} although that operating system exists; run sync again` };
      }
      return 'none';
    case 'field':
    case 'substring':
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

/**
 * Plans a normalized query. `include=servers` takes its records from that view; any other
 * `include` value is refused, since the mirror cannot know what it would add.
 */
export function planListQuery(resource: ResourceName, query: ListQuery, catalog: QueryCatalog, options: { caseSensitive?: boolean } = {}): PlanResult {
  const plan: QueryPlan = { empty: false, include: false, views: [], substrings: [] };
  for (const filter of RESOURCES[resource].filters) {
    const value = query.params.get(filter.param);
    if (value === undefined) continue;
    if (filter.param === 'include') {
      const held = value.split(',').every((part) => part === 'servers') && catalog.hasView(resource, 'include', 'servers');
      if (!held) return refuse('include', `include=${JSON.stringify(value)} is not held by the mirror; it holds include=servers only`);
      plan.include = true;
      continue;
    }
    if (filter.values.kind === 'substring') {
      plan.substrings.push({ field: filter.values.field, term: options.caseSensitive ? value : value.toLowerCase() });
      continue;
    }
    if (catalog.hasView(resource, filter.param, value)) {
      plan.views.push({ param: filter.param, value });
      continue;
    }
    const found = withoutView(resource, filter, value, catalog);
    if (found === 'none') plan.empty = true;
    else return refuse(found.param, found.message);
  }
  return { ok: true, plan };
}

/** A list as the selection sees it: a count of items and substring matching on their fields. */
export interface Selectable {
  readonly count: number;
  /** Items (ascending positions) whose `field` holds `term`; among `among` only, when given. */
  matching(field: string, term: string, among?: Int32Array): Int32Array;
}

/** The positions in both ascending lists. */
export function intersect(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(Math.min(a.length, b.length));
  let n = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      out[n++] = x;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return out.slice(0, n);
}

/**
 * The positions (ascending, so in list order) of the items a plan keeps, given the positions in
 * `list` of each of its views' records; 'all' when nothing narrows the list.
 */
export function selectPositions(list: Selectable, plan: QueryPlan, views: readonly Int32Array[]): Int32Array | 'all' {
  if (plan.empty) return new Int32Array(0);
  let kept: Int32Array | undefined;
  // Smallest view first: each intersection is then at most that long.
  for (const view of [...views].sort((a, b) => a.length - b.length)) kept = kept ? intersect(kept, view) : view;
  for (const { field, term } of plan.substrings) kept = list.matching(field, term, kept);
  return kept ?? 'all';
}
