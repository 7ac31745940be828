/**
 * What `verify` and `pack` do before reading a folder: they only read, so they take no lock,
 * unless an interrupted publish is there to finish (a journal or staged files) or a killed run's
 * lock to clear, and even then a folder they cannot write (a read-only snapshot, another user's)
 * is read as it is. Neither needs
 * the lock to be right: both check every file against the manifest they read.
 */
import { join } from 'node:path';
import fs from 'fs-extra';
import { describeFsError, LockedError } from '../errors.js';
import { WORK_DIR } from '../snapshot/paths.js';
import { journalPath, recover, stagingDir } from './journal.js';
import { acquireLock, holdsStaleLock } from './lock.js';

/**
 * Finishes an interrupted publish in `dir` when there is one and it can, and clears the lock of a
 * killed run (as any writer would, taking it over); a note for the user, or undefined.
 */
export async function recoverBeforeReading(dir: string, command: string): Promise<string | undefined> {
  const pending = (await fs.pathExists(journalPath(dir))) || (await fs.pathExists(stagingDir(dir)));
  if (!pending && !(await holdsStaleLock(dir))) return undefined;
  let lock;
  try {
    lock = await acquireLock(dir, command);
  } catch (error) {
    // A sync running now finishes it itself.
    if (error instanceof LockedError) return undefined;
    const problem = describeFsError(error);
    if (problem === undefined) throw error;
    // Only a dead run's lock, in a folder this process may not write: nothing to say about it.
    if (!pending) return undefined;
    return `an interrupted publish in ${join(dir, WORK_DIR)} cannot be finished (${problem}); checking the folder as it is`;
  }
  try {
    return pending ? await recover(dir) : undefined;
  } finally {
    await lock.release();
  }
}
