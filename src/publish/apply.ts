/**
 * Publishes a snapshot into a folder, writing only what changed: files whose bytes differ from
 * the previous manifest (or that went missing), removal of files no longer in the snapshot, and
 * the manifest. An unchanged snapshot writes nothing at all.
 */
import { join } from 'node:path';
import pLimit from 'p-limit';
import fs from 'fs-extra';
import { buildManifest, Digests, encodeManifest, parseManifest, sha256, type Manifest } from './manifest.js';
import { commit, rollForward, stage } from './journal.js';
import { MANIFEST_FILE, SIGNATURE_FILE } from './paths.js';
import { signsManifest } from '../sign/signature.js';

export interface PublishResult {
  written: string[];
  removed: string[];
  unchanged: number;
  manifest: Manifest;
}

/** Reads the folder's manifest; undefined when there is none or it is not ours. */
export async function readManifest(dir: string): Promise<Manifest | undefined> {
  const bytes = await fs.readFile(join(dir, MANIFEST_FILE)).catch(() => undefined);
  return bytes ? parseManifest(bytes) : undefined;
}

/** A file of the published snapshot, only if it still matches its manifest entry. */
export async function readPublished(dir: string, manifest: Manifest | undefined, path: string): Promise<Buffer | undefined> {
  const entry = manifest?.files[path];
  if (!entry) return undefined;
  const bytes = await fs.readFile(join(dir, path)).catch(() => undefined);
  return bytes && bytes.length === entry.size && sha256(bytes) === entry.sha256 ? bytes : undefined;
}

/** Whether `path` in `dir` still holds a file of `size` bytes (cheap: one stat, no read). */
async function sizeMatches(dir: string, path: string, size: number): Promise<boolean> {
  const stat = await fs.stat(join(dir, path)).catch(() => undefined);
  return stat !== undefined && stat.isFile() && stat.size === size;
}

async function sameBytes(dir: string, path: string, bytes: Buffer): Promise<boolean> {
  const existing = await fs.readFile(join(dir, path)).catch(() => undefined);
  return existing !== undefined && existing.equals(bytes);
}

export interface PublishOptions {
  /** Files found altered while reading them during the sync: rewritten whatever the manifest says. */
  damaged?: ReadonlySet<string>;
  /** Files read and found to match the manifest: no need to look at them again. */
  verified?: ReadonlySet<string>;
  /** Signs the manifest's bytes; the signature is published with it, in the same journal. */
  sign?: ((manifest: Buffer) => Buffer) | undefined;
  /** Told of what the publish did beyond files (a stale signature removed). */
  log?: (line: string) => void;
  /** Digests already computed by the caller's earlier stages. */
  digests?: Digests;
}

/**
 * Applies `files` (path → bytes) to `dir` as one snapshot. Trusts the previous manifest for
 * content (hash compare) but checks each kept file still exists with its size, unless the caller
 * verified it, and rewrites the ones the caller found damaged; without a manifest, compares with
 * what is on disk.
 */
export async function publishSnapshot(dir: string, files: ReadonlyMap<string, Buffer>, previous: Manifest | undefined, options: PublishOptions = {}): Promise<PublishResult> {
  const damaged = options.damaged ?? new Set<string>();
  const verified = options.verified ?? new Set<string>();
  const digests = options.digests ?? new Digests();
  const hashed = new Map<string, { bytes: Buffer; sha256: string }>();
  for (const [path, bytes] of files) hashed.set(path, { bytes, sha256: digests.of(bytes) });
  const manifest = buildManifest(new Map([...hashed].map(([path, f]) => [path, { sha256: f.sha256, size: f.bytes.length }])));

  const limit = pLimit(64);
  const changed = await Promise.all(
    [...hashed].map(([path, file]) =>
      limit(async () => {
        const old = previous?.files[path];
        const keep = old ? old.sha256 === file.sha256 && !damaged.has(path) && (verified.has(path) || (await sizeMatches(dir, path, file.bytes.length))) : !previous && (await sameBytes(dir, path, file.bytes));
        return keep ? undefined : path;
      }),
    ),
  );
  const written = changed.filter((p): p is string => p !== undefined);
  const removed = previous ? Object.keys(previous.files).filter((path) => !hashed.has(path)) : [];
  const manifestBytes = encodeManifest(manifest);
  const manifestSame = await sameBytes(dir, MANIFEST_FILE, manifestBytes);
  // The signature: written when the key's signature of this manifest differs from the file;
  // without a key, one left from an earlier manifest is removed rather than left lying.
  const signature = options.sign?.(manifestBytes);
  const oldSignature = await fs.readFile(join(dir, SIGNATURE_FILE)).catch(() => undefined);
  const signatureStale = !signature && oldSignature !== undefined && !signsManifest(oldSignature, manifestBytes);
  const signatureChanged = signature !== undefined && !oldSignature?.equals(signature);
  if (written.length === 0 && removed.length === 0 && manifestSame && !signatureChanged && !signatureStale) return { written, removed, unchanged: hashed.size, manifest };

  const toStage = new Map(written.map((path) => [path, hashed.get(path)!]));
  if (!manifestSame) toStage.set(MANIFEST_FILE, { bytes: manifestBytes, sha256: sha256(manifestBytes) });
  if (signatureChanged) toStage.set(SIGNATURE_FILE, { bytes: signature, sha256: sha256(signature) });
  if (signatureStale) options.log?.(`warning: removed ${SIGNATURE_FILE}: it signed an earlier manifest (pass --sign-key to sign this one)`);
  const journal = await stage(dir, toStage, signatureStale ? [...removed, SIGNATURE_FILE] : removed);
  await commit(dir, journal);
  await rollForward(dir, journal);
  return { written, removed, unchanged: hashed.size - written.length, manifest };
}
