/** `_meta/changes.json` of a sync: rewritten only when records changed. */
import { join } from 'node:path';
import fs from 'fs-extra';
import { CHANGES_FILE } from '../publish/paths.js';
import { encodeJson } from '../publish/json.js';
import type { ResourceName } from '../spec/resources.js';
import { hasChanges, type ChangeSet } from './engine.js';
import { addEntry, changeEntry, initialEntry, parseHistory } from './history.js';

export interface HistoryInput {
  /** Whether the folder held a snapshot before this sync. */
  hadSnapshot: boolean;
  changes: ChangeSet;
  records: Record<ResourceName, number>;
  keep: number;
  at: Date;
  log?: (line: string) => void;
}

/**
 * The change history's bytes for the new snapshot (undefined: it has none). Without record
 * changes they are the file's bytes as they are on disk, so an unchanged re-sync rewrites nothing.
 */
export async function changeHistory(out: string, input: HistoryInput): Promise<Buffer | undefined> {
  const existing = await fs.readFile(join(out, CHANGES_FILE)).catch(() => undefined);
  const changed = !input.hadSnapshot || hasChanges(input.changes);
  if (!changed) return existing;
  const history = parseHistory(existing);
  if (existing && !history) input.log?.(`warning: ${CHANGES_FILE} was not a change history of ours; starting it afresh`);
  const at = input.at.toISOString();
  const entry = input.hadSnapshot ? changeEntry(at, input.changes) : initialEntry(at, input.records);
  return encodeJson(addEntry(history, entry, input.keep));
}
