/**
 * The output folder as a place to publish into: it must be a real, writable folder, and, unless
 * the caller says otherwise, either hold a snapshot of ours or nothing else. Made when absent,
 * one level at a time (a recursive mkdir on a pseudo-file-system such as /proc never ends), and
 * what this process made is removed again when its first sync fails before publishing.
 */
import { constants } from 'node:fs';
import { access, lstat, mkdir, readdir, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describeFsError, NotEmptyError, NotSnapshotError, OutputError } from '../errors.js';
import { acquireLock, type Lock } from './lock.js';
import { MANIFEST_FILE, WORK_DIR } from '../snapshot/paths.js';

/** Entries a folder may hold and still count as empty: ours, and a repository's. */
const NEUTRAL = new Set([WORK_DIR, '.git', '.gitkeep']);

/** What to do about an output folder the system refuses, by the reason it gives. */
const FIXES: Record<string, string> = {
  EACCES: 'run as a user who may write it, or choose another output folder',
  EPERM: 'run as a user who may write it, or choose another output folder',
  EROFS: 'choose a folder on a writable file system',
  ENOTDIR: 'choose another output folder',
  ENOENT: 'choose a folder that can be made',
};

function unusable(error: unknown): OutputError {
  const fix = FIXES[(error as NodeJS.ErrnoException).code ?? ''] ?? 'make the folder yourself, or choose another output folder';
  return new OutputError(`cannot use the output folder: ${describeFsError(error) ?? String(error)}; ${fix}`, { cause: error });
}

/** Makes `out` exist as a writable folder; returns the first folder this call created (undefined: it existed). */
async function prepareOutput(out: string): Promise<string | undefined> {
  const info = await lstat(out).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw unusable(error);
  });
  if (info && !info.isDirectory() && !(info.isSymbolicLink() && (await stat(out).catch(() => undefined))?.isDirectory())) {
    throw new OutputError(`the output folder ${out} is ${info.isSymbolicLink() ? 'a link to something that is not a folder' : 'a file'}; choose a folder (it is made when it does not exist)`);
  }
  let created: string | undefined;
  if (!info) {
    const missing: string[] = [];
    for (let dir = out; ; dir = dirname(dir)) {
      const parent = await stat(dir).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw unusable(error);
      });
      if (parent) {
        if (!parent.isDirectory()) throw new OutputError(`cannot make the output folder ${out}: ${dir} is a file; choose another output folder`);
        break;
      }
      missing.unshift(dir);
      if (dirname(dir) === dir) break;
    }
    for (const dir of missing) {
      try {
        await mkdir(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw unusable(error);
      }
      created ??= dir;
    }
  }
  try {
    await access(out, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw unusable(error);
  }
  return created;
}

/**
 * Refuses a folder that holds files but no snapshot of ours: publishing into it would mix the two
 * and `verify` would fail on it for ever after. Call after recovery (which may complete a first
 * publish that was interrupted).
 */
export async function checkForeignFiles(out: string): Promise<void> {
  if ((await stat(join(out, MANIFEST_FILE)).catch(() => undefined))?.isFile()) return;
  const foreign = (await readdir(out)).filter((name) => !NEUTRAL.has(name)).sort();
  if (foreign.length === 0) return;
  const shown = foreign.slice(0, 3).map((name) => JSON.stringify(name)).join(', ');
  // Say it by name: publishing would replace the user's own files of these names.
  const own = foreign.filter((name) => name === '.gitignore' || name === '.gitattributes');
  const replaced = own.length ? `its own ${own.join(' and ')} would then be replaced by the snapshot's` : "the snapshot's .gitignore and .gitattributes then replace any there";
  throw new NotEmptyError(`the output folder ${out} is not empty (${shown}${foreign.length > 3 ? `, and ${foreign.length - 3} more` : ''}) and holds no snapshot; sync into a new or empty folder, or allow publishing among those files (${replaced}, and verify names the other files as extra)`);
}

/**
 * Undoes what `prepareOutput` made after a failed first sync: every entry of `out` but the work
 * folder (whose lock the caller still holds) goes now; `out` and the folders above it that this
 * run made go once `release` has dropped the lock, and only if they are then empty, so another
 * process that got there in between keeps what it made.
 */
async function removeCreated(out: string, created: string, release: () => Promise<void>): Promise<void> {
  for (const name of await readdir(out).catch(() => [] as string[])) if (name !== WORK_DIR) await rm(join(out, name), { recursive: true, force: true });
  await release();
  for (let dir = out; ; dir = dirname(dir)) {
    try {
      await rmdir(dir);
    } catch {
      return;
    }
    if (dir === created || dirname(dir) === dir) return;
  }
}

/** An output folder made ready and locked for one writer. */
export interface HeldOutput {
  out: string;
  lock: Lock;
  /**
   * Lets go of the folder. `published`: whether a snapshot was published into it; when not, and
   * this run made the folder, the folder goes again.
   */
  release(published: boolean): Promise<void>;
}

/** Makes `out` ready (creating it when absent) and takes its lock for `command`. */
export async function holdOutput(out: string, command: string): Promise<HeldOutput> {
  const created = await prepareOutput(out);
  let lock: Lock;
  try {
    lock = await acquireLock(out, command);
  } catch (error) {
    // Another process holds the lock: the folder is its now, whoever made it.
    throw error;
  }
  let released = false;
  return {
    out,
    lock,
    release: async (published) => {
      if (released) return;
      released = true;
      if (created && !published) await removeCreated(out, created, () => lock.release());
      else await lock.release();
    },
  };
}

/** Refuses a path that is not a folder, for the commands that read a published snapshot. */
export async function requireFolder(dir: string, hint = 'pass the output folder with --dir'): Promise<void> {
  if (!(await stat(dir).catch(() => undefined))?.isDirectory()) throw new NotSnapshotError(`${dir} is not a folder; ${hint}`);
}
