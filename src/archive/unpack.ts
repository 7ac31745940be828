/**
 * `unpack`: restores an archive into a folder. Entries go into a fresh temporary folder beside the
 * target and are checked against the archive's manifest (and signature, with a public key). Only
 * then does the snapshot land: a new folder is moved into place whole; an existing snapshot is
 * replaced through the publish journal, as a sync replaces it, so a crash at any moment leaves the
 * old or the new snapshot and files the two share are not rewritten. The target must be absent,
 * empty, or a published snapshot; a folder holding anything else (files outside its manifest, a
 * `.git`) is refused, so nothing that is not a snapshot is ever lost.
 */
import { createWriteStream } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import fs from 'fs-extra';
import { ArchiveError, OutputError, VerifyError, fsFailure } from '../errors.js';
import { recover } from '../publish/journal.js';
import { acquireLock, type Lock } from '../publish/lock.js';
import { encodeManifest, parseManifest } from '../snapshot/manifest.js';
import { readManifest } from '../snapshot/manifest-read.js';
import type { FileTable } from '../snapshot/table.js';
import { HTTP_CACHE_FILE, LAST_SYNC_FILE, MANIFEST_FILE, SIGNATURE_FILE } from '../snapshot/paths.js';
import { publishFiles } from '../publish/publish.js';
import type { LoadedKey } from '../sign/keys.js';
import { signatureProblem } from '../sign/signature.js';
import { verifyFolder } from '../verify/verify.js';
import { compareArchive } from './check.js';
import { problemLines } from '../verify/report.js';
import { readArchive, type ArchiveContents } from './read.js';

interface UnpackOptions {
  /** The archive (absolute). */
  file: string;
  /** The folder to restore into (absolute). */
  dir: string;
  /** When given, the archive's signature must verify with it. */
  publicKey?: LoadedKey;
}

export interface UnpackResult {
  files: number;
  /** Whether an existing snapshot was replaced. */
  replaced: boolean;
}

type Target = { kind: 'absent' } | { kind: 'empty' } | { kind: 'snapshot'; lock: Lock };

/** Decides what may happen to the target folder, refusing anything that would lose data. */
async function inspectTarget(dir: string): Promise<Target> {
  const stat = await fs.lstat(dir).catch(() => undefined);
  if (!stat) return { kind: 'absent' };
  if (!stat.isDirectory()) throw new OutputError(`--dir ${dir} exists and is not a folder; choose another --dir`);
  const names = await fs.readdir(dir);
  if (names.length === 0) return { kind: 'empty' };
  if (!(await readManifest(dir))) throw new OutputError(`--dir ${dir} is not empty and is not a published snapshot; unpack into a new or empty folder`);
  if (names.includes('.git')) throw new OutputError(`--dir ${dir} holds a .git folder, which replacing the snapshot would lose; unpack elsewhere and copy the files in`);
  const lock = await acquireLock(dir, 'unpack');
  const report = await verifyFolder(dir);
  if (report.extra.length > 0) {
    await lock.release();
    throw new OutputError(`--dir ${dir} holds files outside its snapshot (first: ${report.extra[0]}), which replacing it would lose; move them away or unpack elsewhere`);
  }
  return { kind: 'snapshot', lock };
}

/** Unpacks, checks and places the archive's snapshot; what the file system refuses is one line. */
export async function unpackArchive(options: UnpackOptions): Promise<UnpackResult> {
  const parent = dirname(options.dir);
  let made: string | undefined;
  try {
    made = await fs.mkdir(parent, { recursive: true });
    return await unpackInto(options, parent);
  } catch (error) {
    // Folders made for the target go when nothing lands in them.
    if (made) await removeEmptyFolders(parent, made);
    throw fsFailure(error, `cannot unpack into ${options.dir}`) ?? error;
  }
}

/** Removes `from` and the folders above it up to `to` while they are empty. */
async function removeEmptyFolders(from: string, to: string): Promise<void> {
  for (let at = from; ; at = dirname(at)) {
    if (!(await fs.rmdir(at).then(() => true, () => false)) || at === to || at === dirname(at)) return;
  }
}

