/**
 * `verify --dir s3://...`: a bucket copy against its own manifest. Every file present with its
 * size (from the listing) and sha256 (from the metadata push records, so nothing is downloaded;
 * only objects written by other tools, without it, are read and hashed), and no object outside
 * `_meta/` that the manifest does not list.
 */
import { NotSnapshotError } from '../errors.js';
import { sha256 } from '../snapshot/manifest.js';
import { readManifestChunks } from '../snapshot/manifest-read.js';
import { MANIFEST_FILE, META_DIR, SIGNATURE_FILE } from '../snapshot/paths.js';
import type { LoadedKey } from '../sign/keys.js';
import { signatureProblem } from '../sign/signature.js';
import { forEachConcurrent } from '../util/concurrent.js';
import { isSafeRelative } from '../util/relative-path.js';
import type { VerifyReport } from '../verify/report.js';
import { describeKey, type Location } from './location.js';
import { isPushed } from './plan.js';
import { openBucket, type StoreOptions } from './target.js';

/** Checks the bucket under `location` against its manifest (and signature, with a key). */
export async function verifyBucket(location: Location, store: StoreOptions, publicKey?: LoadedKey): Promise<VerifyReport> {
  const bucket = await openBucket(location, store);
  try {
    const listing = await bucket.list();
    const bytes = listing.has(MANIFEST_FILE) ? await bucket.get(MANIFEST_FILE) : undefined;
    const manifest = bytes && (await readManifestChunks([bytes] as unknown as AsyncIterable<Buffer>, () => Promise.resolve(bytes)));
    if (!bytes || !manifest) throw new NotSnapshotError(`${describeKey(location, MANIFEST_FILE)} is missing or not a manifest of inventory-mirror; push a snapshot there first`);
    const missing: string[] = [];
    const altered: string[] = [];
    const compared: { path: string; sha256: string; size: number }[] = [];
    let files = 0;
    for (const [i, path] of manifest.table.entries()) {
      if (!isSafeRelative(path)) throw new NotSnapshotError(`${describeKey(location, MANIFEST_FILE)} lists ${JSON.stringify(path)}, which is not a path of a snapshot`);
      if (!isPushed(path)) continue;
      files++;
      const size = listing.get(path);
      if (size !== undefined && size !== manifest.table.fileSize(i)) altered.push(path);
      // Not listed: a HEAD says for sure (some stores' listings skip keys across pages).
      else compared.push({ path, sha256: manifest.table.sha256(i), size: manifest.table.fileSize(i) });
    }
    await forEachConcurrent(compared, store.concurrency, async (file) => {
      const head = await bucket.head(file.path);
      if (!head) return void missing.push(file.path);
      if (head.size !== file.size) return void altered.push(file.path);
      const actual = head.sha256 ?? (await bucket.get(file.path).then((body) => body && sha256(body)));
      if (actual !== file.sha256) altered.push(file.path);
    });
    const extra = [...listing.keys()].filter((path) => !path.startsWith(`${META_DIR}/`) && !manifest.table.has(path));
    const signature = publicKey ? signatureProblem(bytes, listing.has(SIGNATURE_FILE) ? await bucket.get(SIGNATURE_FILE) : undefined, publicKey) : undefined;
    return { files, missing: missing.sort(), altered: altered.sort(), extra: extra.sort(), signature };
  } finally {
    bucket.client.destroy();
  }
}
