/**
 * What the bucket holds, as far as push can know it cheaply. First two HEADs: the manifest's
 * recorded sha256 and signature, and whether a push left its marker. When they prove the bucket
 * holds the snapshot (see plan.ts bucketIsCurrent), that is all. Otherwise the bucket's manifest
 * (not downloaded when it is the local one), the marker, and a listing, compared with the
 * snapshot's table as they arrive into a few bytes per file; for the rest, the sha256 recorded in
 * each object's metadata (one HEAD each, only where sizes agree or the listing missed a key).
 */
import { z } from 'zod';
import { readManifestInto } from '../snapshot/manifest-read.js';
import { MANIFEST_FILE, SIGNATURE_FILE } from '../snapshot/paths.js';
import { forEachConcurrent } from '../util/concurrent.js';
import { isSafeRelative } from '../util/relative-path.js';
import type { LocalSnapshot } from './local.js';
import { Action, fileAction, isDeletable, isPushed, manifestIsCurrent, PENDING_FILE, type LocalFile, type ManifestHead, type Pending } from './plan.js';
import type { Bucket } from './target.js';

/** What the two HEADs tell; undefined fields when the store would not say (see probeBucket). */
export interface Probe {
  /** Whether the HEADs answered; when not, the listing tells whether the manifest and the marker are there. */
  known: boolean;
  /** The bucket's manifest object, when there is one. */
  manifest: ManifestHead | undefined;
  /** Whether a push left its marker (it did not finish). */
  pending: boolean;
}

/** The bucket against the snapshot, for planning. */
export interface Comparison {
  /** Per entry of the snapshot's table: Action.Keep or Action.Upload (Keep for files push leaves out). */
  actions: Uint8Array;
  /** The manifest and signature to upload, in that order. */
  meta: LocalFile[];
  /** Keys (relative to the prefix) to delete once the new manifest is in place, sorted. */
  deletions: string[];
  /** Whether the bucket has a manifest (then the marker names files; else it says "all"). */
  hasManifest: boolean;
  /** Whether a push left its marker, and what it said. */
  earlier: Pending | undefined;
}

const pendingSchema = z.union([z.strictObject({ format: z.literal(1), paths: z.array(z.string()) }), z.strictObject({ format: z.literal(1), all: z.literal(true) })]);

/** The marker's bytes: the keys a push is about to change, or everything. */
export function encodePending(paths: readonly string[] | 'all'): Buffer {
  return Buffer.from(`${JSON.stringify(paths === 'all' ? { format: 1, all: true } : { format: 1, paths })}\n`);
}

/** The marker's keys; 'all' when it says so or cannot be read (then no manifest entry is trusted). */
export function decodePending(bytes: Buffer | undefined): Pending {
  if (!bytes) return new Set();
  try {
    const parsed = pendingSchema.safeParse(JSON.parse(bytes.toString('utf8')));
    if (!parsed.success || !('paths' in parsed.data)) return 'all';
    return new Set(parsed.data.paths.filter(isSafeRelative));
  } catch {
    return 'all';
  }
}

/**
 * The HEADs of the manifest and the marker. A refusal (see Bucket.headUnlessDenied) leaves the
 * answer to the listing: a missing marker must not fail a push whose credentials may not list the
 * whole bucket, and bad credentials are named by the listing's error, with the store's own code.
 */
export async function probeBucket(bucket: Bucket): Promise<Probe> {
  const [manifest, pending] = await Promise.all([bucket.headUnlessDenied(MANIFEST_FILE), bucket.headUnlessDenied(PENDING_FILE)]);
  if (manifest === 'denied' || pending === 'denied') return { known: false, manifest: undefined, pending: false };
  return { known: true, manifest, pending: pending !== undefined };
}

/** What the bucket's manifest says, folded into the comparison's arrays. */
interface OldManifest {
  /** Per table entry: the bucket's manifest lists the same bytes. */
  trusted: Uint8Array;
  /** Its paths that the snapshot does not have: push's to delete (also under `_meta/`), even when a listing misses them. */
  gone: Set<string>;
}

/**
 * Reads the bucket's manifest as it downloads, keeping per file only whether it agrees with the
 * snapshot. Not downloaded at all when its recorded sha256 is the local manifest's. A manifest
 * that is not ours (another form, a path outside the snapshot's rule) is trusted for nothing.
 */
