/**
 * The local side of a push: the snapshot's manifest (its sha256 and a count, or its table of
 * files), and each file's bytes checked against its manifest entry before they leave, so a damaged
 * folder never reaches the bucket under a sha256 it does not have.
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { NotSnapshotError, VerifyError } from '../errors.js';
import { manifestFault, sha256 } from '../snapshot/manifest.js';
import { readManifest, readManifestInto } from '../snapshot/manifest-read.js';
import { MANIFEST_FILE, SIGNATURE_FILE } from '../snapshot/paths.js';
import type { FileTable } from '../snapshot/table.js';
import { isPushed, type LocalFile } from './plan.js';
import { MULTIPART_BYTES } from './target.js';

/** A published snapshot as push sees it: its manifest (and signature), and how many files go up besides. */
export interface LocalMeta {
  manifest: LocalFile;
  signature: LocalFile | undefined;
  /** The manifest's files that push copies (dotfiles at the top left out). */
  files: number;
}

/** The snapshot's files as well: the manifest's table, compact (see snapshot/table.ts). */
export interface LocalSnapshot extends LocalMeta {
  table: FileTable;
}

function notSnapshot(dir: string, bytes: Buffer | undefined): NotSnapshotError {
  // A manifest that is there but not ours says why (a path outside the snapshot's form, say).
  const fault = bytes && manifestFault(bytes);
  return new NotSnapshotError(fault ? `${dir}/${MANIFEST_FILE}: ${fault}; run sync into the folder again` : `${dir} has no valid ${MANIFEST_FILE}; it is not a published snapshot (run sync into it first)`);
}

async function readSignature(dir: string): Promise<LocalFile | undefined> {
  const signature = await readFile(join(dir, SIGNATURE_FILE)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  return signature && { path: SIGNATURE_FILE, sha256: sha256(signature), size: signature.length };
}

/**
 * Reads `dir`'s manifest as it streams, keeping only its sha256 and a count of its files: all a
 * push needs when the bucket turns out to hold the snapshot already. A NotSnapshotError when there
 * is none or it is not ours.
 */
export async function readLocalMeta(dir: string): Promise<LocalMeta> {
  const file = join(dir, MANIFEST_FILE);
  let files = 0;
  const counter = {
    add: (path: string): boolean => {
      if (isPushed(path)) files++;
      return true;
    },
    done: () => files,
  };
  const read = await readManifestInto(createReadStream(file, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>, () => readFile(file), () => {
    files = 0;
    return counter;
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'EISDIR' || error.code === 'ENOTDIR') return undefined;
    throw error;
  });
  if (!read) throw notSnapshot(dir, await readFile(file).catch(() => undefined));
  const manifest: LocalFile = { path: MANIFEST_FILE, sha256: read.sha256, size: (await stat(file)).size };
  return { manifest, signature: await readSignature(dir), files: read.entries };
}

/** Reads `dir`'s manifest into its table; a NotSnapshotError when there is none or it names a path outside the folder. */
export async function readLocal(dir: string): Promise<LocalSnapshot> {
  const manifest = await readManifest(dir);
  if (!manifest) throw notSnapshot(dir, await readFile(join(dir, MANIFEST_FILE)).catch(() => undefined));
  let files = 0;
  // Every path passed the snapshot's path rule as the manifest was read.
  for (const path of manifest.table.paths()) if (isPushed(path)) files++;
  return {
    table: manifest.table,
    manifest: { path: MANIFEST_FILE, sha256: manifest.sha256, size: (await stat(join(dir, MANIFEST_FILE))).size },
    signature: await readSignature(dir),
    files,
  };
}

function damaged(dir: string, file: LocalFile): VerifyError {
  const problem = `altered: ${file.path}`;
  return new VerifyError(`${dir}/${file.path} does not match its manifest entry (sha256 or size); nothing after it was pushed; run inventory-mirror verify --dir ${dir}, then sync again`, [problem]);
}

/** What to upload for `file`: its bytes, or for a large file the file itself, once its sha256 checked. */
export async function checkedBody(dir: string, file: LocalFile): Promise<Buffer | { file: string }> {
  const full = join(dir, file.path);
  try {
    if (file.size <= MULTIPART_BYTES) {
      const bytes = await readFile(full);
      if (bytes.length !== file.size || sha256(bytes) !== file.sha256) throw damaged(dir, file);
      return bytes;
    }
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of createReadStream(full) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      size += chunk.length;
    }
    if (size !== file.size || hash.digest('hex') !== file.sha256) throw damaged(dir, file);
    return { file: full };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw damaged(dir, file);
    throw error;
  }
}
