/**
 * The I/O edge of the diff engine: snapshot folders (through their manifests) and the in-memory
 * file map of a sync. Only the files the hashes say differ are read.
 */
import { join } from 'node:path';
import pLimit from 'p-limit';
import fs from 'fs-extra';
import { ConfigError } from '../errors.js';
import { readManifest } from '../publish/apply.js';
import type { Manifest } from '../publish/manifest.js';
import { buildChangeSet, classifyPaths, pathsToRead, type ChangeSet } from './engine.js';

const hashesOf = (manifest: Manifest | undefined): Map<string, string> => new Map(Object.entries(manifest?.files ?? {}).map(([path, entry]) => [path, entry.sha256]));

/** Reads the named files of `dir`; a file that cannot be read is left out (its id then comes from its name). */
async function readFiles(dir: string, paths: string[]): Promise<Map<string, Buffer>> {
  const limit = pLimit(32);
  const files = new Map<string, Buffer>();
  await Promise.all(
    paths.map((path) =>
      limit(async () => {
        const bytes = await fs.readFile(join(dir, path)).catch(() => undefined);
        if (bytes) files.set(path, bytes);
      }),
    ),
  );
  return files;
}

async function snapshotManifest(dir: string): Promise<Manifest> {
  if (!(await fs.stat(dir).catch(() => undefined))?.isDirectory()) throw new ConfigError(`${dir} is not a folder; diff expects two published output folders`);
  const manifest = await readManifest(dir);
  if (!manifest) throw new ConfigError(`${dir} has no valid _meta/manifest.json; it is not a published snapshot (run sync into it first)`);
  return manifest;
}

/** What changed from the snapshot in `oldDir` to the one in `newDir`. */
export async function diffFolders(oldDir: string, newDir: string): Promise<ChangeSet> {
  const [before, after] = await Promise.all([snapshotManifest(oldDir), snapshotManifest(newDir)]);
  const paths = classifyPaths(hashesOf(before), hashesOf(after));
  const toRead = pathsToRead(paths);
  const [oldFiles, newFiles] = await Promise.all([readFiles(oldDir, toRead.before), readFiles(newDir, toRead.after)]);
  return buildChangeSet(paths, oldFiles, newFiles);
}

/**
 * What a sync is about to publish: the previous snapshot of `out` (its manifest, old contents read
 * from disk) against the new one's hashes, reading only the new files that changed.
 */
export async function diffAgainstSnapshot(out: string, previous: Manifest | undefined, entries: ReadonlyMap<string, { sha256: string }>, readNew: (path: string) => Promise<Buffer | undefined>): Promise<ChangeSet> {
  const paths = classifyPaths(hashesOf(previous), new Map([...entries].map(([path, entry]) => [path, entry.sha256])));
  const toRead = pathsToRead(paths);
  const after = new Map<string, Buffer>();
  const limit = pLimit(32);
  await Promise.all(
    toRead.after.map((path) =>
      limit(async () => {
        const bytes = await readNew(path);
        if (bytes) after.set(path, bytes);
      }),
    ),
  );
  return buildChangeSet(paths, await readFiles(out, toRead.before), after);
}
