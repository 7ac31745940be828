/**
 * `push`: the published snapshot in `dir` into a bucket, in the order no reader can catch
 * half-done (see plan.ts), uploading only what changed and deleting what the snapshot no longer
 * has once the new manifest is in place. An interrupted push leaves a marker naming what it was
 * changing, so the next one checks exactly those objects again and converges.
 */
import type { Log } from '../log.js';
import { sha256 } from '../snapshot/manifest.js';
import { forEachConcurrent } from '../util/concurrent.js';
import { contentType } from './content-type.js';
import { checkedBody, readLocal } from './local.js';
import { describeKey, type Location } from './location.js';
import { PENDING_FILE, pendingPaths, planPush, type LocalFile, type PushPlan } from './plan.js';
import { encodePending, readRemote } from './remote.js';
import { openBucket, type Bucket, type StoreOptions } from './target.js';

export interface PushOptions {
  /** A published snapshot (the caller holds its lock). */
  dir: string;
  location: Location;
  store: StoreOptions;
  cacheControl?: string | undefined;
  /** Plan only: read the bucket, upload and delete nothing. */
  dryRun: boolean;
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

/**
 * Runs the plan's steps in order; each phase finishes before the next begins. `marker`: when the
 * bucket has a manifest, the keys an interruption could leave unlike it, named before any upload:
 * the files about to change, and those an earlier interrupted push named (they may hold bytes of
 * neither manifest).
 */
async function apply(bucket: Bucket, plan: PushPlan, options: PushOptions, marker: readonly string[] | undefined): Promise<void> {
  const upload = async (file: LocalFile): Promise<void> => {
    const body = await checkedBody(options.dir, file);
    await bucket.put(file.path, body, { size: file.size, sha256: file.sha256, contentType: contentType(file.path), cacheControl: options.cacheControl });
  };
  const changing = [...plan.records, ...plan.views];
  if (marker && changing.length > 0) {
    const bytes = encodePending(pendingPaths(changing, marker));
    await bucket.put(PENDING_FILE, bytes, { size: bytes.length, sha256: sha256(bytes), contentType: contentType(PENDING_FILE) });
  }
  if (changing.length + plan.meta.length + plan.deletions.length === 0) return;
  options.log.detail(`push: ${plan.records.length} records, then ${plan.views.length} lists and other files, then ${plan.meta.length} manifest files, then ${plan.deletions.length} deletions`);
  await forEachConcurrent(plan.records, options.store.concurrency, upload);
  await forEachConcurrent(plan.views, options.store.concurrency, upload);
  for (const file of plan.meta) await upload(file);
  await bucket.delete(plan.deletions);
}

/** Pushes the snapshot; resolves to what it did (or would do, with dryRun). */
export async function pushSnapshot(options: PushOptions): Promise<PushResult> {
  const local = await readLocal(options.dir);
  const bucket = await openBucket(options.location, options.store);
  try {
    const remote = await readRemote(bucket, local, options.store.concurrency);
    const plan = planPush({ files: local.files, meta: local.meta, remote: remote.files, oldManifest: remote.oldManifest });
    const uploads = [...plan.records, ...plan.views, ...plan.meta];
    // The marker goes when the manifest is in place: with the deletions, in the same request.
    const deletions = remote.pending || (remote.hasManifest && plan.records.length + plan.views.length > 0) ? [...plan.deletions, PENDING_FILE] : plan.deletions;
    if (!options.dryRun) await apply(bucket, { ...plan, deletions }, options, remote.hasManifest ? remote.pendingPaths : undefined);
    return {
      target: describeKey(options.location),
      uploaded: uploads.length,
      uploadedBytes: uploads.reduce((sum, file) => sum + file.size, 0),
      deleted: plan.deletions.length,
      unchanged: plan.unchanged,
      requests: bucket.requests,
      listings: bucket.listings,
      dryRun: options.dryRun,
      planned: options.dryRun ? { upload: uploads.map((file) => file.path), delete: plan.deletions } : undefined,
    };
  } finally {
    bucket.client.destroy();
  }
}
