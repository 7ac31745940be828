/**
 * `verify --max-age`: is the last successful sync recent enough? For monitoring systems. A copy
 * (an unpacked archive, an rsync of the snapshot's files) has no run metadata; its snapshot still
 * knows when its data last changed (the change history), an age at least as old as its sync's.
 */
import { join } from 'node:path';
import fs from 'fs-extra';
import { UsageError } from '../errors.js';
import { decodeJson } from '../json/encode.js';
import { CHANGES_FILE, LAST_SYNC_FILE } from '../snapshot/paths.js';
import { readLastSync } from '../snapshot/last-sync.js';

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `26h`, `90m`, `2d`, `45s` → milliseconds; anything else is a UsageError naming the flag. */
export function parseMaxAge(raw: string): number {
  const match = /^(\d+)([smhd])$/.exec(raw.trim());
  if (!match || Number(match[1]) === 0) throw new UsageError(`--max-age: expected a positive number and a unit s, m, h or d (e.g. 26h), got ${JSON.stringify(raw)}`);
  return Number(match[1]) * UNITS[match[2]!]!;
}

/** A readable duration, e.g. `27h 5m`. */
function ago(ms: number): string {
  if (ms < 60_000) return `${Math.floor(ms / 1000)}s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours}h ${minutes % 60}m` : `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

/** Why the folder is stale (no record of a successful sync, or one older than `maxAgeMs`), or undefined. */
export async function freshnessProblem(dir: string, maxAgeMs: number, now: number): Promise<string | undefined> {
  const last = await readLastSync(dir);
  if (last === undefined) {
    const changed = await lastChange(dir);
    if (changed === undefined) return `no valid ${LAST_SYNC_FILE}: no successful sync is recorded in this folder, and ${CHANGES_FILE} records no change`;
    const age = now - changed;
    return age > maxAgeMs ? `no ${LAST_SYNC_FILE} (a copy?), and the snapshot's data last changed ${ago(age)} ago (${new Date(changed).toISOString()}, ${CHANGES_FILE}), over --max-age ${ago(maxAgeMs)}` : undefined;
  }
  const finishedAt = last.finishedAt;
  const at = typeof finishedAt === 'string' ? Date.parse(finishedAt) : NaN;
  if (Number.isNaN(at)) return `${LAST_SYNC_FILE} has no valid finishedAt time`;
  const age = now - at;
  return age > maxAgeMs ? `the last successful sync finished ${ago(age)} ago (${new Date(at).toISOString()}), over --max-age ${ago(maxAgeMs)}` : undefined;
}

/** The time of the latest change set in the snapshot's change history, or undefined. */
async function lastChange(dir: string): Promise<number | undefined> {
  const history = decodeJson(await fs.readFile(join(dir, CHANGES_FILE)).catch(() => undefined)) as { changes?: unknown } | undefined;
  const times = (Array.isArray(history?.changes) ? history.changes : [])
    .map((change: unknown) => (typeof change === 'object' && change !== null ? Date.parse(String((change as { at?: unknown }).at)) : NaN))
    .filter((at: number) => !Number.isNaN(at));
  return times.length > 0 ? Math.max(...times) : undefined;
}
