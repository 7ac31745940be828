/**
 * Checks a published folder against its manifest: every listed file present with its size and
 * sha256, and no file the manifest does not list.
 */
import { join, relative, sep } from 'node:path';
import fs from 'fs-extra';
import { NotSnapshotError } from '../errors.js';
import { sha256 } from '../snapshot/manifest.js';
import { readManifest } from '../snapshot/manifest-read.js';
import { isOutsideSnapshot, MANIFEST_FILE } from '../snapshot/paths.js';
import { forEachConcurrent } from '../util/concurrent.js';
import type { VerifyReport } from './report.js';

/** Every file under `dir` as a `/`-separated relative path (links included, not followed). */
export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await fs.readdir(folder, { withFileTypes: true })) {
      const full = join(folder, entry.name);
      if (entry.isDirectory()) await walk(full);
      else out.push(relative(dir, full).split(sep).join('/'));
    }
  };
  await walk(dir);
  return out;
}

/** The folder against its manifest; a NotSnapshotError when it has none. */
export async function verifyFolder(dir: string): Promise<VerifyReport> {
  const manifest = await readManifest(dir);
  if (!manifest) throw new NotSnapshotError(`${dir} has no valid _meta/manifest.json; it is not a published snapshot (run sync into it first)`);
  const { table } = manifest;
  const present = (await listFiles(dir)).filter((p) => !isOutsideSnapshot(p));
  const presentSet = new Set(present);
  const altered: string[] = [];
  await forEachConcurrent(
    [...table.paths()].filter((p) => presentSet.has(p)),
    32,
    async (path) => {
      // A link is never a snapshot file, whatever it points to.
      const stat = await fs.lstat(join(dir, path));
      const bytes = stat.isFile() ? await fs.readFile(join(dir, path)) : undefined;
      if (!bytes || !table.matches(path, sha256(bytes), bytes.length)) altered.push(path);
    },
  );
  return {
    files: table.size,
    missing: [...table.paths()].filter((p) => !presentSet.has(p)).sort(),
    altered: altered.sort(),
    extra: present.filter((p) => !table.has(p) && p !== MANIFEST_FILE).sort(),
  };
}
