/** What a folder holds, for comparing it before and after a run. */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { listFiles } from '../../src/verify/verify.js';

export interface FileState {
  sha256: string;
  mtimeMs: number;
}

/** Every file under `dir` (missing folder: empty) with its hash and mtime. */
export async function treeState(dir: string): Promise<Map<string, FileState>> {
  const state = new Map<string, FileState>();
  let files: string[];
  try {
    files = await listFiles(dir);
  } catch {
    return state;
  }
  for (const path of files.sort()) {
    const full = join(dir, path);
    state.set(path, { sha256: createHash('sha256').update(readFileSync(full)).digest('hex'), mtimeMs: statSync(full).mtimeMs });
  }
  return state;
}

/** Every file's bytes under `dir`, concatenated: for "this string appears nowhere" checks. */
export async function allBytes(dir: string): Promise<string> {
  const files = await listFiles(dir);
  return files.map((p) => readFileSync(join(dir, p), 'latin1')).join('\n');
}

/**
 * The data files of a snapshot and their hashes, leaving out what tells the folder's own history
 * (run metadata, the change log and so the manifest): two folders synced from the same data
 * compare equal.
 */
export async function snapshotData(dir: string): Promise<Map<string, string>> {
  const state = await treeState(dir);
  for (const path of ['_meta/last-sync.json', '_meta/http-cache.json', '_meta/changes.json', '_meta/manifest.json']) state.delete(path);
  return new Map([...state].map(([path, s]) => [path, s.sha256]));
}
