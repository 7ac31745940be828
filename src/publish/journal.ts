/**
 * Applying a snapshot so that a crash at any moment leaves a folder that the next run recovers:
 * changed files are first written under `.inventory-mirror/staging/` (by writer.ts), then a
 * journal naming every pending rename and removal is renamed into place (the commit point), then
 * applied. A run that finds a journal rolls it forward; staged files without a journal are
 * discarded.
 *
 * No fsync per file: a killed process loses nothing the kernel already holds, so kill -9 at any
 * point is safe. On power loss the kernel may drop recent writes; recovery then finds staged files
 * whose hash does not match the journal, removes them from the folder, and the next sync, which
 * checks that every unchanged file still exists with its size, writes them again. (Folders moved
 * whole carry no hashes; `verify` names what power loss damaged in them.)
 */
import { dirname, join } from 'node:path';
import pLimit from 'p-limit';
import fs from 'fs-extra';
import { z } from 'zod';
import { JournalError } from '../errors.js';
import { sha256 } from '../snapshot/manifest.js';
import { isSnapshotPath, MANIFEST_FILE, SIGNATURE_FILE, WORK_DIR } from '../snapshot/paths.js';
import { checkFoldersOf, safeFolder } from '../snapshot/safe-folder.js';
import { replaceFile } from '../util/atomic-write.js';
import { spansOf } from '../util/string-set.js';
import { isSafeRelative } from '../util/relative-path.js';

const safePath = z.string().refine(isSafeRelative, 'not a relative path inside the folder');
/** Where a put lands or what is removed: a path the snapshot's naming rule makes, nothing else. */
const snapshotPath = z.string().refine(isSnapshotPath, 'not a path of a snapshot');

/**
 * A publish to apply. `puts`: staged path (relative to the staging folder) → path in the folder;
 * a file carries the hash it must have, a folder (new to the snapshot, moved whole) none. Read back
 * from disk on recovery, so every path is checked before it is joined to a folder.
 */
const journalSchema = z.strictObject({
  format: z.literal(2),
  puts: z.array(z.strictObject({ staged: safePath.refine((p) => p.startsWith('tree/') || p.startsWith('final/'), 'not under tree/ or final/'), path: snapshotPath, sha256: z.string().regex(/^[0-9a-f]{64}$/).optional() })),
  removes: z.array(snapshotPath),
});

export type Journal = z.infer<typeof journalSchema>;

const JOURNAL = 'journal.json';
const STAGING = 'staging';
const IO_CONCURRENCY = 32;

type JournalPut = Journal['puts'][number];

export const stagingDir = (dir: string): string => join(dir, WORK_DIR, STAGING);
export const journalPath = (dir: string): string => join(dir, WORK_DIR, JOURNAL);

/**
 * Whether a put is placed after the whole tree, one by one in journal order: the run metadata
 * bound to the manifest, the manifest, then its signature (staged apart, under `final/`).
 */
function isFinal(put: JournalPut): boolean {
  return put.staged.startsWith('final/') || put.path === MANIFEST_FILE || put.path === SIGNATURE_FILE;
}

/** The commit point: once this rename is done, the new snapshot will be applied, now or on recovery. */
export async function commit(dir: string, journal: Journal): Promise<void> {
  // Not committed on a failure (a full disk, say): replaceFile leaves no half-written journal behind.
  await replaceFile(journalPath(dir), JSON.stringify(journal));
}

/**
 * Applies a committed journal; safe to run again on a half-applied one. With `checkStaged` (on
 * recovery) staged files are hashed first, and ones the disk lost are dropped, not placed.
 * Returns the paths it had to drop.
 */
