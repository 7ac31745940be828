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

/** A group of findings carried over whole from the previous quality report (see FindingSet.carry). */
export type CarriedGroup = Omit<FindingGroup, 'names'>;

/** The findings of a group, one by one. */
export function* findingsOf(group: CarriedGroup): Generator<Finding> {
  for (const id of group.ids) {
    const value = group.values.get(id);
    yield value === undefined ? { resource: group.resource, id, field: group.field, code: group.code } : { resource: group.resource, id, field: group.field, code: group.code, value };
  }
}

/** `own` and `carried` together in id order, each id once. */
function mergedIds(own: readonly string[], carried: readonly string[]): string[] {
  const ids = sortIds(own.concat(carried));
  let n = 0;
  for (const id of ids) if (n === 0 || ids[n - 1] !== id) ids[n++] = id;
  ids.length = n;
  return ids;
}

const groupKey = (resource: string, field: string, code: string): string => `${resource}\u0000${field}\u0000${code}`;

/** Findings gathered over a sync, one per (resource, field, code, id). */
export class FindingSet {
  readonly #groups = new Map<string, { resource: ResourceName; field: string; code: FindingCode; ids: IdSet; values: Map<string, unknown> }>();
  readonly #carried = new Map<string, CarriedGroup>();

  /**
   * Takes a group carried over from the previous report as it is, about records no finding of
   * this run is about (the pull did not read them again): kept as the report's array, not added
   * id by id, which cost a no-change sync of 200 000 servers 0.1 s for its 170 000 findings.
   */
  carry(group: CarriedGroup): void {
    if (group.ids.length === 0) return;
    const key = groupKey(group.resource, group.field, group.code);
    const had = this.#carried.get(key);
    this.#carried.set(key, had ? { ...had, ids: had.ids.concat(group.ids), values: new Map([...had.values, ...group.values]) } : group);
  }

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
    const key = groupKey(resource, field, code);
    const own = this.#groups.get(key)?.values ?? new Map<string, unknown>();
    const carried = this.#carried.get(key)?.values;
    return carried?.size ? new Map([...carried, ...own]) : own;
  }

  /** The groups in resource, field, code order, ids sorted, each once. */
  groups(): FindingGroup[] {
    const out: FindingGroup[] = [];
    for (const [key, g] of this.#groups) {
      const carried = this.#carried.get(key);
      out.push({ resource: g.resource, field: g.field, code: g.code, ids: mergedIds([...g.ids], carried?.ids ?? []), values: carried?.values.size ? new Map([...carried.values, ...g.values]) : g.values });
    }
    for (const [key, carried] of this.#carried) if (!this.#groups.has(key)) out.push({ ...carried, ids: mergedIds([], carried.ids) });
    return out.sort(compareGroups);
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
