/**
 * A change set: the records added, removed and changed between two snapshots, the fields that
 * changed, and the findings that appeared and were fixed. Types only (the library exports them).
 */
import type { ResourceName } from '../spec/resources.js';

/** One field that differs: `old` or `new` is absent when the field is missing on that side. */
export interface FieldChange {
  path: string;
  old?: unknown;
  new?: unknown;
}

/** The changes of one resource; ids sorted, `fields` keyed by changed id, `names` by any id it names. */
export interface ResourceChanges {
  added: string[];
  removed: string[];
  changed: string[];
  fields: Record<string, FieldChange[]>;
  /** The record's name where it has one (a change set read by people names records by both). */
  names: Record<string, string>;
  /** Data-quality findings that appeared or were fixed between the two snapshots. */
  findings: { appeared: FindingDelta[]; fixed: FindingDelta[] };
}

/** The records of one field and code that gained or lost a finding. */
export interface FindingDelta {
  field: string;
  code: string;
  ids: string[];
}

export type ChangeSet = Record<ResourceName, ResourceChanges>;