export async function rollForward(dir: string, journal: Journal, checkStaged = false): Promise<string[]> {
  const staging = stagingDir(dir);
  // Never rename into or delete from a folder that is a link out of the output folder.
  await checkFoldersOf(dir, spansOf([...journal.puts.map((p) => p.path), ...journal.removes]));
  const made = new Set<string>();
  const ensureDir = async (path: string): Promise<void> => {
    const parent = dirname(path);
    if (made.has(parent)) return;
    await fs.mkdir(parent, { recursive: true });
    made.add(parent);
  };
  const dropped: string[] = [];
  const limit = pLimit(IO_CONCURRENCY);
  const last = journal.puts.filter(isFinal);
  const place = async (put: JournalPut): Promise<void> => {
    const from = join(staging, put.staged);
    const to = join(dir, put.path);
    if (checkStaged && put.sha256 !== undefined) {
      const staged = await fs.readFile(from).catch(() => undefined);
      if (staged && sha256(staged) !== put.sha256) {
        dropped.push(put.path);
        return;
      }
    }
    try {
      await ensureDir(to);
      await fs.rename(from, to);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      // Renamed before a crash: the target holds it, unless the disk lost it.
      if (!(await placed(put, to))) dropped.push(put.path);
    }
  };
  await Promise.all(journal.puts.filter((p) => !isFinal(p)).map((put) => limit(() => place(put))));
  await Promise.all(journal.removes.map((path) => limit(() => fs.rm(join(dir, path), { force: true }))));
  await pruneEmptyDirs(dir, journal.removes);
  for (const path of dropped) await fs.rm(join(dir, path), { force: true });
  for (const put of last) await place(put);
  await fs.rm(journalPath(dir), { force: true });
  await fs.rm(staging, { recursive: true, force: true });
  return dropped;
}

/** Whether a put whose staged file is gone is in place. */
async function placed(put: JournalPut, to: string): Promise<boolean> {
  if (put.sha256 === undefined) return fs.pathExists(to);
  const bytes = await fs.readFile(to).catch(() => undefined);
  return bytes !== undefined && sha256(bytes) === put.sha256;
}

/** Removes the folders that removals left empty (`servers/_filter/by_arch/` after its last value went). */
async function pruneEmptyDirs(dir: string, removed: string[]): Promise<void> {
  const candidates = new Set<string>();
  for (const path of removed) {
    for (let parent = dirname(path); parent !== '.' && parent !== ''; parent = dirname(parent)) candidates.add(parent);
  }
  // Deepest first, so a parent is tried after its children.
  for (const rel of [...candidates].sort((a, b) => b.split('/').length - a.split('/').length)) {
    try {
      await fs.rmdir(join(dir, rel));
    } catch {
      // Not empty, or already gone: either way nothing to do.
    }
  }
}

/**
 * Finishes or discards an interrupted publish. Call with the folder's lock held, before reading
 * the folder. Returns a message when there was something to recover.
 */
export async function recover(dir: string): Promise<string | undefined> {
  if ((await safeFolder(dir, WORK_DIR)) === 'absent') return undefined;
  const path = journalPath(dir);
  let text: string | undefined;
  try {
    text = await fs.readFile(path, 'utf8');
  } catch {
    text = undefined;
  }
  if (text === undefined) {
    const staging = stagingDir(dir);
    if (!(await fs.pathExists(staging))) return undefined;
    await fs.rm(staging, { recursive: true, force: true });
    return `discarded the files of a publish into ${dir} that was interrupted before its commit point; the folder keeps the previous snapshot`;
  }
  let journal: Journal;
  try {
    const parsed = journalSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new Error(`${parsed.error.issues[0]!.path.join('.')}: ${parsed.error.issues[0]!.message}`);
    journal = parsed.data;
  } catch (error) {
    throw new JournalError(`${path} is damaged (${(error as Error).message}); run \`inventory-mirror sync\` after deleting it, then \`verify\``);
  }
  const dropped = await rollForward(dir, journal, true);
  const tail = dropped.length ? `; ${dropped.length} staged file(s) were lost (${dropped.slice(0, 3).join(', ')}), the next sync writes them again` : '';
  return `finished a publish into ${dir} that was interrupted after its commit point (${journal.puts.length} files and folders placed, ${journal.removes.length} removed)${tail}`;
}
