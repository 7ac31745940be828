/** The rows of the changes page (pure): one per record change in the kept history, filtered. */
import type { FieldChange, History } from './types.js';

export type ChangeKind = 'added' | 'removed' | 'changed';

export interface ChangeRow {
  sync: number;
  at: string;
  resource: string;
  kind: ChangeKind;
  id: string;
  name: string;
  fields: FieldChange[];
}

export interface ChangeFilter {
  /** Index of a sync in the history (0 = the last), or every sync. */
  sync?: number;
  resource?: string;
  kind?: ChangeKind;
  /** Text in the record's name or id, or a changed field's path. */
  text?: string;
}

/** Every change the history keeps, newest sync first, that passes the filter. */
export function changeRows(history: History, order: readonly string[], filter: ChangeFilter): ChangeRow[] {
  const out: ChangeRow[] = [];
  const text = filter.text?.trim().toLowerCase() ?? '';
  history.entries.forEach((e, sync) => {
    if (filter.sync !== undefined && filter.sync !== sync) return;
    for (const resource of order) {
      if (filter.resource && filter.resource !== resource) continue;
      const c = Object.hasOwn(e.resources, resource) ? e.resources[resource] : undefined;
      if (!c) continue;
      const push = (kind: ChangeKind, id: string, name: string, fields: FieldChange[]): void => {
        if (filter.kind && filter.kind !== kind) return;
        if (text && !`${id}\u0001${name}`.toLowerCase().includes(text) && !fields.some((f) => f[0].toLowerCase().includes(text))) return;
        out.push({ sync, at: e.at, resource, kind, id, name, fields });
      };
      for (const [id, name] of c.added) push('added', id, name, []);
      for (const [id, name] of c.removed) push('removed', id, name, []);
      for (const [id, name, fields] of c.changed) push('changed', id, name, fields);
    }
  });
  return out;
}

/** Per sync and resource, how many changes the history counted but did not list (it keeps a few hundred per kind). */
export function unlisted(history: History, filter: ChangeFilter): number {
  let n = 0;
  history.entries.forEach((e, sync) => {
    if (filter.sync !== undefined && filter.sync !== sync) return;
    for (const [r, c] of Object.entries(e.resources)) {
      if (filter.resource && filter.resource !== r) continue;
      for (const kind of ['added', 'removed', 'changed'] as const) if (!filter.kind || filter.kind === kind) n += c.counts[kind] - c[kind].length;
    }
  });
  return n;
}

/** The column the page adds to every table: whether the last sync added or changed the record. */
export const CHANGED_COLUMN = '_changed';

/**
 * The ids the last sync added or changed in `resource`, and whether that list is whole (the
 * history lists a few hundred per kind); undefined when the last entry is a first snapshot.
 */
export function lastChanged(history: History, resource: string): { ids: Set<string>; whole: boolean } | undefined {
  const last = history.entries[0];
  if (!last || last.initial) return undefined;
  const c = Object.hasOwn(last.resources, resource) ? last.resources[resource] : undefined;
  if (!c) return { ids: new Set(), whole: true };
  return { ids: new Set([...c.added.map((x) => x[0]), ...c.changed.map((x) => x[0])]), whole: c.added.length === c.counts.added && c.changed.length === c.counts.changed };
}
