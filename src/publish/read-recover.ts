/**
 * What `verify` and `pack` do before reading a folder: they only read, so they take no lock,
 * unless an interrupted publish is there to finish (a journal or staged files), and even then a
 * folder they cannot write (a read-only snapshot, another user's) is read as it is. Neither needs
 * the lock to be right: both check every file against the manifest they read.
 */
import { join } from 'node:path';
import fs from 'fs-extra';
import { describeFsError, LockedError } from '../errors.js';
import { WORK_DIR } from '../snapshot/paths.js';
import { journalPath, recover, stagingDir } from './journal.js';
import { acquireLock } from './lock.js';

/** Finishes an interrupted publish in `dir` when there is one and it can; a note for the user, or undefined. */
export async function recoverBeforeReading(dir: string, command: string): Promise<string | undefined> {
  const pending = (await fs.pathExists(journalPath(dir))) || (await fs.pathExists(stagingDir(dir)));
  if (!pending) return undefined;
  let lock;
  try {
    lock = await acquireLock(dir, command);
  } catch (error) {
    // A sync running now finishes it itself.
    if (error instanceof LockedError) return undefined;
    const problem = describeFsError(error);
    if (problem === undefined) throw error;
    return `an interrupted publish in ${join(dir, WORK_DIR)} cannot be finished (${problem}); checking the folder as it is`;
  }
  try {
    return await recover(dir);
  } finally {
    await lock.release();
  }
}
