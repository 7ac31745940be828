/**
 * Stamps of the snapshot's folders and list files: device, inode, change time and size, taken by a
 * sync just before it listed a folder or hashed a list, and kept in the run metadata for what its
 * publish did not change itself (its own renames would hide anyone else's meanwhile). Adding,
 * removing or renaming an entry changes a folder's ctime, writing a file changes its own, and no
 * program can set a ctime back: the next sync in the same boot takes a folder or list whose stamp
 * is the same as checked already. It need not list a folder of 200 000 records (0.3 s of CPU) nor
 * hash 150 MB of lists to know the snapshot is still there; anything else is listed or hashed as before.
 */
import { lstat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { META_DIR } from './paths.js';

/**
 * How recent a change may be for its stamp to be kept. The kernel keeps ctimes to a clock tick (up
 * to 10 ms): a change in the tick a stamp was taken could leave the same ctime (git's "racy clean").
 */
const RACY_NS = 100_000_000n;

/**
 * Local filesystems whose ctimes behave as above, by statfs(2) type: ext2/3/4, XFS, Btrfs, tmpfs,
 * ZFS, OverlayFS (containers), F2FS. Not network ones (a client may cache a folder's attributes
 * for a minute) nor FAT and the like (no change time).
 */
const CTIME_KEEPERS = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x2fc12fc1, 0x794c7630, 0xf2f52010]);

/** Whether stamps can vouch for what is in `dir`: a filesystem known to keep ctimes as stamps need them. */
export async function keepsCtimes(dir: string): Promise<boolean> {
  const stats = await statfs(dir).catch(() => undefined);
  return stats !== undefined && CTIME_KEEPERS.has(Number(stats.type));
}

/** The stamps a sync compares with those of the last, and those it takes. */
export interface Stamps {
  /** Whether `path` (a folder or file of the snapshot) is as the last sync stamped it; its stamp as it is now goes into `seen`. */
  unchanged(path: string): Promise<boolean>;
  /** The stamp of each path asked about, taken when it was asked (but for one changed a moment before). */
  readonly seen: ReadonlyMap<string, string>;
  /** Vouches for nothing from now on: the last sync's stamps were taken with another manifest. */
  distrust(): void;
}

/** A path's stamp, and whether it changed too recently to be kept; undefined when it is not there (or neither a file nor a folder). */
async function stampOf(path: string): Promise<{ stamp: string; racy: boolean } | undefined> {
  const stat = await lstat(path, { bigint: true }).catch(() => undefined);
  if (!stat || !(stat.isFile() || stat.isDirectory())) return undefined;
  return { stamp: `${stat.dev}:${stat.ino}:${stat.ctimeNs}:${stat.size}`, racy: stat.ctimeNs > BigInt(Date.now()) * 1_000_000n - RACY_NS };
}

/** Stamps of the paths of `dir`, compared with `recorded` (the last sync's, by path). */
export function stampsOf(dir: string, recorded: ReadonlyMap<string, string>): Stamps {
  const seen = new Map<string, string>();
  return {
    seen,
    distrust() {
      recorded = new Map();
    },
    async unchanged(path) {
      const now = await stampOf(join(dir, path));
      if (now === undefined) return false;
      if (!now.racy) seen.set(path, now.stamp);
      return recorded.get(path) === now.stamp;
    },
  };
}

/**
 * The stamps of `seen` for what a publish of `written` and `removed` (and `replaced`, files outside
 * the snapshot) leaves as it was: neither those files nor their folders, nor `_meta/` (every run
 * writes its run metadata there).
 */
export function untouched(seen: ReadonlyMap<string, string>, { written, removed }: { written: readonly string[]; removed: readonly string[] }, replaced: readonly string[] = []): Map<string, string> {
  const touched = new Set<string>([META_DIR, ...replaced]);
  for (const paths of [written, removed]) {
    for (const path of paths) {
      if (seen.has(path)) touched.add(path);
      touched.add(path.slice(0, Math.max(0, path.lastIndexOf('/'))));
    }
  }
  return new Map([...seen].filter(([path]) => !touched.has(path)));
}
