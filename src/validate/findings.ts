/**
 * Data-quality findings: what the service sent that deviates from the API document or from
 * itself, each with a stable code, aggregated by resource, field and code. A finding is a fact
 * about the inventory, not a failure of the mirror: it is counted, published in
 * `_meta/quality.json`, and fails a sync only under `--strict` when the configuration does not
 * accept it.
 */
import { RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import { sortIds } from '../spec/ids.js';
import { compareCodeUnits } from '../util/order.js';
import { shorten } from '../util/secrets.js';
import { RowIndex, StringList } from '../util/string-set.js';

export const FINDING_CODES = [
  'null',
  'missing',
  'wrong_type',
  'view_mismatch',
  'dangling_ref',
  'server_list_mismatch',
  'not_in_list',
  'duplicate_key',
  'out_of_range',
  'invalid_utf8',
  'gone',
] as const;
export type FindingCode = (typeof FINDING_CODES)[number];

/** What each code means, for help texts, the README and the summary. */
export const CODE_MEANINGS: Record<FindingCode, string> = {
  null: 'a documented field is null where the API document gives it a type',
  missing: 'a documented field is absent from both the list item and the single view',
  wrong_type: 'a documented field holds a value of another type or form',
  view_mismatch: 'the list item and the single view both carry the field, with different values',
  dangling_ref: 'a reference names a record that is not in the inventory',
  server_list_mismatch: "a database's servers do not match its server_names one for one",
  not_in_list: 'a filtered view holds a record the full list does not',
  duplicate_key: 'an object repeats a key; the last value was kept',
  out_of_range: 'a number beyond what JSON numbers can carry; published as null',
  invalid_utf8: 'bytes that are not UTF-8; published as U+FFFD',
  gone: 'listed, but the single record answered 404 (deleted during the sync?); left out of the snapshot',
};

/** Codes about one record's own bodies (its list item and single view): they hold while both are unchanged. */
const RECORD_CODES: ReadonlySet<FindingCode> = new Set(['null', 'missing', 'wrong_type', 'view_mismatch', 'server_list_mismatch', 'duplicate_key', 'out_of_range', 'invalid_utf8']);

/** Whether a finding of this code can be carried over for a record whose bodies did not change. */
export function isRecordCode(code: FindingCode): boolean {
  return RECORD_CODES.has(code);
}

/** Fields only one rendering (list item or single view) carries, per resource: the service's shape, not a finding. */
export type ShapeFacts = Partial<Record<ResourceName, { listOnly: string[]; singleOnly: string[] }>>;

export interface Finding {
  resource: ResourceName;
  id: string;
  /** `dbconn_url`, `extended_attributes.owner`, `instances[].version`; '' for the record as a whole. */
  field: string;
  code: FindingCode;
  /** The value concerned, when it tells more than the code (absent for null and missing). */
  value?: unknown;
}

/** All findings of one resource, field and code. */
export interface FindingGroup {
  resource: ResourceName;
  field: string;
  code: FindingCode;
  /** Sorted. */
  ids: string[];
  /** The value per id, for the findings that carry one. */
  values: Map<string, unknown>;
  /** The record's name per id, for the records that have one (shown beside ids). */
  names?: Pick<ReadonlyMap<string, string>, 'get'>;
}

/**
 * The ids of one group, each once: joined in a StringList, found through an open-addressing index
 * of their hashes. As Map keys they cost 74 bytes a finding, and messy data makes many: 489 290 on
 * the realistic simulator at 500 000 servers.
 */
class IdSet {
  readonly #ids = new StringList();
  readonly #index = new RowIndex(this.#ids);

  get size(): number {
    return this.#ids.length;
  }

  /** Adds `id`; false when it is in already. */
  add(id: string): boolean {
    return this.#index.add(id, () => {
      this.#ids.push(id);
      return this.#ids.length - 1;
    });
  }

  [Symbol.iterator](): Iterator<string> {
    return this.#ids[Symbol.iterator]();
  }
}

const groupKey = (resource: string, field: string, code: string): string => `${resource}\u0000${field}\u0000${code}`;

/** Findings gathered over a sync, one per (resource, field, code, id). */
export class FindingSet {
  readonly #groups = new Map<string, { resource: ResourceName; field: string; code: FindingCode; ids: IdSet; values: Map<string, unknown> }>();

  /** Adds a finding; false when this record already had it. */
  add(finding: Finding): boolean {
    const key = groupKey(finding.resource, finding.field, finding.code);
    let group = this.#groups.get(key);
    if (!group) {
      group = { resource: finding.resource, field: finding.field, code: finding.code, ids: new IdSet(), values: new Map() };
      this.#groups.set(key, group);
    }
    if (!group.ids.add(finding.id)) return false;
    if (finding.value !== undefined) group.values.set(finding.id, finding.value);
    return true;
  }

  /** The values of one group's findings by id, for those that carry one. */
  valuesOf(resource: ResourceName, field: string, code: FindingCode): ReadonlyMap<string, unknown> {
    return this.#groups.get(groupKey(resource, field, code))?.values ?? new Map();
  }

  get size(): number {
    let n = 0;
    for (const group of this.#groups.values()) n += group.ids.size;
    return n;
  }

  /** The groups in resource, field, code order, ids sorted. */
  groups(): FindingGroup[] {
    return [...this.#groups.values()]
      .map((g) => ({ resource: g.resource, field: g.field, code: g.code, ids: sortIds([...g.ids]), values: g.values }))
      .sort(compareGroups);
  }
}

/** Resource in the API document's order, then field, then code. */
function compareGroups(a: Pick<FindingGroup, 'resource' | 'field' | 'code'>, b: Pick<FindingGroup, 'resource' | 'field' | 'code'>): number {
  return RESOURCE_NAMES.indexOf(a.resource) - RESOURCE_NAMES.indexOf(b.resource) || compareCodeUnits(a.field, b.field) || compareCodeUnits(a.code, b.code);
}

/** Shortens a value for a message, so one huge field cannot flood a log line. */
export function preview(value: unknown, max = 60): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Array.isArray(value) ? '[…]' : typeof value === 'object' ? '{…}' : String(value);
  }
  return shorten(text, max);
}
