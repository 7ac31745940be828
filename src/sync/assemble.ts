/**
 * The third step: from what was pulled (staged or kept) to the complete new snapshot. Decisions
 * are pure functions of what is already known (record counts → the mass-removal guard, findings
 * → the quality report and --strict, the two tables → the change set); the driver reads the few
 * files they need and hands the snapshot's own files (index, history, quality, page) to the writer.
 */
import { join } from 'node:path';
import fs from 'fs-extra';
import { browserFiles } from '../browser/index.js';
import type { SyncSettings } from '../config/schema.js';
import { classifyTables, withFindings, type ChangeSet } from '../diff/engine.js';
import { nextHistory } from '../diff/history.js';
import { changeSetOf, folderReader } from '../diff/read.js';
import { MassRemovalError } from '../errors.js';
import { countRecords, indexFiles } from '../index/tree.js';
import type { ViewKey } from '../index/views.js';
import type { Log } from '../log.js';
import { CHANGES_FILE, QUALITY_FILE } from '../snapshot/paths.js';
import type { SnapshotWriter } from '../publish/writer.js';
import type { RedactPolicy } from '../redact/policy.js';
import { RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import type { FindingGroup } from '../validate/findings.js';
import { encodeQuality, qualityReport, type Quality, type ShapeFacts } from '../validate/quality.js';

/** Refuses a snapshot in which a resource lost more than the allowed share of its records. Pure. */
export function massRemovalProblem(previous: Record<ResourceName, number>, next: Record<ResourceName, number>, settings: SyncSettings['massRemoval']): string | undefined {
  for (const resource of RESOURCE_NAMES) {
    const before = previous[resource];
    const lost = before - next[resource];
    if (before >= settings.minPrevious && before > 0 && lost / before > settings.maxShare) {
      return `${resource} would lose ${lost} of ${before} records (${Math.round((lost / before) * 100)}%, over the ${Math.round(settings.maxShare * 100)}% allowed by sync.massRemoval.maxShare); nothing was published. If the service really lost them, run again with --allow-mass-removal`;
    }
  }
  return undefined;
}

interface AssembleInput {
  out: string;
  writer: SnapshotWriter;
  views: readonly ViewKey[];
  groups: readonly FindingGroup[];
  shape: ShapeFacts;
  /** The previous snapshot's quality report, to tell findings that appeared and were fixed. */
  previousQuality: Quality | undefined;
  redact: RedactPolicy | undefined;
  massRemoval: SyncSettings['massRemoval'] | undefined;
  changesKeep: number;
  browser: boolean;
  at: Date;
  log: Log;
}

interface Assembled {
  records: Record<ResourceName, number>;
  changes: ChangeSet;
  initial: boolean;
}

/** Completes the new snapshot in `writer`: index files, then (records being final) history, quality and page. */
export async function assemble(input: AssembleInput): Promise<Assembled> {
  const { writer, out } = input;
  const previous = writer.previous;
  for (const [path, bytes] of indexFiles(input.views, input.redact)) await writer.put(path, bytes);
  const records = countRecords(writer.entries.paths());
  if (previous && input.massRemoval) {
    const problem = massRemovalProblem(countRecords(previous.paths()), records, input.massRemoval);
    if (problem) throw new MassRemovalError(problem);
  }
  const initial = previous === undefined;
  const paths = classifyTables(previous, writer.entries);
  const quality = qualityReport(input.groups, records, input.shape);
  const changes = withFindings(await changeSetOf(paths, folderReader(out), (path) => writer.read(path), { initial }), initial ? undefined : input.previousQuality, quality);
  const existing = await fs.readFile(join(out, CHANGES_FILE)).catch(() => undefined);
  const history = nextHistory(existing, { hadSnapshot: !initial, changes, records, keep: input.changesKeep, at: input.at });
  if (history.restarted) input.log.warn(`${CHANGES_FILE} was not a change history of ours; starting it afresh`);
  if (history.bytes) await writer.put(CHANGES_FILE, history.bytes);
  await writer.put(QUALITY_FILE, encodeQuality(quality));
  if (input.browser) await browserFiles({ writer, quality, changes, records, initial, at: input.at });
  return { records, changes, initial };
}
