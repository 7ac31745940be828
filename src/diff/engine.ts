/**
 * The diff engine: which records were added, removed or changed between two snapshots, and for a
 * changed record which fields differ. Pure: it takes file hashes and file contents and returns
 * plain data. A record is changed when its single-record file's bytes differ; where it sits in a
 * list does not matter, because list files are not compared.
 */
import { RESOURCE_NAMES, RESOURCES, isResourceName, type ResourceName } from '../spec/resources.js';
import { decodeJson } from '../publish/json.js';
import { decodeSegment } from '../publish/paths.js';
import { isPlainObject, sameJson } from '../util/json-value.js';

/** One field that differs: `old` or `new` is absent when the field is missing on that side. */
export interface FieldChange {
  path: string;
  old?: unknown;
  new?: unknown;
}

/** The changes of one resource; ids sorted, `fields` keyed by changed id. */
export interface ResourceChanges {
  added: string[];
  removed: string[];
  changed: string[];
  fields: Record<string, FieldChange[]>;
}

export type ChangeSet = Record<ResourceName, ResourceChanges>;

/** Record files that differ between two snapshots, per resource, as relative paths. */
export type PathChanges = Record<ResourceName, { added: string[]; removed: string[]; changed: string[] }>;

export interface ChangeCounts {
  added: number;
  removed: number;
  changed: number;
}

const RECORD_FILE = /^([a-z_]+)\/([^/]+)\.json$/;

/** The resource of a single-record file (`<resource>/<name>.json`), else undefined. */
export function recordFileResource(path: string): ResourceName | undefined {
  const match = RECORD_FILE.exec(path);
  return match && isResourceName(match[1]!) ? match[1] : undefined;
}

/** Sorts ids numerically when both are digits, else by code unit, so `9` comes before `10`. */
export function compareIds(a: string, b: string): number {
  if (/^\d+$/.test(a) && /^\d+$/.test(b) && a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Classifies record files by hash (path → sha256 of each snapshot): cheap, no file is read.
 * Everything that is not a single-record file (lists, views, _meta) is ignored.
 */
export function classifyPaths(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): PathChanges {
  const out = Object.fromEntries(RESOURCE_NAMES.map((r) => [r, { added: [], removed: [], changed: [] }])) as unknown as PathChanges;
  for (const [path, hash] of after) {
    const resource = recordFileResource(path);
    if (!resource) continue;
    const old = before.get(path);
    if (old === undefined) out[resource].added.push(path);
    else if (old !== hash) out[resource].changed.push(path);
  }
  for (const path of before.keys()) {
    const resource = recordFileResource(path);
    if (resource && !after.has(path)) out[resource].removed.push(path);
  }
  return out;
}

/** The paths whose contents `buildChangeSet` needs from each side. */
export function pathsToRead(paths: PathChanges): { before: string[]; after: string[] } {
  const before: string[] = [];
  const after: string[] = [];
  // An added or removed record's id is its file name, unless the name is a shortened long id.
  const unnamed = (path: string): boolean => nameId(path) === undefined;
  for (const resource of RESOURCE_NAMES) {
    const p = paths[resource];
    before.push(...p.removed.filter(unnamed), ...p.changed);
    after.push(...p.added.filter(unnamed), ...p.changed);
  }
  return { before, after };
}

/** The id a record file's name stands for, or undefined when the name is a shortened long id. */
function nameId(path: string): string | undefined {
  const name = RECORD_FILE.exec(path)?.[2];
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
  return nameId(path) ?? RECORD_FILE.exec(path)?.[2] ?? path;
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
      // Own properties only: `key in` would find `constructor` or `toString` on every object.
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

/**
 * The change set from classified paths and the contents of the files they name (`before` holds
 * removed and changed files of the old snapshot, `after` added and changed files of the new one).
 */
export function buildChangeSet(paths: PathChanges, before: ReadonlyMap<string, Buffer>, after: ReadonlyMap<string, Buffer>): ChangeSet {
  const out = {} as ChangeSet;
  for (const resource of RESOURCE_NAMES) {
    const p = paths[resource];
    const changes: ResourceChanges = { added: [], removed: [], changed: [], fields: {} };
    // Keyed by id in a Map: an id such as "__proto__" assigned into a plain object would set its prototype.
    const fields = new Map<string, FieldChange[]>();
    for (const path of p.added) changes.added.push(idOf(resource, path, decodeJson(after.get(path))));
    for (const path of p.removed) changes.removed.push(idOf(resource, path, decodeJson(before.get(path))));
    for (const path of p.changed) {
      const old = decodeJson(before.get(path));
      const next = decodeJson(after.get(path));
      const id = idOf(resource, path, next ?? old);
      changes.changed.push(id);
      fields.set(id, diffValues(recordOf(resource, old), recordOf(resource, next)));
    }
    changes.added.sort(compareIds);
    changes.removed.sort(compareIds);
    changes.changed.sort(compareIds);
    // fromEntries defines own properties, "__proto__" included.
    changes.fields = Object.fromEntries(changes.changed.map((id) => [id, fields.get(id)!]));
    out[resource] = changes;
  }
  return out;
}

/** Added, removed and changed counts per resource. */
export function countChanges(changes: ChangeSet): Record<ResourceName, ChangeCounts> {
  return Object.fromEntries(RESOURCE_NAMES.map((r) => [r, { added: changes[r].added.length, removed: changes[r].removed.length, changed: changes[r].changed.length }])) as Record<ResourceName, ChangeCounts>;
}

/** Whether any record was added, removed or changed. */
export function hasChanges(changes: ChangeSet): boolean {
  return RESOURCE_NAMES.some((r) => changes[r].added.length + changes[r].removed.length + changes[r].changed.length > 0);
}

/** An empty change set (nothing changed). */
export function emptyChangeSet(): ChangeSet {
  return Object.fromEntries(RESOURCE_NAMES.map((r) => [r, { added: [], removed: [], changed: [], fields: {} }])) as unknown as ChangeSet;
}
