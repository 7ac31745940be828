/**
 * Checks a published folder against its manifest: every listed file present with its size and
 * sha256, and no file the manifest does not list.
 */
import { join, relative, sep } from 'node:path';
import pLimit from 'p-limit';
import fs from 'fs-extra';
import { readManifest } from '../publish/apply.js';
import { sha256 } from '../publish/manifest.js';
import { isOutsideSnapshot, MANIFEST_FILE } from '../publish/paths.js';

export interface VerifyReport {
  files: number;
  missing: string[];
  altered: string[];
  extra: string[];
  /** Set when the folder has no usable manifest at all. */
  noManifest: boolean;
}

/** Every file under `dir` as a `/`-separated relative path. */
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

export async function verifyFolder(dir: string): Promise<VerifyReport> {
  const manifest = await readManifest(dir);
  const present = (await listFiles(dir)).filter((p) => !isOutsideSnapshot(p));
  if (!manifest) return { files: 0, missing: [], altered: [], extra: present, noManifest: true };
  const listed = new Set(Object.keys(manifest.files));
  const presentSet = new Set(present);
  const limit = pLimit(32);
  const altered = (
    await Promise.all(
      [...listed].filter((p) => presentSet.has(p)).map((path) =>
        limit(async () => {
          const bytes = await fs.readFile(join(dir, path));
          const entry = manifest.files[path]!;
          return bytes.length !== entry.size || sha256(bytes) !== entry.sha256 ? path : undefined;
        }),
      ),
    )
  ).filter((p): p is string => p !== undefined);
  return {
    files: listed.size,
    missing: [...listed].filter((p) => !presentSet.has(p)).sort(),
    altered: altered.sort(),
    extra: present.filter((p) => !listed.has(p) && p !== MANIFEST_FILE).sort(),
    noManifest: false,
  };
}
