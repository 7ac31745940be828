/**
 * One writer per output folder: `.inventory-mirror/lock` holds the writer's pid. A lock whose
 * pid is dead (a crashed or killed sync) is taken over with a warning.
 */
import { hostname } from 'node:os';
import { join } from 'node:path';
import fs from 'fs-extra';
import { LockedError } from '../errors.js';
import { WORK_DIR } from '../snapshot/paths.js';
import { safeFolder } from '../snapshot/safe-folder.js';

export interface Lock {
  release(): Promise<void>;
  /** Set when a stale lock was taken over. */
  warning: string | undefined;
}

interface LockInfo {
  pid: number;
  host: string;
  command: string;
  since: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readLock(path: string): Promise<LockInfo | undefined> {
  try {
    const info = JSON.parse(await fs.readFile(path, 'utf8')) as Partial<LockInfo>;
    return typeof info.pid === 'number' ? (info as LockInfo) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Creates `path` with `content`, or fails EEXIST; never seen empty or half-written. With an
 * exclusive create and a write after it, a second sync could read the lock between the two, find
 * it unreadable, take it over and run alongside the first; a hard link appears whole.
 */
async function createWhole(path: string, content: string): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  await fs.writeFile(temp, content);
  try {
    await fs.link(temp, path);
  } finally {
    await fs.rm(temp, { force: true });
  }
}

/**
 * Removes the lock files that processes now gone were writing aside (a kill -9 between the write
 * and the link leaves one): left, they would keep the work folder from ever being removed.
 */
async function removeDeadTemps(workDir: string): Promise<void> {
  for (const name of await fs.readdir(workDir).catch(() => [] as string[])) {
    const pid = Number(/^lock\.(\d+)\.tmp$/.exec(name)?.[1]);
    if (pid > 0 && pid !== process.pid && !isAlive(pid)) await fs.rm(join(workDir, name), { force: true });
  }
}

/** Takes the folder's lock for `command`, or throws E_LOCKED naming the holder. */
export async function acquireLock(dir: string, command: string): Promise<Lock> {
  const path = join(dir, WORK_DIR, 'lock');
  if ((await safeFolder(dir, WORK_DIR)) === 'absent') {
    await fs.mkdir(join(dir, WORK_DIR)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  }
  const info: LockInfo = { pid: process.pid, host: hostname(), command, since: new Date().toISOString() };
  let warning: string | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await createWhole(path, `${JSON.stringify(info)}\n`);
      await removeDeadTemps(join(dir, WORK_DIR));
      let released = false;
      return {
        warning,
        release: async () => {
          if (released) return;
          released = true;
          await fs.rm(path, { force: true });
          // Leave no empty work folder behind, so a run that changed nothing leaves no trace.
          await fs.rmdir(join(dir, WORK_DIR)).catch(() => {});
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readLock(path);
    if (holder && (holder.host !== info.host || isAlive(holder.pid))) {
      throw new LockedError(`${dir} is locked by ${holder.command} (pid ${holder.pid} on ${holder.host}, since ${holder.since}); wait for it to finish, or delete ${path} if that process is gone`);
    }
    warning = holder ? `took over a stale lock of ${dir} left by pid ${holder.pid} (${holder.command}, since ${holder.since}), which is no longer running` : `took over an unreadable lock file ${path}`;
    await fs.rm(path, { force: true });
  }
  throw new LockedError(`${dir}: could not take the lock ${path}; another process keeps taking it`);
}