async function unpackInto(options: UnpackOptions, parent: string): Promise<UnpackResult> {
  const { file, dir } = options;
  const target = await inspectTarget(dir);
  const tmp = await fs.mkdtemp(join(parent, `.${basename(dir)}.unpack-`));
  try {
    let admitted: Promise<FileTable> | undefined;
    const contents = await readArchive(file, async (path, size, heads) => {
      if (path !== MANIFEST_FILE && path !== SIGNATURE_FILE) {
        const manifest = await (admitted ??= admit(file, tmp, heads, options.publicKey));
        const declared = manifest.indexOf(path);
        if (declared === undefined) throw new ArchiveError(file, `entry ${JSON.stringify(path)} is not in its manifest; nothing was unpacked`);
        if (manifest.fileSize(declared) !== size) throw new ArchiveError(file, `entry ${JSON.stringify(path)} holds ${size} bytes where its manifest says ${manifest.fileSize(declared)}; nothing was unpacked`);
      }
      const to = resolve(tmp, path);
      // entryProblem already refused such paths; this is the last line of defence.
      if (!to.startsWith(tmp + sep)) throw new ArchiveError(file, `entry ${JSON.stringify(path)} would land outside the folder; refusing the archive`);
      await fs.mkdir(dirname(to), { recursive: true });
      return createWriteStream(to, { flags: 'wx', mode: 0o644 });
    });
    const report = compareArchive(contents);
    if (report.noManifest) throw new ArchiveError(file, 'holds no valid _meta/manifest.json; it is not an archive made by `inventory-mirror pack`');
    const problems = problemLines(report);
    if (problems.length > 0) throw new VerifyError(`${file} does not match its own manifest, nothing was unpacked: ${problems.slice(0, 5).join(', ')}${problems.length > 5 ? ` and ${problems.length - 5} more` : ''}`, problems);
    // Already done when the archive held any file beyond the manifest and signature.
    const manifest = await (admitted ??= admit(file, tmp, contents, options.publicKey));
    if (target.kind === 'snapshot') await replaceSnapshot(tmp, dir, file, manifest, contents);
    else await place(tmp, dir, target);
    return { files: report.files, replaced: target.kind === 'snapshot' };
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
    if (target.kind === 'snapshot') await target.lock.release();
  }
}

/**
 * Checks what can be checked before any file of the snapshot is written: the manifest is ours, its
 * signature verifies (with a key), and the files it lists fit on the disk. Entries are then held
 * to the sizes it lists, so an archive cannot write more than its manifest admits.
 */
async function admit(file: string, tmp: string, heads: Pick<ArchiveContents, 'manifest' | 'signature'>, publicKey: LoadedKey | undefined): Promise<FileTable> {
  const manifest = heads.manifest ? parseManifest(heads.manifest)?.table : undefined;
  if (!manifest) throw new ArchiveError(file, 'holds no valid _meta/manifest.json; it is not an archive made by `inventory-mirror pack`');
  if (publicKey) {
    const problem = signatureProblem(heads.manifest!, heads.signature, publicKey);
    if (problem) throw new VerifyError(`${file}: ${problem}; nothing was unpacked`, [problem]);
  }
  let needed = 0;
  for (let i = 0; i < manifest.size; i++) needed += manifest.fileSize(i);
  const { bavail, bsize } = await statfs(tmp);
  if (needed > bavail * bsize) throw new ArchiveError(file, `its manifest lists ${needed} bytes of files and ${dirname(tmp)} has ${bavail * bsize} free; nothing was unpacked`);
  return manifest;
}

/** Moves the checked folder into place where there was no snapshot. */
async function place(tmp: string, dir: string, target: Target): Promise<void> {
  if (target.kind === 'empty') await fs.rmdir(dir);
  await fs.rename(tmp, dir);
}

/** Publishes the checked folder's snapshot over the one in `dir` (locked by the caller). */
async function replaceSnapshot(tmp: string, dir: string, file: string, archived: FileTable, contents: ArchiveContents): Promise<void> {
  // The publish rebuilds the manifest from the files; the archive's own bytes (which its signature
  // signs) must come out again, as they do for every archive `pack` made.
  if (!encodeManifest(archived).equals(contents.manifest!)) throw new ArchiveError(file, 'its manifest is not in the form `inventory-mirror pack` writes; unpack it into a new folder instead');
  await recover(dir);
  // Validators of the replaced snapshot's responses would let the next sync keep files the
  // archive changed; they go first, so a crash cannot leave them beside the new snapshot.
  for (const runFile of [HTTP_CACHE_FILE, LAST_SYNC_FILE]) await fs.rm(join(dir, runFile), { force: true });
  await publishFiles(dir, archived.paths(), (path) => fs.readFile(join(tmp, path)), { sign: contents.signature ? () => contents.signature! : undefined });
}
