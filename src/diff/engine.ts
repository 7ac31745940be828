/**
 * The diff engine: which records were added, removed or changed between two snapshots, and for a
 * changed record which fields differ. Pure: it takes file hashes and file contents and returns
 * plain data. A record is changed when its single-record file's bytes differ; where it sits in a
 * list does not matter, because list files are not compared.
 */
import { RESOURCE_NAMES, RESOURCES, type ResourceName } from '../spec/resources.js';
import { decodeJson } from '../json/encode.js';
import { decodeSegment, parseRecordFile, recordResource } from '../snapshot/paths.js';
import type { FileTable } from '../snapshot/table.js';
import { compareIds } from '../spec/ids.js';
import type { Quality } from '../validate/quality.js';
import type { ChangeSet, FieldChange } from './change-set.js';

export type { ChangeSet, FieldChange, FindingDelta, ResourceChanges } from './change-set.js';
import { isPlainObject, sameJson } from '../util/json-value.js';

/** Record files that differ between two snapshots, per resource, as relative paths. */
export type PathChanges = Record<ResourceName, { added: string[]; removed: string[]; changed: string[] }>;

interface ChangeCounts {
  added: number;
  removed: number;
  changed: number;
}


/** Classifies record files by hash between two snapshots' tables (the new one complete). */
export function classifyTables(before: FileTable | undefined, after: FileTable): PathChanges {
  const out = Object.fromEntries(RESOURCE_NAMES.map((r) => [r, { added: [], removed: [], changed: [] }])) as unknown as PathChanges;
  const classify = (i: number, path: string): void => {
    const resource = recordResource(path);
    if (!resource) return;
    const j = before?.indexOf(path);
    if (j === undefined) out[resource].added.push(path);
    else if (!after.sameBytes(i, before!, j)) out[resource].changed.push(path);
  };
  const removed = (path: string): void => {
    const resource = recordResource(path);
    if (resource) out[resource].removed.push(path);
  };
  // A table derived from `before` (a sync's new one) names what differs without a look at the rest.
  const delta = before && after.changesFrom(before);
  if (delta) {
    for (const i of delta.own) classify(i, after.path(i));
    for (const j of delta.dropped) removed(before!.path(j));
    return out;
  }
  for (const [i, path] of after.entries()) classify(i, path);
  for (const path of before?.paths() ?? []) if (!after.has(path)) removed(path);
  return out;
}

/** The id a record file's name stands for, or undefined when the name is a shortened long id. */
function nameId(path: string): string | undefined {
  const name = parseRecordFile(path)?.name;
  return name === undefined ? undefined : decodeSegment(name);
}

/** The record inside a single-record body (`{"server": {...}}`), else the body itself. */
function recordOf(resource: ResourceName, body: unknown): unknown {
  return isPlainObject(body) && isPlainObject(body[RESOURCES[resource].singular]) ? body[RESOURCES[resource].singular] : body;
}

/** The id from the record's `id` field when the file was read, else from its file name. */
function idOf(resource: ResourceName, path: string, body: unknown): string {
  const record = recordOf(resource, body);
  if (isPlainObject(record) && typeof record.id === 'string') return record.id;
  return nameId(path) ?? parseRecordFile(path)?.name ?? path;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  if (IDENTIFIER.test(key)) return parent ? `${parent}.${key}` : key;
  return `${parent}[${JSON.stringify(key)}]`;
}

/** The fields that differ between two JSON values, with nested paths such as `instances[2].version`. */
export function diffValues(before: unknown, after: unknown, path = ''): FieldChange[] {
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => {
      const sub = childPath(path, key);
      if (!Object.hasOwn(after, key)) return [{ path: sub, old: before[key] }];
      if (!Object.hasOwn(before, key)) return [{ path: sub, new: after[key] }];
      return diffValues(before[key], after[key], sub);
    });
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const changes: FieldChange[] = [];
    for (let i = 0; i < Math.max(before.length, after.length); i++) {
      const sub = childPath(path, i);
      if (i >= after.length) changes.push({ path: sub, old: before[i] });
      else if (i >= before.length) changes.push({ path: sub, new: after[i] });
      else changes.push(...diffValues(before[i], after[i], sub));
    }
    return changes;
  }
  if (sameJson(before, after)) return [];
  return [{ path: path || '(record)', old: before, new: after }];
}

/** The name a record goes by (its `name` field), for readers of change sets; undefined when it has none. */
function nameOf(record: unknown): string | undefined {
  return isPlainObject(record) && typeof record.name === 'string' ? record.name : undefined;
}

/** What one record file tells a change set: its id, its name, and for a changed record the fields that differ. */
export function recordChange(resource: ResourceName, path: string, before: Buffer | undefined, after: Buffer | undefined): { id: string; name: string | undefined; fields: FieldChange[] } {
  const old = recordOf(resource, decodeJson(before));
  const next = recordOf(resource, decodeJson(after));
  const body = after ?? before;
  return {
    id: idOf(resource, path, body === after ? decodeJson(after) : decodeJson(before)),
    name: nameOf(next) ?? nameOf(old),
    fields: before !== undefined && after !== undefined ? diffValues(old, next) : [],
  };
}

