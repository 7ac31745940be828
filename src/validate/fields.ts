/**
 * Field-level checks against the spec's schemas. The record is judged, never rewritten: the
 * snapshot keeps exactly what the service sent.
 */
import type { z } from 'zod';
import { SCHEMAS, type RawRecord } from '../spec/schemas.js';
import type { ResourceName } from '../spec/resources.js';
import { preview, type Warning } from './warnings.js';

/** `instances[2].listen_port` from a zod path. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

function valueAt(record: unknown, path: readonly PropertyKey[]): unknown {
  let value: unknown = record;
  for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

function message(issue: z.core.$ZodIssue, record: RawRecord): string {
  const value = valueAt(record, issue.path);
  if (value === undefined && issue.code === 'invalid_type') return `missing (expected ${issue.expected})`;
  // zod says "received string"; the value itself tells more.
  const text = issue.message.replace(/^Invalid input: /, '').replace(/, received \w+$/, '');
  return `${text}, got ${preview(value)}`;
}

/** The warnings for one record in one view (`list` item or `single` view). */
export function fieldWarnings(resource: ResourceName, view: 'list' | 'single', record: RawRecord): Warning[] {
  const result = SCHEMAS[resource][view].safeParse(record);
  if (result.success) return [];
  return result.error.issues.map((issue) => ({ resource, id: record.id, field: fieldPath(issue.path), message: message(issue, record) }));
}
