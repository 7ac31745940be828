/**
 * The I/O edge of the diff engine: snapshot folders (through their manifests) and the in-memory
 * file map of a sync. Only the files the hashes say differ are read.
 */
import { join } from 'node:path';
import pLimit from 'p-limit';
import fs from 'fs-extra';
import { ConfigError } from '../errors.js';
import { readManifest } from '../publish/apply.js';
import { Digests, type Manifest } from '../publish/manifest.js';
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
 * from disk) against the new file map held in memory.
 */
export async function diffAgainstFolder(out: string, previous: Manifest | undefined, files: ReadonlyMap<string, Buffer>, digests: Digests = new Digests()): Promise<ChangeSet> {
  const after = new Map([...files].map(([path, bytes]) => [path, digests.of(bytes)]));
  const paths = classifyPaths(hashesOf(previous), after);
  const toRead = pathsToRead(paths);
  return buildChangeSet(paths, await readFiles(out, toRead.before), files);
}
