/**
 * Reading the published snapshot, and publishing a whole snapshot held in memory at once (for
 * callers that have every file's bytes; a sync streams through SnapshotWriter instead).
 */
import { join } from 'node:path';
import fs from 'fs-extra';
import { parseManifest, type Manifest } from './manifest.js';
import { MANIFEST_FILE } from './paths.js';
import { SnapshotWriter, type CommitOptions, type PublishResult } from './writer.js';

/** Reads the folder's manifest; undefined when there is none or it is not ours. */
export async function readManifest(dir: string): Promise<Manifest | undefined> {
  const bytes = await fs.readFile(join(dir, MANIFEST_FILE)).catch(() => undefined);
  return bytes ? parseManifest(bytes) : undefined;
}

/** Publishes `files` (path → bytes) into `dir` as one snapshot, writing only what changed. */
export async function publishSnapshot(dir: string, files: ReadonlyMap<string, Buffer>, previous: Manifest | undefined, options: CommitOptions = {}): Promise<PublishResult> {
  const writer = await SnapshotWriter.open(dir, previous);
  for (const [path, bytes] of files) await writer.put(path, bytes, path);
  return writer.commit(options);
}
