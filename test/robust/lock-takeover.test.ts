/**
 * The folder lock under the races an adversarial probe found (issue 29): takers that read the
 * same dead holder at once, a lock taken over from a process that was still finishing, and links
 * planted under the names of the lock's work files.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LockedError } from '../../src/errors.js';
import { acquireLock, type Lock } from '../../src/publish/lock.js';
import { recoverBeforeReading } from '../../src/publish/read-recover.js';
import { tempDir } from '../helpers/tmp.js';

/** The pid of a process that has exited: a holder that is certainly gone. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

const lockFile = (dir: string): string => join(dir, '.inventory-mirror', 'lock');

function plantStaleLock(dir: string, pid: number): void {
  mkdirSync(join(dir, '.inventory-mirror'), { recursive: true });
  writeFileSync(lockFile(dir), `${JSON.stringify({ pid, host: hostname(), command: 'sync', since: '2026-01-01T00:00:00.000Z' })}\n`);
}

describe('taking over a stale lock', () => {
  it('verify and pack clear a killed run\'s lock before reading, as a writer would, and leave a live one alone', async () => {
    const dir = tempDir();
    plantStaleLock(dir, deadPid());
    expect(await recoverBeforeReading(dir, 'verify')).toBeUndefined();
    expect(existsSync(join(dir, '.inventory-mirror'))).toBe(false);
    plantStaleLock(dir, process.pid);
    expect(await recoverBeforeReading(dir, 'verify')).toBeUndefined();
    expect(existsSync(lockFile(dir))).toBe(true);
  });

  it('of several takers that read the same dead holder at once, exactly one holds the lock', async () => {
    const pid = deadPid();
    for (let round = 0; round < 20; round++) {
      const dir = tempDir();
      plantStaleLock(dir, pid);
      const results = await Promise.allSettled([acquireLock(dir, 'sync'), acquireLock(dir, 'sync'), acquireLock(dir, 'sync')]);
      const held = results.filter((r): r is PromiseFulfilledResult<Lock> => r.status === 'fulfilled');
      expect(held, `round ${round}`).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(LockedError);
      expect(held[0]!.value.warning).toMatch(/took over a stale lock .* left by pid \d+ \(sync/);
      await held[0]!.value.release();
      // Nothing is left behind: no lock, no marker, no temporary file.
      expect(existsSync(join(dir, '.inventory-mirror'))).toBe(false);
    }
  });

  it('release leaves a lock that is no longer its own', async () => {
    const dir = tempDir();
    const lock = await acquireLock(dir, 'sync');
    // Another process took the lock over meanwhile (this one looked dead to it).
    const theirs = `${JSON.stringify({ pid: process.pid, host: hostname(), command: 'sync', since: '2026-01-01T00:00:00.000Z', id: 'other' })}\n`;
    writeFileSync(lockFile(dir), theirs);
    await lock.release();
    expect(readFileSync(lockFile(dir), 'utf8')).toBe(theirs);
  });
});

describe('links planted in the work folder', () => {
  it('the lock never writes through a link placed under the name of its temporary file', async () => {
    const dir = tempDir();
    const outside = join(tempDir(), 'victim.txt');
    writeFileSync(outside, 'untouched\n');
    mkdirSync(join(dir, '.inventory-mirror'));
    symlinkSync(outside, join(dir, '.inventory-mirror', `lock.${process.pid}.tmp`));
    const lock = await acquireLock(dir, 'sync');
    await lock.release();
    expect(readFileSync(outside, 'utf8')).toBe('untouched\n');
    expect(readdirSync(join(dir, '.inventory-mirror'))).toEqual([`lock.${process.pid}.tmp`]);
  });
});
