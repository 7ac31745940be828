/**
 * `push`: the published snapshot in `dir` into a bucket, in the order no reader can catch
 * half-done (see plan.ts), uploading only what changed and deleting what the snapshot no longer
 * has once the new manifest is in place. Every push that changes anything marks the bucket first
 * and unmarks it last, so an unmarked bucket whose manifest is the local one holds the snapshot
 * (two HEADs, no listing), and an interrupted push is found and completed by the next.
 */
import type { Log } from '../log.js';
import { sha256 } from '../snapshot/manifest.js';
import { ByteBudget } from '../util/byte-budget.js';
import { forEachConcurrent } from '../util/concurrent.js';
import { contentType } from './content-type.js';
import { checkedBody, readLocal, readLocalMeta, type LocalSnapshot } from './local.js';
import { describeKey, type Location } from './location.js';
import { Action, bucketIsCurrent, isRecord, MAX_PENDING_PATHS, nextPending, NO_SIGNATURE, PENDING_FILE, type LocalFile } from './plan.js';
import { compareByListing, encodePending, indexesOf, probeBucket, type Comparison } from './remote.js';
import { openBucket, uploadMemory, type Bucket, type StoreOptions } from './target.js';

/** What the uploads in flight may hold in memory at once (a single larger file takes all of it). */
const UPLOAD_MEMORY = 24 * 1024 * 1024;

export interface PushOptions {
  /** A published snapshot (the caller holds its lock). */
  dir: string;
  location: Location;
  store: StoreOptions;
  cacheControl?: string | undefined;
  /** Plan only: read the bucket, upload and delete nothing. */
  dryRun: boolean;
  /** Compare with a listing and each object's recorded sha256, whatever the bucket's manifest says (finds what others changed under the prefix). */
  full: boolean;
  log: Log;
}

export interface PushResult {
  /** `s3://bucket/prefix/`. */
  target: string;
  uploaded: number;
  uploadedBytes: number;
  deleted: number;
  unchanged: number;
  /** Requests sent to the store, retries and listing pages included. */
  requests: number;
  /** The listing pages among them. */
  listings: number;
  dryRun: boolean;
  /** With dryRun: the keys (relative to the prefix) that would be uploaded, in order, and deleted. */
  planned?: { upload: string[]; delete: string[] } | undefined;
}

/** How many of the snapshot's files go up in each phase, and their bytes. */
function uploadTotals(local: LocalSnapshot, comparison: Comparison): { records: number; views: number; files: number; bytes: number } {
  let records = 0;
  let views = 0;
  let bytes = comparison.meta.reduce((sum, file) => sum + file.size, 0);
  for (const i of indexesOf(comparison.actions, Action.Upload)) {
    if (isRecord(local.table.path(i))) records++;
    else views++;
    bytes += local.table.fileSize(i);
  }
  return { records, views, files: records + views + comparison.meta.length, bytes };
}

/** The files to upload in one phase: the records (first), or every other file; in the manifest's order. */
function* phase(local: LocalSnapshot, actions: Uint8Array, records: boolean): Generator<number> {
  for (const i of indexesOf(actions, Action.Upload)) if (isRecord(local.table.path(i)) === records) yield i;
}

/** Up to `limit` paths that will be uploaded: enough for the marker to name them or to say "all". */
function uploadPaths(local: LocalSnapshot, actions: Uint8Array, limit: number): string[] {
  const out: string[] = [];
  for (const i of indexesOf(actions, Action.Upload)) {
    if (out.length === limit) break;
    out.push(local.table.path(i));
  }
  return out;
}

/**
 * Runs the plan's steps in order, each phase finished before the next begins: the marker, records,
 * every other file, the manifest and signature, deletions, and last the marker's removal (on its
 * own: a batch delete is not atomic, and the marker must outlive every other change). Small files
 * are read from disk one at a time per upload in flight.
 */
async function apply(bucket: Bucket, local: LocalSnapshot, comparison: Comparison, options: PushOptions, totals: ReturnType<typeof uploadTotals>): Promise<void> {
  const changes = totals.files + comparison.deletions.length;
  if (changes === 0) {
    if (comparison.earlier) await bucket.deleteOne(PENDING_FILE);
    return;
  }
  const marker = encodePending(nextPending(uploadPaths(local, comparison.actions, MAX_PENDING_PATHS + 1), comparison.earlier, comparison.hasManifest));
  await bucket.put(PENDING_FILE, marker, { size: marker.length, sha256: sha256(marker), contentType: contentType(PENDING_FILE) });
  const budget = new ByteBudget(UPLOAD_MEMORY);
  const put = (file: LocalFile, signature?: string): Promise<void> =>
    budget.use(uploadMemory(file.size), async () => {
      const body = await checkedBody(options.dir, file);
      await bucket.put(file.path, body, { size: file.size, sha256: file.sha256, contentType: contentType(file.path), cacheControl: options.cacheControl, signature });
    });
  const upload = (i: number): Promise<void> => put({ path: local.table.path(i), sha256: local.table.sha256(i), size: local.table.fileSize(i) });
  options.log.detail(`push: ${totals.records} records, then ${totals.views} lists and other files, then ${comparison.meta.length} manifest files, then ${comparison.deletions.length} deletions`);
  await forEachConcurrent(phase(local, comparison.actions, true), options.store.concurrency, upload);
  await forEachConcurrent(phase(local, comparison.actions, false), options.store.concurrency, upload);
  // The manifest records the signature pushed with it: a later push compares both with one HEAD.
  for (const file of comparison.meta) await put(file, file === local.manifest ? (local.signature?.sha256 ?? NO_SIGNATURE) : undefined);
  await bucket.delete(comparison.deletions);
  await bucket.deleteOne(PENDING_FILE);
}

/** Pushes the snapshot; resolves to what it did (or would do, with dryRun). */
export async function pushSnapshot(options: PushOptions): Promise<PushResult> {
  const meta = await readLocalMeta(options.dir);
  const bucket = await openBucket(options.location, options.store);
  try {
    const result = (done: { uploaded: number; uploadedBytes: number; deleted: number; unchanged: number; planned: { upload: string[]; delete: string[] } }): PushResult => ({
      target: describeKey(options.location),
      ...done,
      requests: bucket.requests,
      listings: bucket.listings,
      dryRun: options.dryRun,
      planned: options.dryRun ? done.planned : undefined,
    });
    const probe = await probeBucket(bucket);
    const metaFiles = meta.signature ? 2 : 1;
    if (!options.full && probe.known && bucketIsCurrent(probe.manifest, probe.pending, meta.manifest, meta.signature)) {
      return result({ uploaded: 0, uploadedBytes: 0, deleted: 0, unchanged: meta.files + metaFiles, planned: { upload: [], delete: [] } });
    }
    const local = await readLocal(options.dir);
    const comparison = await compareByListing(bucket, local, probe, { concurrency: options.store.concurrency, full: options.full });
    const totals = uploadTotals(local, comparison);
    if (!options.dryRun) await apply(bucket, local, comparison, options, totals);
    const planned = () => ({
      upload: [...[...phase(local, comparison.actions, true), ...phase(local, comparison.actions, false)].map((i) => local.table.path(i)), ...comparison.meta.map((file) => file.path)],
      delete: comparison.deletions,
    });
    return result({
      uploaded: totals.files,
      uploadedBytes: totals.bytes,
      deleted: comparison.deletions.length,
      unchanged: local.files + metaFiles - totals.files,
      planned: options.dryRun ? planned() : { upload: [], delete: [] },
    });
  } finally {
    bucket.client.destroy();
  }
}
