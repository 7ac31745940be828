/**
 * The decisions of a push, as pure functions of what the snapshot holds and what the bucket is
 * known to hold: whether the bucket provably holds the snapshot already, what to do with each file,
 * which listed objects are push's to delete, and what the pending marker names.
 *
 * The order is what keeps a reader of the bucket from finding a list that names a record not yet
 * there: records first, then everything that refers to them (lists, filtered views, the browser
 * page, the meta files), then the manifest and its signature, and only then deletions.
 */
import { MANIFEST_FILE, META_DIR, parseRecordFile, SIGNATURE_FILE } from '../snapshot/paths.js';

/** A file of the local snapshot (the manifest and signature; the others stay in the manifest's table). */
export interface LocalFile {
  path: string;
  sha256: string;
  size: number;
}

/**
 * Written before the first change of every push, removed after its last: while it is there, the
 * bucket may hold a mix of two snapshots and leftovers, and its manifest proves nothing.
 */
export const PENDING_FILE = `${META_DIR}/push-pending.json`;

/** The manifest object's `signature` metadata when the snapshot is not signed. */
export const NO_SIGNATURE = 'none';

/** Beyond this many files changing, the marker says "trust nothing" rather than naming them (it stays small). */
export const MAX_PENDING_PATHS = 10_000;

/** What an interrupted push's marker says may differ from the bucket's manifest: the paths, or everything. */
export type Pending = ReadonlySet<string> | 'all';

/** What a HEAD of the bucket's manifest tells: its size and the metadata push recorded with it. */
export interface ManifestHead {
  size: number;
  sha256?: string | undefined;
  signature?: string | undefined;
}

/**
 * The folder's own dotfiles (`.gitignore`, `.gitattributes`) are its business, not the readers':
 * the contract lets push leave them out. Only at the top: a record's file may start with a dot
 * (an id `.x` is written as it is).
 */
export function isPushed(path: string): boolean {
  return path.includes('/') || !path.startsWith('.');
}

/** Whether a pushed file goes up with the records (first) rather than with the lists and views. */
export function isRecord(path: string): boolean {
  return parseRecordFile(path) !== undefined;
}

/**
 * Whether the bucket's manifest object is the local manifest, pushed with the local signature.
 * The `signature` metadata is written only by pushes that mark every push (also the first), so a
 * manifest without it (an older push, another tool) proves nothing.
 */
export function manifestIsCurrent(head: ManifestHead | undefined, manifest: LocalFile, signature: LocalFile | undefined): boolean {
  return head !== undefined && head.size === manifest.size && head.sha256 === manifest.sha256 && head.signature === (signature?.sha256 ?? NO_SIGNATURE);
}

/**
 * Whether the bucket provably holds the snapshot: every push writes the marker before its first
 * change and removes it after its last, so with no marker the last push finished, and the bucket
 * holds what the manifest it left there lists. Objects others wrote under the prefix are not seen
 * (`push --full` and `verify` look for them).
 */
export function bucketIsCurrent(head: ManifestHead | undefined, pending: boolean, manifest: LocalFile, signature: LocalFile | undefined): boolean {
  return !pending && manifestIsCurrent(head, manifest, signature);
}

/** What to do with one pushed file; Head: the object's recorded sha256 decides (one HEAD). Small numbers: a byte per file. */
export const Action = { Keep: 0, Upload: 1, Head: 2 } as const;
export type Action = (typeof Action)[keyof typeof Action];

/**
 * One file's action from its local size, its size in the listing (undefined: not listed), and
 * whether the bucket's manifest has its bytes and no interrupted push named it (`trusted`). A
 * trusted file the listing does not show is asked for (a listing may lag or, on some stores, skip
 * keys across pages); an untrusted one of the same size is asked for its recorded sha256.
 */
export function fileAction(size: number, listed: number | undefined, trusted: boolean): Action {
  if (listed === undefined) return trusted ? Action.Head : Action.Upload;
  if (listed !== size) return Action.Upload;
  return trusted ? Action.Keep : Action.Head;
}

/**
 * Whether a listed object that the snapshot does not have is push's to delete: anything outside
 * `_meta/`; under it only what the bucket's previous manifest listed and a signature the snapshot
 * no longer has (other objects under `_meta/` are the owner's notes), never the manifest or marker.
 */
export function isDeletable(path: string, inOldManifest: boolean): boolean {
  if (path === MANIFEST_FILE || path === PENDING_FILE) return false;
  return !path.startsWith(`${META_DIR}/`) || inOldManifest || path === SIGNATURE_FILE;
}

/**
 * What the marker of a push names: the files it is about to upload, and those an earlier
 * interrupted push named (they may hold bytes of neither manifest, so they stay untrusted until a
 * push completes). Everything when the bucket has no manifest (there is nothing to trust yet),
 * when the earlier marker said so, or when the list would pass MAX_PENDING_PATHS. Sorted, each once.
 */
export function nextPending(uploads: readonly string[], earlier: Pending | undefined, bucketHasManifest: boolean): string[] | 'all' {
  if (!bucketHasManifest || earlier === 'all') return 'all';
  const paths = new Set([...uploads, ...(earlier ?? [])]);
  return paths.size > MAX_PENDING_PATHS ? 'all' : [...paths].sort();
}
