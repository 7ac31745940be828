/**
 * The output folder's own folders must be real folders: a symbolic link inside it (`servers ->
 * /elsewhere`, `.inventory-mirror -> /elsewhere`) would make a publish write, rename or delete
 * outside the folder. Every folder a run writes into, deletes from or reads a snapshot from is
 * checked without following links (lstat), and a link is refused by name. The output folder
 * itself may be a link (an operator's choice of where the data lives).
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { OutputError } from '../errors.js';
import type { Spans } from '../util/string-set.js';

/** Whether `rel` (a `/`-separated folder inside `dir`) is absent or a real folder; throws for a link or a file. */
export async function safeFolder(dir: string, rel: string): Promise<'absent' | 'folder'> {
  const path = join(dir, rel);
  let stat;
  try {
    stat = await lstat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'absent';
    if (code === 'ENOTDIR') throw new OutputError(`${path}: a folder on its way is a file; remove it or sync into another folder`);
    throw error;
  }
  if (stat.isSymbolicLink()) throw new OutputError(`${path} is a symbolic link; inventory-mirror never writes, deletes or serves through a link inside the output folder. Replace it with a real folder (or use the link's target as the output folder)`);
  if (!stat.isDirectory()) throw new OutputError(`${path} is a file where the snapshot has a folder; move it away or sync into another folder`);
  return 'folder';
}

/** The folders that hold `paths` ('' for the top), each once, with how many of the paths each holds. */
export function foldersOf(paths: Spans): Map<string, number> {
  const folders = new Map<string, number>();
  let last: string | undefined;
  let count = 0;
  paths((text, start, end) => {
    const slash = text.lastIndexOf('/', end - 1);
    const cut = slash < start ? start : slash;
    // A path in a sorted table nearly always has the folder of the one before: compared in place, no string made.
    if (last !== undefined && cut - start === last.length && text.startsWith(last, start)) {
      count++;
      return;
    }
    if (last !== undefined) folders.set(last, (folders.get(last) ?? 0) + count);
    last = text.slice(start, cut);
    count = 1;
  });
  if (last !== undefined) folders.set(last, (folders.get(last) ?? 0) + count);
  return folders;
}

/** Checks `folders` (inside `dir`, as foldersOf gives them) and every folder on the way to them, each once. */
export async function checkFolders(dir: string, folders: Iterable<string>): Promise<void> {
  const all = new Set<string>();
  for (const folder of folders) {
    if (folder === '') continue;
    for (let cut = folder.indexOf('/'); cut !== -1; cut = folder.indexOf('/', cut + 1)) all.add(folder.slice(0, cut));
    all.add(folder);
  }
  // Shallow first, so an absent folder spares the checks below it.
  const absent: string[] = [];
  for (const folder of [...all].sort((a, b) => a.split('/').length - b.split('/').length)) {
    if (absent.some((gone) => folder.startsWith(`${gone}/`))) continue;
    if ((await safeFolder(dir, folder)) === 'absent') absent.push(folder);
  }
}

/** Checks every folder on the way to each of `paths` (files inside `dir`), each folder once. */
export function checkFoldersOf(dir: string, paths: Spans): Promise<void> {
  return checkFolders(dir, foldersOf(paths).keys());
}
