/**
 * `_meta/changes.json`: the last change sets, newest first, for readers of a plain static copy
 * without git. Bounded: `keep` entries, and per entry a cap on ids and field paths, with the
 * full counts always given. Pure; the sync reads and publishes the file.
 */
import { z } from 'zod';
import { RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import { encodeJson } from '../json/encode.js';
import { countChanges, hasChanges, type ChangeSet } from './engine.js';

/** Ids listed per resource and kind in one entry; the counts say how many there were in all. */
const MAX_IDS = 500;
/** Field paths listed per changed record. */
const MAX_FIELD_PATHS = 20;

const countsSchema = z.object({ added: z.int(), removed: z.int(), changed: z.int() });

const entrySchema = z.union([
  z.object({ at: z.string(), initial: z.literal(true), records: z.record(z.string(), z.int()) }),
  z.object({
    at: z.string(),
    counts: z.record(z.string(), countsSchema),
    resources: z.record(
      z.string(),
      z.object({ added: z.array(z.string()), removed: z.array(z.string()), changed: z.array(z.object({ id: z.string(), fields: z.array(z.string()) })) }),
    ),
  }),
]);

const historySchema = z.object({ changes: z.array(entrySchema) });

type History = z.infer<typeof historySchema>;
type HistoryEntry = z.infer<typeof entrySchema>;

/** Parses the file's bytes; undefined when missing or not ours (it is then started afresh). */
function parseHistory(bytes: Buffer | undefined): History | undefined {
  if (!bytes) return undefined;
  try {
    const result = historySchema.safeParse(JSON.parse(bytes.toString('utf8')));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}

/** The entry of the first snapshot of a folder: record counts only, not every id. */
export function initialEntry(at: string, records: Partial<Record<ResourceName, number>>): HistoryEntry {
  return { at, initial: true, records: { ...records } };
}

/** The entry of one change set: counts, and ids with their changed field paths, bounded. */
export function changeEntry(at: string, changes: ChangeSet): HistoryEntry {
  const all = countChanges(changes);
  const touched = RESOURCE_NAMES.filter((r) => all[r].added + all[r].removed + all[r].changed > 0);
  return {
    at,
    counts: Object.fromEntries(touched.map((r) => [r, all[r]])),
    resources: Object.fromEntries(
      touched.map((r) => [
        r,
        {
          added: changes[r].added.slice(0, MAX_IDS),
          removed: changes[r].removed.slice(0, MAX_IDS),
          changed: changes[r].changed.slice(0, MAX_IDS).map((id) => ({ id, fields: [...new Set((changes[r].fields[id] ?? []).map((f) => f.path))].slice(0, MAX_FIELD_PATHS) })),
        },
      ]),
    ),
  };
}

/** The history with `entry` in front, cut to `keep` entries. */
export function addEntry(history: History | undefined, entry: HistoryEntry, keep: number): History {
  return { changes: [entry, ...(history?.changes ?? [])].slice(0, keep) };
}

interface HistoryInput {
  /** Whether the folder held a snapshot before this sync. */
  hadSnapshot: boolean;
  changes: ChangeSet;
  records: Partial<Record<ResourceName, number>>;
  keep: number;
  at: Date;
}

/**
 * The change history's bytes for the new snapshot, from the published file's `existing` bytes
 * (undefined: it has none). Without record changes they are those bytes as they are, so an
 * unchanged re-sync rewrites nothing. `restarted` is set when `existing` was not ours.
 */
export function nextHistory(existing: Buffer | undefined, input: HistoryInput): { bytes: Buffer | undefined; restarted: boolean } {
  const changed = !input.hadSnapshot || hasChanges(input.changes);
  if (!changed) return { bytes: existing, restarted: false };
  const history = parseHistory(existing);
  const at = input.at.toISOString();
  const entry = input.hadSnapshot ? changeEntry(at, input.changes) : initialEntry(at, input.records);
  return { bytes: encodeJson(addEntry(history, entry, input.keep)), restarted: existing !== undefined && history === undefined };
}
