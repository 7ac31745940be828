/**
 * `_meta/manifest.json`: every other file of the snapshot with its sha256 and size, sorted by
 * path so it is byte-stable. The manifest is what `verify`, `serve` and the next sync trust.
 */
import { hash } from 'node:crypto';
import { z } from 'zod';
import { decodeJsonAs, encodeJson } from './json.js';

export const manifestSchema = z.strictObject({
  format: z.literal(1),
  generator: z.literal('inventory-mirror'),
  files: z.record(z.string(), z.strictObject({ sha256: z.string().regex(/^[0-9a-f]{64}$/), size: z.int().min(0) })),
});

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestEntry = Manifest['files'][string];

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
