/**
 * The plan of a sync, made once the lists are in and before any view or record is asked for: for
 * every filtered view and every single record, whether it is fetched, with which validators, and
 * why. Pure: it reads the previous snapshot's table (validators, the digest of the list item each
 * record was last checked against, the run that last fetched it and the records it refers to) and
 * the new lists; the pull only carries it out.
 *
 * A full sync asks for every record ("changed since?" where it can). An incremental one asks only
 * for what the lists show changed (new records, list items that differ, `updated_at` included),
 * what refers to a record that was added, changed or removed, and the rolling refresh: the
 * ceil(records / refreshRuns) records fetched longest ago, so every record is fetched again within
 * refreshRuns runs, which bounds the staleness of changes no list shows.
 */
import type { RequestValidators } from '../fetch/client.js';
import type { ViewKey } from '../index/views.js';
import { nameReference, parseReference } from '../index/references.js';
import { filterFile, namedRecordFile, recordFile, recordResource } from '../snapshot/paths.js';
import type { FileTable } from '../snapshot/table.js';
import { RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import { sendable } from './conditional.js';
import type { ListSummary } from './lists.js';
import type { FetchSummary } from './result.js';

/** Why a single record is fetched (Keep: it is not). */
export const Reason = {
  /** Incremental: nothing shows it changed, and it is not due for a refresh; kept unread. */
  Keep: 0,
  /** Not in the previous snapshot. */
  New: 1,
  /** Its list item differs from the one it was last checked against. */
  Changed: 2,
  /** In the previous snapshot, but nothing lets it be kept unread (no validators, or no findings to carry over). */
  Unverified: 3,
  /** "Changed since?": kept unread on a 304, with every finding it had. */
  Recheck: 4,
  /** Incremental: a record it refers to was added, changed or removed. */
  Cascade: 5,
  /** Incremental: due in the rolling refresh. */
  Refresh: 6,
} as const;
export type Reason = (typeof Reason)[keyof typeof Reason];

/** A filtered view to fetch. */
export interface ViewPlan {
  view: ViewKey;
  /** Sent to ask "changed since?"; undefined: fetched whole. */
  validators: RequestValidators | undefined;
  /** Kept unread on a 304 only when false; when true a 304 is read from disk to check membership again (its list changed, or its findings cannot be carried over). */
  recheck: boolean;
}

/** The records of one list to fetch, by position in the list. */
export interface RecordPlan {
  /** Per position, why the record is fetched. */
  reasons: Uint8Array;
  /** Per position, the record's entry in the previous snapshot's table, or -1. */
  previous: Int32Array;
}

export interface Plan {
  views: ViewPlan[];
  records: Record<ResourceName, RecordPlan>;
  /** Whether the previous snapshot's findings carry over to what is kept unread. */
  carry: boolean;
  /** This run's number (see snapshot/http-cache.ts): what it fetches or confirms is "seen" in it; only incremental runs count up. */
  run: number;
  /** Whether records are planned incrementally (some resources may fall back, see fallbacks). */
  incremental: boolean;
  /** Why records are not planned incrementally, when incremental was asked for (one line each). */
  fallbacks: string[];
  /** The last run that fetched or confirmed every record: this one, unless it is incremental. */
  verified: number;
  /** The resources mirrored (config `resources`); a reference to a record of another is never a change. */
  resources: ReadonlySet<ResourceName>;
}

/** An incremental sync's settings and what the previous run says of the folder. */
export interface IncrementalInput {
  refreshRuns: number;
  /** The service this run syncs (as displayed), and the one the previous snapshot came from. */
  service: string;
  previous: { run: number; service: string; verified: number } | undefined;
}

interface PlanInput {
  /** The previous snapshot's table (undefined on a first sync). */
  previous: FileTable | undefined;
  /** Whether its validators can be sent (the ETag cache belongs to it, under the same redaction policy). */
  cached: boolean;
  /** Whether its quality report can be carried over to what is kept unread. */
  quality: boolean;
  lists: Record<ResourceName, ListSummary>;
  views: readonly ViewKey[];
  /** The resources mirrored (default all five); the others' lists are empty. */
  resources?: readonly ResourceName[] | undefined;
  /** Set for an incremental sync. */
  incremental?: IncrementalInput | undefined;
  /** The previous run's number (the cache's head), when the folder has a usable cache. */
  run?: number | undefined;
}

/** The plan of every view and record. Pure. */
export function plan(input: PlanInput): Plan {
  const { previous, lists } = input;
  const carry = previous !== undefined && input.cached && input.quality;
  const views = input.views.map((view): ViewPlan => {
    const i = previous?.indexOf(filterFile(view.resource, view.param, view.value));
    return { view, validators: i === undefined ? undefined : sendable(previous!.validators(i)), recheck: lists[view.resource].changed || !carry };
  });
  const records = Object.fromEntries(RESOURCE_NAMES.map((resource) => [resource, planRecords(lists[resource], previous, carry)])) as Record<ResourceName, RecordPlan>;
  // Only incremental runs move the clock: a full sync confirms every record in the run it
  // follows, so its run metadata stays byte-identical when nothing changed.
  const run = input.run ?? 1;
  const made: Plan = { views, records, carry, run, incremental: false, fallbacks: [], verified: run, resources: new Set(input.resources ?? RESOURCE_NAMES) };
  if (input.incremental) planIncremental(made, input, input.incremental);
  return made;
}

/** Why an incremental sync cannot plan from the previous snapshot at all, or undefined when it can. */
function wholeFallback(input: PlanInput, incremental: IncrementalInput, carry: boolean): string | undefined {
  if (!input.previous) return 'the folder has no snapshot yet';
  if (!incremental.previous || !input.cached) return `the folder has no usable run metadata (${'_meta/http-cache.json'} is missing, damaged, from another version of inventory-mirror, or from another redaction policy)`;
  if (incremental.previous.service !== incremental.service) return `the snapshot came from another service (${incremental.previous.service})`;
  if (!carry) return 'the snapshot has no usable _meta/quality.json to carry findings over from';
  return undefined;
}

/**
 * Turns a full plan into an incremental one, in place: records nothing shows changed are kept
 * unread (Keep), then those referring to a changed record are fetched (Cascade), then the oldest
 * of the rest (Refresh).
 */
function planIncremental(made: Plan, input: PlanInput, incremental: IncrementalInput): void {
  const whole = wholeFallback(input, incremental, made.carry);
  if (whole) {
    made.fallbacks.push(whole);
    return;
  }
  const previous = input.previous!;
  made.incremental = true;
  made.run = incremental.previous!.run + 1;
  made.verified = incremental.previous!.verified;
  for (const resource of RESOURCE_NAMES) {
    if (!input.lists[resource].stamped) {
      made.fallbacks.push(`${resource}: its list items carry no updated_at, so every record is asked for`);
      continue;
    }
    const { reasons } = made.records[resource];
    for (let n = 0; n < reasons.length; n++) if (reasons[n] === Reason.Recheck) reasons[n] = Reason.Keep;
  }
  const touched = changedTargets(made, input.lists);
  markCascades(made, input.lists, previous, touched, addedOrRemoved(made, input.lists, previous));
  markRefresh(made, previous, incremental);
}

/** What a reference to a changed record is checked against: record files whose record changed, and names (`<index>~<segment>`) that a new or changed record now has. */
export interface ChangedTargets {
  files: Set<string>;
  names: Set<string>;
}

/** The records that are new or changed in the lists, as targets of references. */
function changedTargets(made: Plan, lists: Record<ResourceName, ListSummary>): ChangedTargets {
  const touched: ChangedTargets = { files: new Set(), names: new Set() };
  for (const resource of RESOURCE_NAMES) {
    const { reasons } = made.records[resource];
    const list = lists[resource];
    for (let n = 0; n < reasons.length; n++) {
      if (reasons[n] !== Reason.New && reasons[n] !== Reason.Changed) continue;
      touched.files.add(recordFile(resource, list.ids.at(n)));
      const name = list.nameAt?.at(n);
      if (name) touched.names.add(nameReference(resource, name));
    }
  }
  return touched;
}

/** Whether a stored reference points at a record that was added, changed or removed. */
function refersToChange(reference: string, touched: ChangedTargets, lists: Record<ResourceName, ListSummary>, previous: FileTable, resources: ReadonlySet<ResourceName>): boolean {
  const parsed = parseReference(reference);
  // A record not mirrored is not followed: dropping its resource changes no record that embeds it.
  if (!parsed || !resources.has(parsed.resource)) return false;
  if (parsed.kind === 'name') return touched.names.has(reference);
  const file = namedRecordFile(parsed.resource, parsed.segment);
  if (touched.files.has(file)) return true;
  // Added or removed: in one of the two snapshots only.
  return (previous.indexOf(file) !== undefined) !== lists[parsed.resource].members.has(parsed.value);
}

/** A record of a plan, by resource and position in its list. */
export interface Position {
  resource: ResourceName;
  n: number;
}

/**
 * Marks every kept record that refers to a changed one as a Cascade, and returns them; `existence`:
 * whether records were added or removed (else only `touched` can make a reference changed). The
 * pull calls it again with the records whose bodies changed while their list items did not.
 */
export function markCascades(made: Plan, lists: Record<ResourceName, ListSummary>, previous: FileTable, touched: ChangedTargets, existence: boolean): Position[] {
  const marked: Position[] = [];
  if (touched.files.size === 0 && touched.names.size === 0 && !existence) return marked;
  for (const resource of RESOURCE_NAMES) {
    const { reasons, previous: entries } = made.records[resource];
    for (let n = 0; n < reasons.length; n++) {
      if (reasons[n] !== Reason.Keep) continue;
      const refs = previous.refs(entries[n]!);
      if (!refs) continue;
      for (const reference of refs.split(' ')) {
        if (!refersToChange(reference, touched, lists, previous, made.resources)) continue;
        reasons[n] = Reason.Cascade;
        marked.push({ resource, n });
        break;
      }
    }
  }
  return marked;
}

/** Whether a record was added or removed (a removed record shows in no list, only by its absence), among the resources mirrored. */
function addedOrRemoved(made: Plan, lists: Record<ResourceName, ListSummary>, previous: FileTable): boolean {
  // A list the service answered 304 for is the very list the previous snapshot holds.
  if (RESOURCE_NAMES.every((resource) => !lists[resource].changed)) return false;
  const before = new Map<string, number>();
  for (const path of previous.paths()) {
    const resource = recordResource(path);
    if (resource) before.set(resource, (before.get(resource) ?? 0) + 1);
  }
  return RESOURCE_NAMES.some((resource) => made.resources.has(resource) && (made.records[resource].reasons.includes(Reason.New) || (before.get(resource) ?? 0) !== lists[resource].ids.length));
}

/**
 * Marks the ceil(records / refreshRuns) kept records fetched longest ago as Refresh: those last
 * seen before some run, then as many as are still due of those seen in it, in list order, the
 * resources in turn (what a stable sort by run would take first, without sorting 300 000 records).
 */
function markRefresh(made: Plan, previous: FileTable, incremental: IncrementalInput): void {
  const verified = incremental.previous!.verified;
  const seenOf = (resource: ResourceName, n: number): number => Math.max(previous.seen(made.records[resource].previous[n]!), verified);
  let total = 0;
  const perRun = new Map<number, number>();
  for (const resource of RESOURCE_NAMES) {
    const { reasons } = made.records[resource];
    total += reasons.length;
    for (let n = 0; n < reasons.length; n++) {
      if (reasons[n] !== Reason.Keep) continue;
      const seen = seenOf(resource, n);
      perRun.set(seen, (perRun.get(seen) ?? 0) + 1);
    }
  }
  let due = Math.ceil(total / incremental.refreshRuns);
  // The run whose records are the last taken, and how many of them are.
  let last = -1;
  let ofLast = 0;
  for (const [run, count] of [...perRun].sort((a, b) => a[0] - b[0])) {
    if (due <= 0) break;
    last = run;
    ofLast = Math.min(count, due);
    due -= ofLast;
  }
  for (const resource of RESOURCE_NAMES) {
    const { reasons } = made.records[resource];
    for (let n = 0; n < reasons.length; n++) {
      if (reasons[n] !== Reason.Keep) continue;
      const seen = seenOf(resource, n);
      if (seen < last || (seen === last && ofLast-- > 0)) reasons[n] = Reason.Refresh;
    }
  }
}

function planRecords(list: ListSummary, previous: FileTable | undefined, carry: boolean): RecordPlan {
  const count = list.ids.length;
  const reasons = new Uint8Array(count);
  const entries = new Int32Array(count).fill(-1);
  for (let n = 0; n < count; n++) {
    const i = previous?.indexOf(recordFile(list.resource, list.ids.at(n)));
    if (i === undefined) {
      reasons[n] = Reason.New;
      continue;
    }
    entries[n] = i;
    // Which item the record was checked against is known only from the ETag cache; a list kept as
    // it was holds the very items its records were checked against.
    if (!previous!.hasItem(i)) reasons[n] = Reason.Unverified;
    else if (list.digests !== undefined && !previous!.checkedWith(i, list.digests.at(n))) reasons[n] = Reason.Changed;
    else reasons[n] = carry && previous!.askable(i) ? Reason.Recheck : Reason.Unverified;
  }
  return { reasons, previous: entries };
}

/** Reasons under which a record is asked for with the validators of its published copy: it was checked against its very list item, so a 304 keeps every finding. */
const ASKS: ReadonlySet<number> = new Set([Reason.Recheck, Reason.Cascade, Reason.Refresh]);

/** The validators to send for record `n` of a plan: only to ask whether one checked against its very list item changed. */
export function recordValidators(records: RecordPlan, n: number, previous: FileTable | undefined): RequestValidators | undefined {
  return ASKS.has(records.reasons[n]!) ? sendable(previous!.validators(records.previous[n]!)) : undefined;
}

/** How many records each reason covers, over every resource. */
export function reasonCounts(made: Plan): Record<Reason, number> {
  const counts = Object.fromEntries(Object.values(Reason).map((reason) => [reason, 0])) as Record<Reason, number>;
  for (const resource of RESOURCE_NAMES) {
    // Indexed: a for-of over a typed array made an iterator result per record here.
    const { reasons } = made.records[resource];
    for (let n = 0; n < reasons.length; n++) counts[reasons[n] as Reason]++;
  }
  return counts;
}

/** What the summary says of the records a plan fetched (after the pull: its later rounds mark their cascades in the plan). */
export function fetchSummary(made: Plan): FetchSummary {
  const counts = reasonCounts(made);
  const records = Object.values(counts).reduce((a, b) => a + b, 0);
  return {
    mode: made.incremental ? 'incremental' : 'full',
    records,
    fetched: records - counts[Reason.Keep],
    reasons: {
      new: counts[Reason.New],
      changed: counts[Reason.Changed],
      cascade: counts[Reason.Cascade],
      refresh: counts[Reason.Refresh],
      recheck: counts[Reason.Recheck] + counts[Reason.Unverified],
    },
    fallbacks: made.fallbacks,
  };
}
