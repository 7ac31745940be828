/**
 * `_meta/manifest.json`: every other file of the snapshot with its sha256 and size, sorted by
 * path so it is byte-stable. The manifest is what `verify`, `serve` and the next sync trust.
 */
import { hash } from 'node:crypto';
import { z } from 'zod';
import { isPlainObject } from '../util/json-value.js';
import { recordOf } from '../util/record-of.js';
import { decodeJsonAs, encodeJson } from './json.js';

const HEX64 = /^[0-9a-f]{64}$/;

export const manifestEntrySchema = z.strictObject({ sha256: z.string().regex(HEX64), size: z.int().min(0) });
export type ManifestEntry = z.infer<typeof manifestEntrySchema>;

/** `manifestEntrySchema` as a predicate, for the thousands of entries of a manifest (see recordOf). */
export function isManifestEntry(value: unknown): value is ManifestEntry {
  if (!isPlainObject(value)) return false;
  let keys = 0;
  for (const key in value) {
    if (key !== 'sha256' && key !== 'size') return false;
    keys++;
  }
  const { sha256, size } = value;
  return keys === 2 && typeof sha256 === 'string' && HEX64.test(sha256) && Number.isSafeInteger(size) && (size as number) >= 0;
}

export const manifestSchema = z.strictObject({
  format: z.literal(1),
  generator: z.literal('inventory-mirror'),
  files: recordOf(isManifestEntry),
});

export type Manifest = z.infer<typeof manifestSchema>;

export function sha256(bytes: Buffer): string {
  return hash('sha256', bytes, 'hex');
}

/** The manifest of a set of files (paths relative to the folder, `/`-separated). */
export function buildManifest(files: ReadonlyMap<string, { sha256: string; size: number }>): Manifest {
  const sorted = [...files.keys()].sort();
  return { format: 1, generator: 'inventory-mirror', files: Object.fromEntries(sorted.map((path) => [path, { sha256: files.get(path)!.sha256, size: files.get(path)!.size }])) };
}

export function encodeManifest(manifest: Manifest): Buffer {
  return encodeJson(manifest);
}

/** Parses manifest bytes; undefined when they are not a manifest of ours. */
export function parseManifest(bytes: Buffer): Manifest | undefined {
  return decodeJsonAs(bytes, manifestSchema);
}
