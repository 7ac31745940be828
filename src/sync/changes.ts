/**
 * The records a sync added, removed and changed, with the fields that changed: the two file
 * tables say which record files differ, and only those are read, from the previous snapshot and
 * the new one.
 */
import { classifyTables, type ChangeSet } from '../diff/engine.js';
import { changeSetOf } from '../diff/read.js';
import type { NextSnapshot } from '../publish/next.js';

/** The change set from the snapshot `next` replaces to `next`. */
export function describeChanges(next: NextSnapshot): Promise<ChangeSet> {
  const previous = next.previous;
  return changeSetOf(classifyTables(previous?.table, next.entries), (path) => previous?.read(path) ?? Promise.resolve(undefined), (path) => next.read(path), { initial: previous === undefined });
}
