/**
 * The page's change history (pure): `_browser/history.js`, the last change sets with what each
 * changed record's fields were before and after (`_meta/changes.json` keeps field paths only), and
 * the names of added and removed records, so the page can link and say `memory_GB 64 → 128`.
 * Rewritten only by a sync that changed records: a quiet re-sync leaves it as it is.
 */
import { z } from 'zod';
import type { ChangeSet, FieldChange } from '../diff/engine.js';
import { RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import { BROWSER_DIR } from './data.js';

export const HISTORY_FILE = `${BROWSER_DIR}/history.js`;
/** Change sets kept, newest first. */
const KEEP = 30;
/** Records listed per resource and kind in one entry; the counts say how many there were. */
const MAX_RECORDS = 500;
/** Fields listed per changed record. */
const MAX_FIELDS = 20;
/** A value longer than this (as JSON) is cut: the record's own file has it whole. */
const MAX_VALUE = 160;

const valueSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);
/** [path, before, after]; a side the record lacks is null. */
const fieldSchema = z.tuple([z.string(), valueSchema, valueSchema]);
const named = z.tuple([z.string(), z.string()]);
const resourceSchema = z.object({
  counts: z.object({ added: z.int(), removed: z.int(), changed: z.int() }),
  added: z.array(named),
  removed: z.array(named),
  changed: z.array(z.tuple([z.string(), z.string(), z.array(fieldSchema)])),
});
const entrySchema = z.object({ at: z.string(), initial: z.boolean(), records: z.record(z.string(), z.int()), resources: z.record(z.string(), resourceSchema) });
const historySchema = z.object({ entries: z.array(entrySchema) });

export type BrowserHistory = z.infer<typeof historySchema>;
export type BrowserHistoryEntry = z.infer<typeof entrySchema>;
type Value = z.infer<typeof valueSchema>;

const PREFIX = 'IM_HISTORY(JSON.parse(';
const SUFFIX = '));\n';

/** A field value as the page shows it: scalars as they are, anything else as JSON, cut when long. */
function shown(value: unknown): Value {
  if (value === undefined) return null;
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

const fieldRow = (f: FieldChange): [string, Value, Value] => [f.path, shown(f.old), shown(f.new)];

/** The entry of one sync: its change set with values, or for a first snapshot the record counts. */
export function historyEntry(at: string, changes: ChangeSet, records: Partial<Record<ResourceName, number>>, initial: boolean): BrowserHistoryEntry {
  const resources: BrowserHistoryEntry['resources'] = {};
  if (!initial) {
    for (const r of RESOURCE_NAMES) {
      const c = changes[r];
      if (c.added.length + c.removed.length + c.changed.length === 0) continue;
      const name = (id: string): [string, string] => [id, c.names[id] ?? id];
      resources[r] = {
        counts: { added: c.added.length, removed: c.removed.length, changed: c.changed.length },
        added: c.added.slice(0, MAX_RECORDS).map(name),
        removed: c.removed.slice(0, MAX_RECORDS).map(name),
        changed: c.changed.slice(0, MAX_RECORDS).map((id) => [id, c.names[id] ?? id, (c.fields[id] ?? []).slice(0, MAX_FIELDS).map(fieldRow)]),
      };
    }
  }
  return { at, initial, records: { ...records }, resources };
}

/** The history with `entry` in front, bounded. */
export function addHistoryEntry(history: BrowserHistory | undefined, entry: BrowserHistoryEntry): BrowserHistory {
  return { entries: [entry, ...(history?.entries ?? [])].slice(0, KEEP) };
}

/** The script's bytes. */
export function historyScript(history: BrowserHistory): string {
  return `${PREFIX}${JSON.stringify(JSON.stringify(history))}${SUFFIX}`;
}

/** The history a previous sync wrote; undefined when absent or not ours (it then starts afresh). */
export function parseHistoryScript(bytes: Buffer | undefined): BrowserHistory | undefined {
  const text = bytes?.toString('utf8');
  if (!text?.startsWith(PREFIX) || !text.endsWith(SUFFIX)) return undefined;
  try {
    const result = historySchema.safeParse(JSON.parse(JSON.parse(text.slice(PREFIX.length, -SUFFIX.length)) as string));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}
