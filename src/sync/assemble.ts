/**
 * The third step: from what was pulled to the complete new snapshot's own files and the decisions
 * about it. Pure: record counts come from the new file table, findings from the pull (plus what
 * carries over and the cross-checks, see findings.ts), the change set from changes.ts; out come
 * the snapshot's index, quality report and change history, and whether it may be published (the
 * mass-removal guard, --strict).
 */
import type { SyncSettings } from '../config/schema.js';
import { emptyChangeSet, withFindings, type ChangeSet } from '../diff/engine.js';
import { nextHistory } from '../diff/history.js';
import { countRecords, indexFiles } from '../index/tree.js';
import type { ViewKey } from '../index/views.js';
import type { ListCut } from '../publish/next.js';
import type { RedactPolicy } from '../redact/policy.js';
import { CHANGES_FILE, filterFile, listFile, QUALITY_FILE } from '../snapshot/paths.js';
import type { FileTable } from '../snapshot/table.js';
import { RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import type { FindingGroup } from '../validate/findings.js';
import { encodeQuality, qualityReport, type Quality } from '../validate/quality.js';
import type { ShapeFacts } from '../validate/findings.js';
import { strictProblem, summarizeFindings, type FindingsSummary, type StrictProblem } from './result.js';

/** A resource that would lose more of its records than sync.massRemoval allows. */
export interface MassRemoval {
  resource: ResourceName;
  lost: number;
  before: number;
  maxShare: number;
}

/**
 * The first resource losing more than the allowed share of its records, if any, among those still
 * mirrored: a resource dropped from `resources` loses its records on purpose. Pure.
 */
export function massRemovalProblem(previous: Record<ResourceName, number>, next: Partial<Record<ResourceName, number>>, settings: SyncSettings['massRemoval']): MassRemoval | undefined {
  for (const resource of RESOURCE_NAMES) {
    const now = next[resource];
    if (now === undefined) continue;
    const before = previous[resource];
    const lost = before - now;
    if (before >= settings.minPrevious && before > 0 && lost / before > settings.maxShare) return { resource, lost, before, maxShare: settings.maxShare };
  }
  return undefined;
}

interface AssembleInput {
  /** The snapshot replaced: its files, quality report and change history (undefined on a first sync). */
  previous: { table: FileTable; quality: Quality | undefined; history: Buffer | undefined } | undefined;
  /** The new snapshot's files so far. */
  files: FileTable;
  views: readonly ViewKey[];
  groups: readonly FindingGroup[];
  shape: ShapeFacts;
  /** The records added, removed and changed (changes.ts). */
  changes: ChangeSet;
  /** The resources mirrored (config `resources`): counts, findings and changes cover only them. */
  resources: readonly ResourceName[];
  policy: {
    redact: RedactPolicy | undefined;
    /** The mass-removal guard; undefined: allowed. */
    massRemoval: SyncSettings['massRemoval'] | undefined;
    strict: boolean;
    accept: readonly string[];
    changesKeep: number;
  };
  at: Date;
}

export interface Assembled {
  /** The snapshot's own files: its index (filters, .gitignore, .gitattributes, redaction policy), quality report (in pieces, made as they are iterated) and change history. */
  files: Map<string, Buffer | Iterable<Buffer>>;
  /** Per resource mirrored, its records. */
  records: Partial<Record<ResourceName, number>>;
  quality: Quality;
  /** The change set, with the findings that appeared and were fixed. */
  changes: ChangeSet;
  findings: FindingsSummary;
  /** What keeps the snapshot from being published, if anything. */
  refused: { massRemoval?: MassRemoval | undefined; strict?: StrictProblem | undefined };
  /** The folder's change history was not ours, and starts afresh. */
  historyRestarted: boolean;
}

/**
 * The lists and views published otherwise than the pull staged them: every list and view of a
 * resource some of whose listed records answered 404 as single records, without those records, so
 * that every item published has its record file (the pull found them `gone`). Pure: the new
 * snapshot writes them (NextSnapshot.writeCut). Decided before the rest of the assembly, since
 * redaction by value reads the files as they will be published.
 */
export function finalLists(gone: Record<ResourceName, readonly string[]>, views: readonly ViewKey[]): ListCut[] {
  const cuts: ListCut[] = [];
  for (const resource of RESOURCE_NAMES) {
    if (gone[resource].length === 0) continue;
    const without = new Set(gone[resource]);
    cuts.push({ file: listFile(resource), key: resource, without });
    // Every view of the resource, whether it showed one of them or not: none is the service's body any more (see writeCut).
    for (const view of views) if (view.resource === resource) cuts.push({ file: filterFile(resource, view.param, view.value), key: resource, without });
  }
  return cuts;
}

/** The changes of the resources mirrored: a dropped resource's files leave the snapshot, but its records were not removed from the inventory. */
function onlyOf(changes: ChangeSet, resources: readonly ResourceName[]): ChangeSet {
  const empty = emptyChangeSet();
  return Object.fromEntries(RESOURCE_NAMES.map((r) => [r, resources.includes(r) ? changes[r] : empty[r]])) as ChangeSet;
}

/** The new snapshot's own files and the decisions about it. Pure. */
export function assemble(input: AssembleInput): Assembled {
  const { previous, policy } = input;
  const files: Assembled['files'] = indexFiles(input.views, policy.redact);
  const counted = countRecords(input.files.pathSpans());
  const records: Partial<Record<ResourceName, number>> = Object.fromEntries(input.resources.map((r) => [r, counted[r]]));
  const massRemoval = previous && policy.massRemoval ? massRemovalProblem(countRecords(previous.table.pathSpans()), records, policy.massRemoval) : undefined;
  const quality = qualityReport(input.groups, records, input.shape);
  const changes = withFindings(onlyOf(input.changes, input.resources), previous?.quality, quality);
  const history = nextHistory(previous?.history, { hadSnapshot: previous !== undefined, changes, records, keep: policy.changesKeep, at: input.at });
  if (history.bytes) files.set(CHANGES_FILE, history.bytes);
  files.set(QUALITY_FILE, encodeQuality(quality));
  const findings = summarizeFindings(input.groups, records, policy.accept, input.shape);
  return { files, records, quality, changes, findings, refused: { massRemoval, strict: policy.strict ? strictProblem(findings) : undefined }, historyRestarted: history.restarted };
}
