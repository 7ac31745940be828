/**
 * One writer per output folder: `.inventory-mirror/lock` holds the writer's pid and a random id.
 * A lock whose pid is dead (a crashed or killed sync) is taken over with a warning.
 *
 * The takeover never deletes the lock: two processes that both read the same dead holder would
 * otherwise each delete "it" and the second would delete the first one's fresh lock. Instead the
 * taker first creates, exclusively, a marker named after the dead lock's bytes; only the one that
 * creates it may replace the lock (an atomic rename over it, so the lock is never missing), and
 * only while the lock still holds those bytes. A marker whose creator died too is passed over by
 * a marker one level deeper. `release` removes the lock only while it is still its own.
 */
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import fs from 'fs-extra';
import { LockedError } from '../errors.js';
import { WORK_DIR } from '../snapshot/paths.js';
import { safeFolder } from '../snapshot/safe-folder.js';
import { writeNew } from '../util/atomic-write.js';

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
  /** Tells this holder's lock from a later one of a process that got the same pid. */
  id: string;
}

/** Bounds the takeover loop: each round either takes the lock, finds it held, or passes a dead marker. */
const ATTEMPTS = 6;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parseLock(bytes: Buffer): LockInfo | undefined {
  try {
    const info = JSON.parse(bytes.toString('utf8')) as Partial<LockInfo>;
    return typeof info.pid === 'number' ? (info as LockInfo) : undefined;
  } catch {
    return undefined;
  }
}

/** The pid a marker or a lock file names, if it names one. */
async function pidIn(path: string): Promise<number | undefined> {
  const bytes = await fs.readFile(path).catch(() => undefined);
  return bytes === undefined ? undefined : parseLock(bytes)?.pid;
}

/** A new file beside the lock, named for this process and never through a link; its path. */
async function writeTemp(workDir: string, content: string): Promise<string> {
  const temp = join(workDir, `lock.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  await writeNew(temp, content);
  return temp;
}

/**
 * Removes the files that processes now gone left beside the lock (a kill -9 between the write and
 * the link, or during a takeover): left, they would keep the work folder from ever being removed.
 */
async function removeDeadTemps(workDir: string): Promise<void> {
  for (const name of await fs.readdir(workDir).catch(() => [] as string[])) {
    const temp = /^lock\.(\d+)(?:\.[0-9a-f]+)?\.tmp$/.exec(name);
    const pid = temp ? Number(temp[1]) : name.startsWith('lock.takeover.') ? await pidIn(join(workDir, name)) : undefined;
    if (pid !== undefined && pid > 0 && pid !== process.pid && !isAlive(pid)) await fs.rm(join(workDir, name), { force: true });
  }
}

/** Whether `dir`'s lock was left by a process of this host that is gone (a killed sync): the next writer takes it over. */
export async function holdsStaleLock(dir: string): Promise<boolean> {
  const bytes = await fs.readFile(join(dir, WORK_DIR, 'lock')).catch(() => undefined);
  const holder = bytes && parseLock(bytes);
  return holder !== undefined && holder.host === hostname() && !isAlive(holder.pid);
}

/** Takes the folder's lock for `command`, or throws E_LOCKED naming the holder. */
export async function acquireLock(dir: string, command: string): Promise<Lock> {
  const workDir = join(dir, WORK_DIR);
  const path = join(workDir, 'lock');
  if ((await safeFolder(dir, WORK_DIR)) === 'absent') {
    await fs.mkdir(workDir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  }
  const info: LockInfo = { pid: process.pid, host: hostname(), command, since: new Date().toISOString(), id: randomBytes(12).toString('hex') };
  const mine = `${JSON.stringify(info)}\n`;
  const held = (warning: string | undefined): Lock => {
    let released = false;
    return {
      warning,
      release: async () => {
        if (released) return;
        released = true;
        // Only our own lock: one that another process took over (we looked dead) is theirs now.
        const current = await fs.readFile(path, 'utf8').catch(() => undefined);
        if (current !== mine) return;
        await fs.rm(path, { force: true });
        // Leave no empty work folder behind, so a run that changed nothing leaves no trace.
        await fs.rmdir(workDir).catch(() => {});
      },
    };
  };
  const temp = await writeTemp(workDir, mine);
  try {
    let marker = '';
    let markerOf: Buffer | undefined;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      // A hard link appears whole: the lock is never seen empty or half-written.
      try {
        await fs.link(temp, path);
        await removeDeadTemps(workDir);
        return held(undefined);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const seen = await fs.readFile(path).catch(() => undefined);
      if (seen === undefined) continue;
      const holder = parseLock(seen);
      if (holder && (holder.host !== info.host || isAlive(holder.pid))) {
        throw new LockedError(`${dir} is locked by ${holder.command} (pid ${holder.pid} on ${holder.host}, since ${holder.since}); wait for it to finish, or delete ${path} if that process is gone`);
      }
      // The marker is named after the dead lock's bytes; a dead taker's marker, after it and that taker.
      if (!markerOf?.equals(seen)) marker = join(workDir, `lock.takeover.${createHash('sha256').update(seen).digest('hex').slice(0, 24)}`);
      markerOf = seen;
      try {
        // A link to our lock's bytes: the marker too is never seen empty.
        await fs.link(temp, marker);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const taker = await pidIn(marker);
        // Gone meanwhile: its taker finished; look again.
        if (taker === undefined && !(await fs.pathExists(marker))) continue;
        if (taker !== undefined && isAlive(taker)) throw new LockedError(`${dir}: pid ${taker} is taking over the stale lock ${path}; wait for it to finish`);
        marker = `${marker}.${taker ?? 'damaged'}`;
        continue;
      }
      const ours = marker;
      markerOf = undefined;
      // Still the dead holder's bytes: nobody else may replace them while we hold the marker.
      const now = await fs.readFile(path).catch(() => undefined);
      const replace = now !== undefined && now.equals(seen);
      try {
        if (replace) await fs.rename(temp, path);
      } finally {
        await fs.rm(ours, { force: true });
      }
      if (!replace) continue;
      await removeDeadTemps(workDir);
      return held(holder ? `took over a stale lock of ${dir} left by pid ${holder.pid} (${holder.command}, since ${holder.since}), which is no longer running` : `took over an unreadable lock file ${path}`);
    }
    throw new LockedError(`${dir}: could not take the lock ${path}; another process keeps taking it`);
  } finally {
    await fs.rm(temp, { force: true });
  }
}
