/**
 * The checks of one record from its two renderings, the list item and the single view. A real
 * service renders them as different projections: a field only one of them carries is a fact about
 * the service's shape (collected per resource, reported once), never a finding. Where both carry
 * a field they must agree (`view_mismatch`), and the record as both views give it together is
 * judged against the API document's fields (`null`, `missing`, `wrong_type`). Pure.
 */
import { fieldName, schemaIssues } from '../spec/check.js';
import { RESOURCE_NAMES, SINGLE_ONLY_FIELDS, type ResourceName } from '../spec/resources.js';
import type { RawRecord } from '../spec/schemas.js';
import { isPlainObject, sameJson } from '../util/json-value.js';
import type { Finding } from './findings.js';
import { serverListFindings } from './crosscheck.js';

/** Fields only one rendering carries, as field paths with `[]` for array elements. */
export interface Shape {
  listOnly: Set<string>;
  singleOnly: Set<string>;
}

function emptyShape(): Shape {
  return { listOnly: new Set(), singleOnly: new Set() };
}

interface Comparison {
  /** Where both carry a value and the values differ: the normalized path and both values. */
  mismatches: { field: string; list: unknown; single: unknown }[];
  shape: Shape;
}

/**
 * Compares the two renderings field by field, down through objects and equal-length arrays. The
 * path is a stack of parts, made into text only for what is reported: every record passes here.
 */
function compare(list: unknown, single: unknown, path: PropertyKey[], out: Comparison, documented: ReadonlySet<string>): void {
  if (isPlainObject(list) && isPlainObject(single)) {
    for (const key of Object.keys(list)) {
      path.push(key);
      if (Object.hasOwn(single, key)) compare(list[key], single[key], path, out, documented);
      else out.shape.listOnly.add(fieldName(path));
      path.pop();
    }
    for (const key of Object.keys(single)) {
      if (Object.hasOwn(list, key)) continue;
      path.push(key);
      const field = fieldName(path);
      if (!documented.has(field)) out.shape.singleOnly.add(field);
      path.pop();
    }
    return;
  }
  if (Array.isArray(list) && Array.isArray(single) && list.length === single.length) {
    path.push(0);
    for (let i = 0; i < list.length; i++) compare(list[i], single[i], path, out, documented);
    path.pop();
    return;
  }
  if (!sameJson(list, single)) out.mismatches.push({ field: fieldName(path), list, single });
}

function valueAt(record: unknown, path: readonly PropertyKey[]): unknown {
  let value: unknown = record;
  for (const key of path) value = value !== null && typeof value === 'object' && Object.hasOwn(value, key) ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

/** The code of a schema issue by the value it is about: null, missing or wrong_type. */
function issueCode(value: unknown): Finding['code'] {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  return 'wrong_type';
}

/** Per resource, the fields the API document gives the single view only: no shape difference. */
const DOCUMENTED_SINGLE_ONLY = Object.fromEntries(RESOURCE_NAMES.map((r) => [r, new Set(SINGLE_ONLY_FIELDS[r] ?? [])])) as Record<ResourceName, Set<string>>;

/**
 * `{ ...item, ...single }`. A spread of a second object takes V8's slow path: 8-20 µs for a
 * server, a fifth of its checks; Object.assign copies it in 0.5-3 µs. Assign sets keys rather
 * than defining them, so a record with a `__proto__` key (JSON.parse makes it an own key) would
 * set the prototype instead: such a record is spread.
 */
function mergeViews(item: RawRecord, single: RawRecord): Record<string, unknown> {
  if (Object.hasOwn(item, '__proto__') || Object.hasOwn(single, '__proto__')) return { ...item, ...single };
  return Object.assign({}, item, single);
}

interface RecordCheckOptions {
  /** Whether a field path is covered by the redaction policy: its values are withheld, and its absence is the policy's doing. */
  redacted?: (field: string) => boolean;
}

/**
 * Findings of one record. `item` is the list item as published (redacted), `single` the single
 * view as the service sent it and `published` as published: views are compared in the published
 * form (both redacted alike), fields are judged on the service's values.
 */
export function checkRecord(resource: ResourceName, item: RawRecord, single: RawRecord, published: RawRecord, options: RecordCheckOptions = {}): { findings: Finding[]; shape: Shape } {
  const redacted = options.redacted ?? (() => false);
  const id = single.id;
  const out: Comparison = { mismatches: [], shape: emptyShape() };
  compare(item, published, [], out, DOCUMENTED_SINGLE_ONLY[resource]);
  const findings: Finding[] = out.mismatches.map((m) => ({ resource, id, field: m.field, code: 'view_mismatch', ...(redacted(m.field) ? {} : { value: { list: m.list, single: m.single } }) }));

  // The record as both views give it: the single view's value where both carry a field.
  const merged = mergeViews(item, single);
  const issues = schemaIssues(resource, 'single', merged);
  if (issues.length > 0) {
    const seen = new Set<string>();
    for (const path of issues) {
      const field = fieldName(path);
      const value = valueAt(merged, path);
      const code = issueCode(value);
      if (code === 'missing' && redacted(field)) continue;
      const key = `${field}\u0000${code}`;
      if (seen.has(key)) continue;
      seen.add(key);
      findings.push({ resource, id, field, code, ...(code === 'wrong_type' && !redacted(field) ? { value } : {}) });
    }
  }
  if (resource === 'databases') findings.push(...serverListFindings(single));
  return { findings, shape: out.shape };
}