async function readOldManifest(bucket: Bucket, local: LocalSnapshot, head: ManifestHead | undefined): Promise<OldManifest> {
  const { table } = local;
  const old: OldManifest = { trusted: new Uint8Array(table.size), gone: new Set() };
  if (!head) return old;
  if (head.sha256 === local.manifest.sha256 && head.size === local.manifest.size) {
    old.trusted.fill(1);
    return old;
  }
  const chunks = await bucket.getStream(MANIFEST_FILE);
  if (!chunks) return old;
  const seen = new Uint8Array(table.size);
  const sink = () => {
    // A second reading (a manifest not in the canonical form) starts over.
    old.trusted.fill(0);
    seen.fill(0);
    old.gone.clear();
    return {
      add(path: string, sha256: Buffer, size: number): boolean {
        const i = table.indexOf(path);
        if (i === undefined) {
          // The manifest, signature and marker are decided on their own, whatever a manifest lists.
          if (!isSafeRelative(path) || !isPushed(path) || path === MANIFEST_FILE || path === SIGNATURE_FILE || path === PENDING_FILE) return true;
          if (old.gone.has(path)) return false;
          old.gone.add(path);
          return true;
        }
        if (seen[i]) return false;
        seen[i] = 1;
        if (table.hasBytes(i, sha256, size)) old.trusted[i] = 1;
        return true;
      },
      done: () => true,
    };
  };
  const read = await readManifestInto(chunks, async () => (await bucket.get(MANIFEST_FILE)) ?? Buffer.alloc(0), sink);
  if (!read) return { trusted: new Uint8Array(table.size), gone: new Set() };
  return old;
}

/**
 * Lists the bucket and compares it with the snapshot: what to upload and what to delete. `full`:
 * trust no manifest entry either (each object's recorded sha256 decides, as verify checks it).
 */
export async function compareByListing(bucket: Bucket, local: LocalSnapshot, probe: Probe, options: { concurrency: number; full: boolean }): Promise<Comparison> {
  const { table } = local;
  // -1: not listed.
  const listed = new Float64Array(table.size).fill(-1);
  // Listed keys the snapshot does not have: to delete, most of them (the rest are the owner's notes under _meta/).
  const others: string[] = [];
  const special = new Map<string, number>();
  await bucket.forEachListed((path, size) => {
    const i = table.indexOf(path);
    if (i !== undefined && isPushed(path)) listed[i] = size;
    else if (path === MANIFEST_FILE || path === SIGNATURE_FILE || path === PENDING_FILE) special.set(path, size);
    else others.push(path);
  });
  const manifest = probe.known ? probe.manifest : special.has(MANIFEST_FILE) ? await bucket.head(MANIFEST_FILE) : undefined;
  const pending = probe.known ? probe.pending : special.has(PENDING_FILE);
  const earlier = pending ? decodePending(await bucket.get(PENDING_FILE)) : undefined;

  const old = await readOldManifest(bucket, local, manifest);
  if (earlier === 'all' || options.full) old.trusted.fill(0);
  else {
    for (const path of earlier ?? []) {
      const i = table.indexOf(path);
      if (i !== undefined) old.trusted[i] = 0;
    }
  }
  const deletions = old.gone;
  for (const path of others) if (isDeletable(path, false)) deletions.add(path);
  const signatureListed = special.get(SIGNATURE_FILE);
  if (signatureListed !== undefined && !local.signature) deletions.add(SIGNATURE_FILE);

  const actions = new Uint8Array(table.size);
  for (let i = 0; i < table.size; i++) {
    const path = table.path(i);
    if (!isPushed(path)) continue;
    const size = listed[i]!;
    actions[i] = fileAction(table.fileSize(i), size < 0 ? undefined : size, old.trusted[i] === 1);
  }
  await forEachConcurrent(indexesOf(actions, Action.Head), options.concurrency, async (i) => {
    const head = await bucket.head(table.path(i));
    actions[i] = head && table.hasBytes(i, head.sha256 ?? '', head.size) ? Action.Keep : Action.Upload;
  });

  const current = manifestIsCurrent(manifest, local.manifest, local.signature);
  const meta = !current ? [local.manifest, ...(local.signature ? [local.signature] : [])] : local.signature && signatureListed !== local.signature.size ? [local.signature] : [];
  return { actions, meta, deletions: [...deletions].sort(), hasManifest: manifest !== undefined, earlier };
}

/** The indexes whose action is `action`, in order. */
export function* indexesOf(actions: Uint8Array, action: Action): Generator<number> {
  for (let i = 0; i < actions.length; i++) if (actions[i] === action) yield i;
}
