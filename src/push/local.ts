/**
 * The local side of a push: the snapshot's manifest as the list of files to push, and each file's
 * bytes checked against its manifest entry before they leave, so a damaged folder never reaches
 * the bucket under a sha256 it does not have.
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { NotSnapshotError, VerifyError } from '../errors.js';
import { manifestFault, sha256 } from '../snapshot/manifest.js';
import { readManifest } from '../snapshot/manifest-read.js';
import { MANIFEST_FILE, SIGNATURE_FILE } from '../snapshot/paths.js';
import { isPushed, type LocalFile } from './plan.js';
import { MULTIPART_BYTES } from './target.js';

/** A published snapshot as push sees it: the files it pushes and the manifest (and signature) after them. */
export interface LocalSnapshot {
  files: LocalFile[];
  /** The manifest, then the signature when there is one. */
  meta: LocalFile[];
  /** Every pushed file by path (not the manifest and signature). */
  byPath: Map<string, LocalFile>;
}

/** Reads `dir`'s manifest; a NotSnapshotError when there is none or it names a path outside the folder. */
export async function readLocal(dir: string): Promise<LocalSnapshot> {
  const manifest = await readManifest(dir);
  if (!manifest) {
    // A manifest that is there but not ours says why (a path outside the snapshot's form, say).
    const bytes = await readFile(join(dir, MANIFEST_FILE)).catch(() => undefined);
    const fault = bytes && manifestFault(bytes);
    throw new NotSnapshotError(fault ? `${dir}/${MANIFEST_FILE}: ${fault}; run sync into the folder again` : `${dir} has no valid ${MANIFEST_FILE}; it is not a published snapshot (run sync into it first)`);
  }
  const files: LocalFile[] = [];
  // Every path passed the snapshot's path rule as the manifest was read.
  for (const [i, path] of manifest.table.entries()) {
    if (isPushed(path)) files.push({ path, sha256: manifest.table.sha256(i), size: manifest.table.fileSize(i) });
  }
  const meta: LocalFile[] = [{ path: MANIFEST_FILE, sha256: manifest.sha256, size: (await stat(join(dir, MANIFEST_FILE))).size }];
  const signature = await readFile(join(dir, SIGNATURE_FILE)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (signature) meta.push({ path: SIGNATURE_FILE, sha256: sha256(signature), size: signature.length });
  return { files, meta, byPath: new Map(files.map((file) => [file.path, file])) };
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