/** Collects a change set record by record; `build` sorts it. */
export class ChangeSetBuilder {
  readonly #ids = Object.fromEntries(RESOURCE_NAMES.map((r) => [r, { added: [] as string[], removed: [] as string[], changed: [] as string[] }])) as Record<ResourceName, { added: string[]; removed: string[]; changed: string[] }>;
  // Maps, not plain objects: an id such as "__proto__" assigned into an object would set its prototype.
  readonly #fields = Object.fromEntries(RESOURCE_NAMES.map((r) => [r, new Map<string, FieldChange[]>()])) as Record<ResourceName, Map<string, FieldChange[]>>;
  readonly #names = Object.fromEntries(RESOURCE_NAMES.map((r) => [r, new Map<string, string>()])) as Record<ResourceName, Map<string, string>>;

  add(resource: ResourceName, kind: 'added' | 'removed' | 'changed', change: { id: string; name?: string | undefined; fields?: FieldChange[] }): void {
    this.#ids[resource][kind].push(change.id);
    if (change.name !== undefined) this.#names[resource].set(change.id, change.name);
    if (kind === 'changed') this.#fields[resource].set(change.id, change.fields ?? []);
  }

  build(): ChangeSet {
    const out = {} as ChangeSet;
    for (const resource of RESOURCE_NAMES) {
      const ids = this.#ids[resource];
      const fields = this.#fields[resource];
      const names = this.#names[resource];
      ids.added.sort(compareIds);
      ids.removed.sort(compareIds);
      ids.changed.sort(compareIds);
      // fromEntries defines own properties, "__proto__" included.
      out[resource] = {
        ...ids,
        fields: Object.fromEntries(ids.changed.map((id) => [id, fields.get(id)!])),
        names: Object.fromEntries([...names.keys()].sort(compareIds).map((id) => [id, names.get(id)!])),
        findings: { appeared: [], fixed: [] },
      };
    }
    return out;
  }
}

/**
 * The change set from classified paths and the contents of the files they name (`before` holds
 * removed and changed files of the old snapshot, `after` added and changed files of the new one).
 */
export function buildChangeSet(paths: PathChanges, before: ReadonlyMap<string, Buffer>, after: ReadonlyMap<string, Buffer>): ChangeSet {
  const builder = new ChangeSetBuilder();
  for (const resource of RESOURCE_NAMES) {
    const p = paths[resource];
    for (const path of p.added) builder.add(resource, 'added', recordChange(resource, path, undefined, after.get(path)));
    for (const path of p.removed) builder.add(resource, 'removed', recordChange(resource, path, before.get(path), undefined));
    for (const path of p.changed) builder.add(resource, 'changed', recordChange(resource, path, before.get(path), after.get(path)));
  }
  return builder.build();
}

/** Added, removed and changed counts per resource. */
export function countChanges(changes: ChangeSet): Record<ResourceName, ChangeCounts> {
  return Object.fromEntries(RESOURCE_NAMES.map((r) => [r, { added: changes[r].added.length, removed: changes[r].removed.length, changed: changes[r].changed.length }])) as Record<ResourceName, ChangeCounts>;
}

/** The change set with the findings that appeared and were fixed from quality report `before` to `after`. */
export function withFindings(changes: ChangeSet, before: Quality | undefined, after: Quality | undefined): ChangeSet {
  const ids = (quality: Quality | undefined) => new Map((quality?.findings ?? []).map((g) => [`${g.resource}\u0000${g.field}\u0000${g.code}`, g]));
  const old = ids(before);
  const next = ids(after);
  const out = { ...changes };
  for (const resource of RESOURCE_NAMES) out[resource] = { ...changes[resource], findings: { appeared: [], fixed: [] } };
  const delta = (from: Map<string, Quality['findings'][number]>, to: Map<string, Quality['findings'][number]>, kind: 'appeared' | 'fixed'): void => {
    for (const [key, group] of to) {
      const had = from.get(key)?.ids ?? [];
      // Most groups are as they were: told apart in one cheap pass before any ordering is compared.
      if (sameIds(group.ids, had)) continue;
      const ids = idsNotIn(group.ids, had);
      if (ids.length) out[group.resource].findings[kind].push({ field: group.field, code: group.code, ids });
    }
  };
  delta(old, next, 'appeared');
  delta(next, old, 'fixed');
  return out;
}

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** Whether every id comes after the one before it (compareIds order, each once), as a quality report lists them. */
function inIdOrder(ids: readonly string[]): boolean {
  for (let k = 1; k < ids.length; k++) if (compareIds(ids[k - 1]!, ids[k]!) >= 0) return false;
  return true;
}

/**
 * The ids of `ids` that `other` lacks, in order. Both in id order (reports are written so), one
 * walk: a set of the other's ids held a quarter of a million strings' worth of table at 200 000
 * servers, at the moment a sync peaks in memory. A set otherwise (a report not written by us).
 */
function idsNotIn(ids: readonly string[], other: readonly string[]): string[] {
  if (!inIdOrder(ids) || !inIdOrder(other)) {
    const had = new Set(other);
    return ids.filter((id) => !had.has(id));
  }
  const out: string[] = [];
  let j = 0;
  for (const id of ids) {
    while (j < other.length && compareIds(other[j]!, id) < 0) j++;
    if (other[j] !== id) out.push(id);
  }
  return out;
}

/** Whether any record was added, removed or changed. */
export function hasChanges(changes: ChangeSet): boolean {
  return RESOURCE_NAMES.some((r) => changes[r].added.length + changes[r].removed.length + changes[r].changed.length > 0);
}

/** An empty change set (nothing changed). */
export function emptyChangeSet(): ChangeSet {
  return Object.fromEntries(RESOURCE_NAMES.map((r) => [r, { added: [], removed: [], changed: [], fields: {}, names: {}, findings: { appeared: [], fixed: [] } }])) as unknown as ChangeSet;
}
