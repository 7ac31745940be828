/**
 * The plan of a sync, made once the lists are in and before any view or record is asked for: for
 * every filtered view and every single record, whether it is fetched, with which validators, and
 * why. Pure: it reads the previous snapshot's table (validators, and the digest of the list item
 * each record was last checked against) and the new lists; the pull only carries it out.
 */
import type { RequestValidators } from '../fetch/client.js';
import type { ViewKey } from '../index/views.js';
import { filterFile, recordFile } from '../snapshot/paths.js';
import type { FileTable } from '../snapshot/table.js';
import { RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import { sendable } from './conditional.js';
import type { ListSummary } from './lists.js';

/** Why a single record is fetched. */
export const Reason = {
  /** Not in the previous snapshot. */
  New: 1,
  /** Its list item differs from the one it was last checked against. */
  Changed: 2,
  /** In the previous snapshot, but nothing lets it be kept unread (no validators, or no findings to carry over). */
  Unverified: 3,
  /** "Changed since?": kept unread on a 304, with every finding it had. */
  Recheck: 4,
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
  return { views, records, carry };
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

/** The validators to send for record `n` of a plan: only to ask whether one checked against its very list item changed. */
export function recordValidators(records: RecordPlan, n: number, previous: FileTable | undefined): RequestValidators | undefined {
  return records.reasons[n] === Reason.Recheck ? sendable(previous!.validators(records.previous[n]!)) : undefined;
}

/** How many records each reason fetches, per resource. */
export function reasonCounts(records: RecordPlan): Record<Reason, number> {
  const counts: Record<Reason, number> = { [Reason.New]: 0, [Reason.Changed]: 0, [Reason.Unverified]: 0, [Reason.Recheck]: 0 };
  for (const reason of records.reasons) counts[reason as Reason]++;
  return counts;
}
