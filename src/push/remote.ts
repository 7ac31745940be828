/**
 * What the bucket holds, as far as push can know it cheaply: the listing's sizes, the sha256s of
 * its manifest when that can be trusted, the keys an interrupted push may have changed, and for the
 * rest the sha256 recorded in each object's metadata (one HEAD each, only where sizes agree).
 */
import { z } from 'zod';
import { readManifestChunks } from '../snapshot/manifest-read.js';
import { MANIFEST_FILE } from '../snapshot/paths.js';
import { forEachConcurrent } from '../util/concurrent.js';
import { isSafeRelative } from '../util/relative-path.js';
import { needsHead, PENDING_FILE, remoteState, type LocalFile, type RemoteFile } from './plan.js';
import type { LocalSnapshot } from './local.js';
import type { Bucket } from './target.js';

/** The bucket's state for planning. */
export interface RemoteSnapshot {
  files: Map<string, RemoteFile>;
  /** The paths the bucket's manifest lists (empty when it has none). */
  oldManifest: Set<string>;
  /** Whether an interrupted push left its marker. */
  pending: boolean;
  /** The keys that marker names (every listed key when it cannot be read): still not to be trusted after another interruption. */
  pendingPaths: string[];
  /** Whether the bucket holds a manifest at all. */
  hasManifest: boolean;
}

const pendingSchema = z.strictObject({ format: z.literal(1), paths: z.array(z.string()) });

/** The marker's bytes: the keys a push is about to change. */
export function encodePending(paths: readonly string[]): Buffer {
  return Buffer.from(`${JSON.stringify({ format: 1, paths })}\n`);
}

/** The marker's keys; undefined when it cannot be read (then no manifest entry is trusted). */
function decodePending(bytes: Buffer | undefined): Set<string> | undefined {
  if (!bytes) return new Set();
  try {
    const parsed = pendingSchema.safeParse(JSON.parse(bytes.toString('utf8')));
    return parsed.success ? new Set(parsed.data.paths.filter(isSafeRelative)) : undefined;
  } catch {
    return undefined;
  }
}

/** The bucket's manifest entries, when it has one of ours; paths outside the snapshot's rule are dropped. */
async function remoteManifest(bucket: Bucket, local: LocalSnapshot, listing: ReadonlyMap<string, number>): Promise<{ entries: Map<string, LocalFile>; sha256: string } | undefined> {
  const mine = local.meta[0]!;
  if (!listing.has(MANIFEST_FILE)) return undefined;
  // The same manifest as ours (its recorded sha256 says so): no need to download it.
  if (listing.get(MANIFEST_FILE) === mine.size) {
    const head = await bucket.head(MANIFEST_FILE);
    if (head?.sha256 === mine.sha256) return { entries: local.byPath, sha256: mine.sha256 };
  }
  const bytes = await bucket.get(MANIFEST_FILE);
  if (!bytes) return undefined;
  const read = await readManifestChunks([bytes] as unknown as AsyncIterable<Buffer>, () => Promise.resolve(bytes));
  if (!read) return undefined;
  const entries = new Map<string, LocalFile>();
  for (const [i, path] of read.table.entries()) {
    if (isSafeRelative(path)) entries.set(path, { path, sha256: read.table.sha256(i), size: read.table.fileSize(i) });
  }
  return { entries, sha256: read.sha256 };
}

/** Lists the bucket and learns what it must to plan the push. */
export async function readRemote(bucket: Bucket, local: LocalSnapshot, concurrency: number): Promise<RemoteSnapshot> {
  const listing = await bucket.list();
  const manifest = await remoteManifest(bucket, local, listing);
  const pending = listing.has(PENDING_FILE) ? decodePending(await bucket.get(PENDING_FILE)) : new Set<string>();
  const files = remoteState(listing, pending ? manifest?.entries : undefined, pending ?? new Set());
  const manifestThere = files.get(MANIFEST_FILE);
  if (manifest && manifestThere) manifestThere.sha256 = manifest.sha256;
  const all = [...local.files, ...local.meta];
  await forEachConcurrent(needsHead(all, files, manifest?.entries), concurrency, async (path) => {
    const head = await bucket.head(path);
    if (head) files.set(path, head);
    else files.delete(path);
  });
  return {
    files,
    oldManifest: new Set(manifest ? manifest.entries.keys() : []),
    pending: listing.has(PENDING_FILE),
    pendingPaths: pending ? [...pending] : [...listing.keys()].filter((path) => path !== PENDING_FILE),
    hasManifest: listing.has(MANIFEST_FILE),
  };
}
