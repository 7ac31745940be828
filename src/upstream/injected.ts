/**
 * What the service's bodies hold that the API document does not promise, in the mirror's
 * finding vocabulary: the ground truth a sync's quality report can be checked against. It is
 * found by looking at the current records as the profile renders them, not recalled from what
 * was drawn, so it stays right after mutations and putRecord.
 */
import { fieldName, schemaIssues } from '../spec/check.js';
import { compareIds } from '../spec/ids.js';
import { RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import type { Dataset } from './data.js';
import type { Fields, Profile } from './profile.js';

/** The kinds of finding. `missing` (a documented field absent) only comes from records given to putRecord. */
type InjectedCode = 'null' | 'wrong_type' | 'missing' | 'view_mismatch' | 'dangling_ref' | 'server_list_mismatch';

/** One kind of deviation on one field, with the records that show it. */
interface InjectedFinding {
  resource: ResourceName;
  /** A top-level field name; inside it, dots and `[]` for arrays, e.g. `instances[].listen_port`. */
  field: string;
  code: InjectedCode;
  /** In list order. */
  ids: string[];
}

/** Top-level fields only one of a resource's views carries. */
interface ViewShape {
  listOnly: string[];
  singleOnly: string[];
}

/** Findings sorted by resource, field and code; shape only for the resources whose views differ. */
export interface InjectedReport {
  findings: InjectedFinding[];
  shape: Partial<Record<ResourceName, ViewShape>>;
}

/** Fields the API document itself declares single-only: no shape difference. */
const DOCUMENTED_SINGLE_ONLY: Partial<Record<ResourceName, readonly string[]>> = { servers: ['ip'], databases: ['servers'] };

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether a list value agrees with the single view's: the single view may add keys at any depth
 * (each database instance gains `config`), so the list value must be contained in it.
 */
function contained(list: unknown, single: unknown): boolean {
  if (isObject(list) && isObject(single)) return Object.keys(list).every((key) => key in single && contained(list[key], single[key]));
  if (Array.isArray(list) && Array.isArray(single)) return list.length === single.length && list.every((value, i) => contained(value, single[i]));
  return list === single;
}

function valueAt(record: unknown, path: readonly PropertyKey[]): unknown {
  let value: unknown = record;
  for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

/** Collects the ids per (resource, field, code). */
class Findings {
  private readonly ids = new Map<string, { resource: ResourceName; field: string; code: InjectedCode; ids: Set<string> }>();

  add(resource: ResourceName, field: string, code: InjectedCode, id: string): void {
    const key = `${resource}\u0000${field}\u0000${code}`;
    let entry = this.ids.get(key);
    if (!entry) this.ids.set(key, (entry = { resource, field, code, ids: new Set() }));
    entry.ids.add(id);
  }

  sorted(): InjectedFinding[] {
    const text = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
    const order = (a: InjectedFinding, b: InjectedFinding): number => text(a.resource, b.resource) || text(a.field, b.field) || text(a.code, b.code);
    return [...this.ids.values()].map(({ ids, ...rest }) => ({ ...rest, ids: [...ids].sort(compareIds) })).sort(order);
  }
}

const codeFor = (value: unknown): InjectedCode => (value === null ? 'null' : value === undefined ? 'missing' : 'wrong_type');

/** Documented fields that are null, of another type, or absent, judged by the spec's schemas. */
function typeFindings(findings: Findings, resource: ResourceName, view: 'list' | 'single', record: Fields & { id: string }): void {
  for (const path of schemaIssues(resource, view, record)) findings.add(resource, fieldName(path), codeFor(valueAt(record, path)), record.id);
}

/** The servers records may name: ids for appservers, names for databases. */
interface Servers {
  ids: ReadonlyMap<string, unknown>;
  names: ReadonlySet<unknown>;
}

/** Appservers and databases naming servers that do not exist, and database views whose `servers` do not match their names. */
function referenceFindings(findings: Findings, servers: Servers, resource: ResourceName, single: Fields & { id: string }): void {
  if (resource === 'appservers' && typeof single.server_id === 'string' && !servers.ids.has(single.server_id)) {
    findings.add(resource, 'server_id', 'dangling_ref', single.id);
  }
  if (resource !== 'databases' || !Array.isArray(single.server_names)) return;
  const names = single.server_names as unknown[];
  if (names.some((name) => !servers.names.has(name))) findings.add(resource, 'server_names', 'dangling_ref', single.id);
  const entries = Array.isArray(single.servers) ? (single.servers as unknown[]) : [];
  const listed = entries.map((server) => (isObject(server) ? server.name : undefined));
  const sameNames = [...listed].sort().join('\u0000') === [...names].sort().join('\u0000');
  if (entries.length !== names.length || !sameNames) findings.add(resource, 'servers', 'server_list_mismatch', single.id);
}

/** The report for the records as they are now. */
export function computeInjected(dataset: Dataset, profile: Profile): InjectedReport {
  const findings = new Findings();
  const shape: InjectedReport['shape'] = {};
  const servers: Servers = { ids: dataset.views.servers, names: new Set([...dataset.views.servers.values()].map((view) => view.name)) };
  for (const resource of [...RESOURCE_NAMES].sort()) {
    const listOnly = new Set<string>();
    const singleOnly = new Set<string>();
    for (const id of dataset.order[resource]) {
      const view = dataset.views[resource].get(id)!;
      const item = profile.item(resource, view) as Fields & { id: string };
      const single = profile.single(resource, view) as Fields & { id: string };
      typeFindings(findings, resource, 'list', item);
      typeFindings(findings, resource, 'single', single);
      for (const key of Object.keys(item)) {
        if (!(key in single)) listOnly.add(key);
        else if (!contained(item[key], single[key])) findings.add(resource, key, 'view_mismatch', id);
      }
      for (const key of Object.keys(single)) if (!(key in item) && !DOCUMENTED_SINGLE_ONLY[resource]?.includes(key)) singleOnly.add(key);
      referenceFindings(findings, servers, resource, single);
    }
    if (listOnly.size + singleOnly.size > 0) shape[resource] = { listOnly: [...listOnly].sort(), singleOnly: [...singleOnly].sort() };
  }
  return { findings: findings.sorted(), shape };
}
