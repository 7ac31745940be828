/**
 * List-endpoint query evaluation, pure: (dataset, resource, query) → the matching ids in list
 * order, or the parameter that was malformed. Substring filters come from the spec table;
 * the filters on hidden server attributes are written out here.
 */
import { RESOURCES, type ResourceName } from '../spec/resources.js';
import type { Dataset, ServerHidden, View } from './data.js';

/** A list query reduced to the parameters the resource knows, the last value of each. */
interface Query {
  /** Canonical text of the query, equal for queries that must give the same answer. */
  key: string;
  params: ReadonlyMap<string, string>;
}

/** The outcome of a list query. */
type FilterResult =
  | { ok: true; ids: string[]; includeServers: boolean }
  | { ok: false; param: string; message: string };

/** Keeps the resource's own parameters (unknown ones are ignored, as Rails does); the last repeat wins. */
export function normalizeQuery(resource: ResourceName, search: URLSearchParams): Query {
  const known = new Set(RESOURCES[resource].filters.map((f) => f.param));
  const params = new Map<string, string>();
  for (const [name, value] of search) {
    if (!known.has(name)) continue;
    params.set(name, value);
  }
  // `include` takes a comma list of which only `servers` exists yet; other values change nothing.
  const include = params.get('include');
  if (include !== undefined) {
    if (include.split(',').includes('servers')) params.set('include', 'servers');
    else params.delete('include');
  }
  const key = [...params].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return { key, params };
}

type Predicate = (view: View, id: string) => boolean;

const includes = (value: unknown, term: string): boolean => typeof value === 'string' && value.toLowerCase().includes(term.toLowerCase());

const LOCATION = /^(site|room|rack):(.+)$/;

/** The ids of `systemId` and every system below it; empty for an unknown id. */
export function systemAndDescendants(dataset: Dataset, systemId: string): Set<string> {
  const out = new Set<string>();
  if (!dataset.systems.has(systemId)) return out;
  for (const id of dataset.systems.keys()) {
    const seen = new Set<string>();
    for (let at: string | null | undefined = id; at != null && !seen.has(at); at = dataset.systems.get(at)?.parentId) {
      seen.add(at);
      if (at === systemId) {
        out.add(id);
        break;
      }
    }
  }
  return out;
}

/** One predicate per hidden-attribute filter of /servers.json, or the reason the value is malformed. */
function serverPredicate(dataset: Dataset, param: string, value: string): Predicate | { message: string } | undefined {
  const hidden = (test: (h: ServerHidden) => boolean): Predicate => (_view, id) => {
    const h = dataset.servers.get(id);
    return h !== undefined && test(h);
  };
  switch (param) {
    case 'by_virtual':
      if (value !== '0' && value !== '1') return { message: 'expected 0 or 1' };
      return hidden((h) => h.virtual === (value === '1'));
    case 'by_location': {
      const match = LOCATION.exec(value);
      if (!match) return { message: 'expected site:<id>, room:<id> or rack:<id>' };
      const [, scope, id] = match;
      return hidden((h) => (scope === 'site' ? h.siteId : scope === 'room' ? h.roomId : h.rackId) === id);
    }
    case 'by_maintainer':
      return hidden((h) => h.maintainerId === value);
    case 'by_serial_number':
      return hidden((h) => h.serialNumber === value);
    case 'by_arch':
      return hidden((h) => h.arch !== null && h.arch.toLowerCase() === value.toLowerCase());
    case 'by_fullmodel':
      return hidden((h) => includes(h.manufacturer, value) || includes(h.model, value));
    case 'by_system': {
      const systems = systemAndDescendants(dataset, value);
      return hidden((h) => h.osId !== null && systems.has(h.osId));
    }
    default:
      return undefined;
  }
}

/** A field's value as the list shows it; substring filters match what the client sees in the list. */
type ListValue = (view: View, field: string) => unknown;

/** Evaluates a normalized query: every parameter must hold (AND); list order is kept. */
export function evaluateQuery(dataset: Dataset, resource: ResourceName, query: Query, listValue: ListValue = (view, field) => view[field]): FilterResult {
  const predicates: Predicate[] = [];
  for (const filter of RESOURCES[resource].filters) {
    const value = query.params.get(filter.param);
    if (value === undefined) continue;
    if (filter.values.kind === 'substring') {
      const field = filter.values.field;
      predicates.push((view) => includes(listValue(view, field), value));
    } else if (resource === 'servers') {
      const predicate = serverPredicate(dataset, filter.param, value);
      if (predicate && 'message' in predicate) return { ok: false, param: filter.param, message: predicate.message };
      if (predicate) predicates.push(predicate);
    } else if (filter.param === 'by_type') {
      predicates.push((view) => view.type === value);
    }
  }
  const views = dataset.views[resource];
  const ids = dataset.order[resource].filter((id) => {
    const view = views.get(id)!;
    return predicates.every((p) => p(view, id));
  });
  return { ok: true, ids, includeServers: resource === 'databases' && query.params.get('include') === 'servers' };
}
