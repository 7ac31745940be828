/**
 * The scaling step's arithmetic: per-record figures of a run, the size of a folder's run
 * metadata, and whether the next, larger row fits the time, memory and disk left, judged by the
 * pace of a row already measured (per-record costs fall with size, so this errs on the safe side).
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isOutsideSnapshot, MANIFEST_FILE, META_DIR, SIGNATURE_FILE } from '../src/snapshot/paths.js';
import { median } from './lib/median.js';
import type { BestSyncRun, ScaleRun, ScalingRow, SyncRun } from './report.js';

/** A scaling row measured so far, as a yardstick for the next. */
export interface RowBasis {
  /** Server count and records of the row. */
  scale: number;
  records: number;
  /** Its wall time: service start to the end of serve. */
  ms: number;
  /** The most memory in use at once: the service plus a sync, or serve. */
  memBytes: number | undefined;
  /** Disk its folders took: the floor (b) tree and the mirror. */
  diskBytes: number;
}

/** What is left for the next row. */
export interface Room {
  msLeft: number;
  freeMemBytes: number;
  freeDiskBytes: number | undefined;
}

/** Issue 15's targets, judged at the largest scale measured. */
export const SCALE_TARGETS = {
  /** Largest over smallest cost of a further 1 000 records, sync, over the steps between scales. */
  perRecordFlat: 1.2,
  syncPeakRssMB: 400,
  resyncPeakRssMB: 300,
  serveRssMB: 300,
  serveReadyMs: 3000,
  substringMedianMs: 100,
  runMetaBytesPerRecord: 150,
} as const;

/** Serve's timed queries and the start and stop of processes, whatever the size. */
export const ROW_FIXED_MS = 20_000;
/** Disk left free for the machine's other users. */
const DISK_RESERVE = 2 * 2 ** 30;
/** Memory left free for the machine's other users. */
const MEMORY_RESERVE = 2 ** 30;

const minutes = (ms: number): string => `${(ms / 60_000).toFixed(1)} min`;
const gib = (bytes: number): string => `${(bytes / 2 ** 30).toFixed(1)} GiB`;

/** Why a row of about `records` records would not fit in `room`, or undefined when it would. Pure. */
export function rowDoesNotFit(records: number, basis: RowBasis, room: Room): string | undefined {
  const factor = records / basis.records;
  const ms = ROW_FIXED_MS + basis.ms * factor * 1.3;
  const pace = `at the pace of the ${basis.scale}-server row`;
  if (ms > room.msLeft) return `would take about ${minutes(ms)} ${pace}, ${minutes(Math.max(0, room.msLeft))} of the time budget left (raise --max-minutes)`;
  if (basis.memBytes !== undefined) {
    const mem = basis.memBytes * factor * 1.2;
    if (mem > room.freeMemBytes - MEMORY_RESERVE) return `would need about ${gib(mem)} of memory ${pace}, ${gib(room.freeMemBytes)} free`;
  }
  if (room.freeDiskBytes !== undefined) {
    const disk = basis.diskBytes * factor * 1.2;
    if (disk > room.freeDiskBytes - DISK_RESERVE) return `would write about ${gib(disk)} ${pace}, ${gib(room.freeDiskBytes)} of disk free`;
  }
  return undefined;
}

/** Disk a tree of `files` files holding `bytes` bytes takes at most, with 4 KiB blocks. Pure. */
export function treeBytes(files: number, bytes: number): number {
  return files * 4096 + bytes;
}

/** A sync run's figures per record. Pure. */
export function perRecord(run: SyncRun | BestSyncRun, records: number): ScaleRun {
  return {
    wallMs: run.wallMs,
    medianMs: 'runsMs' in run ? median(run.runsMs) : run.wallMs,
    msPer1000Records: Math.round((run.wallMs / records) * 1000 * 10) / 10,
    peakRssMB: run.peakRssMB,
    rssBytesPerRecord: run.peakRssBytes === undefined ? undefined : Math.round(run.peakRssBytes / records),
    written: run.written,
    cpuMs: run.cpuMs,
  };
}

/** What each further 1 000 records cost between two measured scales, in ms. */
export interface ScaleStep {
  from: number;
  to: number;
  sync: number;
  resync: number;
  floorB: number;
}

/**
 * The cost of each further 1 000 records from one measured scale to the next, for the sync, the
 * re-sync and floor (b), from their median rounds. Per-record figures that include the process
 * start and the compiling every run pays once fall with size for any client, floor (b) too; the
 * growth between two sizes is what shows whether the work per record stays flat. Pure; rows in
 * any order.
 */
export function scaleSteps(rows: readonly ScalingRow[]): ScaleStep[] {
  const sorted = [...rows].sort((a, b) => a.records - b.records);
  const per1000 = (later: number, earlier: number, records: number): number => Math.round(((later - earlier) / records) * 1000 * 10) / 10;
  return sorted.slice(1).map((row, i) => {
    const before = sorted[i]!;
    const records = row.records - before.records;
    return {
      from: before.scale,
      to: row.scale,
      sync: per1000(row.sync.medianMs, before.sync.medianMs, records),
      resync: per1000(row.resync.medianMs, before.resync.medianMs, records),
      floorB: per1000(row.floorBMedianMs, before.floorBMedianMs, records),
    };
  });
}

/** Run metadata of a synced folder: the `_meta` files outside the manifest (last-sync.json, http-cache.json), in bytes. */
export async function runMetaOf(dir: string, records: number): Promise<{ files: Record<string, number>; bytes: number; bytesPerRecord: number }> {
  const files: Record<string, number> = {};
  for (const name of (await readdir(join(dir, META_DIR))).sort()) {
    const rel = `${META_DIR}/${name}`;
    if (!isOutsideSnapshot(rel) || rel === MANIFEST_FILE || rel === SIGNATURE_FILE) continue;
    const info = await stat(join(dir, rel));
    if (info.isFile()) files[rel] = info.size;
  }
  const bytes = Object.values(files).reduce((sum, size) => sum + size, 0);
  return { files, bytes, bytesPerRecord: Math.round((bytes / records) * 10) / 10 };
}
