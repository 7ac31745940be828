/**
 * `pack`: one deterministic `.tar.gz` of a published snapshot: the manifest, its signature when
 * there is one, and exactly the files the manifest lists, each checked against the manifest as it
 * is read. Written to a temporary file beside the target, then renamed into place.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { basename, dirname, join, relative, isAbsolute } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createGzip } from 'node:zlib';
import fs from 'fs-extra';
import { NotSnapshotError, OutputError, VerifyError, fsFailure } from '../errors.js';
import { recoverBeforeReading } from '../publish/read-recover.js';
import { withPath } from '../util/atomic-write.js';
import { parseManifest, sha256 } from '../snapshot/manifest.js';
import type { FileTable } from '../snapshot/table.js';
import { MANIFEST_FILE, SIGNATURE_FILE } from '../snapshot/paths.js';
import type { LoadedKey } from '../sign/keys.js';
import { readSigned } from '../sign/folder.js';
import { signManifest, signsManifest } from '../sign/signature.js';
import { ARCHIVE_END, entryHeader, entryOrder, entryPadding } from './entries.js';

interface PackOptions {
  /** The published folder (absolute). */
  dir: string;
  /** The archive to write (absolute). */
  out: string;
  /** Signs the manifest into the archive's `_meta/manifest.sig` (the folder is not changed). */
  signKey?: LoadedKey;
  log?: (line: string) => void;
}

export interface PackResult {
  files: number;
  bytes: number;
  signed: boolean;
}

async function* tarChunks(dir: string, paths: string[], inMemory: ReadonlyMap<string, Buffer>, manifest: FileTable): AsyncGenerator<Buffer> {
  for (const path of paths) {
    const bytes = inMemory.get(path) ?? (await fs.readFile(join(dir, path)).catch(() => undefined));
    if (!bytes) throw new VerifyError(`${join(dir, path)} is listed in the manifest but missing; run \`inventory-mirror verify --dir ${dir}\` (or sync again) before packing`, [`missing: ${path}`]);
    if (manifest.has(path) && !manifest.matches(path, sha256(bytes), bytes.length)) {
      throw new VerifyError(`${join(dir, path)} does not match the manifest (altered since the sync); run \`inventory-mirror verify --dir ${dir}\`, sync again, then pack`, [`altered: ${path}`]);
    }
    yield entryHeader(path, bytes.length);
    yield bytes;
    yield entryPadding(bytes.length);
  }
  yield ARCHIVE_END;
}

/** Packs the snapshot in `dir` into `out`. */
export async function packSnapshot(options: PackOptions): Promise<PackResult> {
  const { dir, out } = options;
  const rel = relative(dir, out);
  if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) throw new OutputError(`--out ${out} is inside the folder being packed; write the archive elsewhere`);
  if (!(await fs.stat(dirname(out)).catch(() => undefined))?.isDirectory()) throw new OutputError(`--out ${out}: the folder ${dirname(out)} does not exist`);
  const tmp = join(dirname(out), `.${basename(out)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    const note = await recoverBeforeReading(dir, 'pack');
    if (note) options.log?.(note);
    const { manifest: manifestBytes, signature: folderSig } = await readSigned(dir);
    const manifest = manifestBytes ? parseManifest(manifestBytes)?.table : undefined;
    if (!manifestBytes || !manifest) throw new NotSnapshotError(`${dir} has no valid ${MANIFEST_FILE}; it is not a published snapshot (run sync into it first)`);
    const inMemory = new Map<string, Buffer>([[MANIFEST_FILE, manifestBytes]]);
    if (options.signKey) inMemory.set(SIGNATURE_FILE, signManifest(manifestBytes, options.signKey));
    else if (folderSig && signsManifest(folderSig, manifestBytes)) inMemory.set(SIGNATURE_FILE, folderSig);
    else if (folderSig) options.log?.(`warning: ${SIGNATURE_FILE} of ${dir} signs an earlier manifest; the archive is packed without it`);
    const paths = entryOrder([...inMemory.keys(), ...manifest.paths()]);
    // Level 9 and Node's fixed gzip header (no name, mtime 0) keep the bytes identical run to run.
    await pipeline(Readable.from(tarChunks(dir, paths, inMemory, manifest)), createGzip({ level: constants.Z_BEST_COMPRESSION }), createWriteStream(tmp, { flags: 'wx' }));
    await fs.rename(tmp, out);
    const bytes = (await fs.stat(out)).size;
    return { files: paths.length, bytes, signed: inMemory.has(SIGNATURE_FILE) };
  } catch (error) {
    throw fsFailure(withPath(error, tmp), `cannot pack ${dir} into ${out}`) ?? error;
  } finally {
    await fs.rm(tmp, { force: true });
  }
}
