/**
 * What a push does, from what the snapshot holds and what the bucket is known to hold: which files
 * to upload, in which phase, and which objects to delete. Pure: plain data in, a plan out.
 *
 * The order is what keeps a reader of the bucket from finding a list that names a record not yet
 * there: records first, then everything that refers to them (lists, filtered views, the browser
 * page, the meta files), then the manifest and its signature, and only then deletions.
 */
import { META_DIR, parseRecordFile, SIGNATURE_FILE } from '../snapshot/paths.js';

/** A file of the local snapshot. */
export interface LocalFile {
  path: string;
  sha256: string;
  size: number;
}

/** An object under the prefix, with its sha256 when it is known (trusted manifest or object metadata). */
export interface RemoteFile {
  size: number;
  sha256?: string | undefined;
}

/** Written before the first upload of a push over an existing manifest, removed with the deletions. */
export const PENDING_FILE = `${META_DIR}/push-pending.json`;

/**
 * What the marker of a push names: the files it is about to change, and those an earlier
 * interrupted push named (they may hold bytes of neither manifest, so they stay untrusted until a
 * push completes). Sorted, each once.
 */
export function pendingPaths(changing: readonly LocalFile[], earlier: readonly string[]): string[] {
  return [...new Set([...changing.map((file) => file.path), ...earlier])].sort();
}

export interface PushPlan {
  records: LocalFile[];
  views: LocalFile[];
  /** The manifest, then its signature: last. */
  meta: LocalFile[];
  /** Keys (relative to the prefix) to delete once the new manifest is in place. */
  deletions: string[];
  /** Files already in the bucket with the same bytes. */
  unchanged: number;
}

/**
 * The folder's own dotfiles (`.gitignore`, `.gitattributes`) are its business, not the readers':
 * the contract lets push leave them out. Only at the top: a record's file may start with a dot
 * (an id `.x` is written as it is).
 */
export function isPushed(path: string): boolean {
  return path.includes('/') || !path.startsWith('.');
}

/** The remote sha256s to trust: an entry of the bucket's manifest counts when the object has its size and no interrupted push may have changed it. */
export function remoteState(listing: ReadonlyMap<string, number>, manifest: ReadonlyMap<string, LocalFile> | undefined, pending: ReadonlySet<string>): Map<string, RemoteFile> {
  const out = new Map<string, RemoteFile>();
  for (const [path, size] of listing) {
    const entry = manifest?.get(path);
    out.set(path, { size, sha256: entry && entry.size === size && !pending.has(path) ? entry.sha256 : undefined });
  }
  return out;
}

/**
 * Objects to HEAD before planning: those whose size matches but whose content is unknown (their
 * metadata tells whether to upload them), and those the bucket's manifest lists but the listing
 * does not show (a listing may lag or, on some stores, skip keys across pages: HEAD asks for sure).
 */
export function needsHead(local: readonly LocalFile[], remote: ReadonlyMap<string, RemoteFile>, manifest: ReadonlyMap<string, LocalFile> | undefined): string[] {
  return local.filter((file) => {
    const there = remote.get(file.path);
    if (there === undefined) return manifest?.has(file.path) === true;
    return there.sha256 === undefined && there.size === file.size;
  }).map((file) => file.path);
}

/**
 * The plan: `files` are the snapshot's pushed files, `meta` the manifest and its signature (in that
 * order, when present); `oldManifest` the paths the bucket's manifest listed, whose objects under
 * `_meta/` are ours to delete (other objects under `_meta/` are left alone).
 */
export function planPush(input: { files: readonly LocalFile[]; meta: readonly LocalFile[]; remote: ReadonlyMap<string, RemoteFile>; oldManifest: ReadonlySet<string> }): PushPlan {
  const { files, meta, remote, oldManifest } = input;
  const same = (file: LocalFile): boolean => {
    const there = remote.get(file.path);
    return there !== undefined && there.size === file.size && there.sha256 === file.sha256;
  };
  const plan: PushPlan = { records: [], views: [], meta: [], deletions: [], unchanged: 0 };
  for (const file of files) {
    if (same(file)) plan.unchanged++;
    else if (parseRecordFile(file.path)) plan.records.push(file);
    else plan.views.push(file);
  }
  for (const file of meta) {
    if (same(file)) plan.unchanged++;
    else plan.meta.push(file);
  }
  const kept = new Set([...files, ...meta].map((file) => file.path));
  for (const path of remote.keys()) {
    if (kept.has(path) || path === PENDING_FILE) continue;
    if (!path.startsWith(`${META_DIR}/`) || oldManifest.has(path) || path === SIGNATURE_FILE) plan.deletions.push(path);
  }
  plan.deletions.sort();
  return plan;
}
