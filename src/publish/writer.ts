/**
 * Collects a new snapshot file by file while the sync runs, writing only what changed, and into
 * the staging area, not the folder: a changed body is staged the moment it arrives (a list is
 * streamed into its staged file), so file creation overlaps the wait for the service and no body
 * has to stay in memory. An unchanged file (same hash as the previous manifest, or a 304) is only
 * checked to still exist: by its size after a reboot, by its folder's listing within the boot of
 * the last sync (see state/boot.ts). `commit` then publishes the whole snapshot through one
 * journal (see journal.ts), where every folder the previous snapshot did not have moves into
 * place with a single rename, and the run metadata bound to the manifest goes with it.
 */
import { createHash } from 'node:crypto';
import { createReadStream, lstatSync, readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import fs from 'fs-extra';
import { NameCollisionError } from '../errors.js';
import { FileBatcher } from './file-batch.js';
import { commit, rollForward, stagingDir, type Journal } from './journal.js';
import { manifestChunks, sha256, type ManifestRead } from '../snapshot/manifest.js';
import { isOutsideSnapshot, MANIFEST_FILE, SIGNATURE_FILE, WORK_DIR } from '../snapshot/paths.js';
import { FileTable, type Validators } from '../snapshot/table.js';
import { safeFolder } from '../snapshot/safe-folder.js';
import { BitSet } from '../util/bit-set.js';
import { HashSet } from '../util/string-set.js';

export interface PublishResult {
  written: string[];
  removed: string[];
  unchanged: number;
  /** The sha256 of the new manifest's bytes. */
  manifestSha256: string;
  /** Whether a journal was committed (false: the folder already held this snapshot). */
  published: boolean;
}

/** Files written next to the manifest: bound to it (they name its sha256), outside it. */
type MetaFiles = (manifestSha256: string, order: readonly number[], pending: Pending) => Map<string, Iterable<string> | Buffer>;

/** What a publish would write and remove, in the manifest's order. */
export interface Pending {
  written: string[];
  removed: string[];
}

interface CommitOptions {
  /** Signs the manifest's bytes; the signature is published with it, in the same journal. */
  sign?: ((manifest: Buffer) => Buffer) | undefined;
  /** Run metadata placed in the same journal (or written at once when nothing else changes). */
  meta?: MetaFiles;
  /** Told of what the publish did beyond files (a stale signature removed). */
  log?: (line: string) => void;
  /** Whether a signature left from an earlier manifest signs this one (no key: kept only then). */
  signs?: (signature: Buffer, manifest: Buffer) => boolean;
}

/** A published file that no longer holds the bytes its manifest lists: fetch it again. */
export class DamagedFileError extends Error {
  constructor(readonly path: string) {
    super(`${path} no longer matches its manifest`);
  }
}

/** Where staged files of the snapshot tree go, relative to the work folder. */
const TREE = 'tree';
/** The manifest, its signature and the run metadata, staged apart from the tree: they are placed last. */
const FINAL = 'final';

/**
 * Whether `path` is a file (not a link) of `size` bytes. Synchronous on purpose: a stat of a cached
 * inode takes a microsecond or two, while queueing 36k of them to the thread pool cost a re-sync 0.9 s.
 */
function sizeMatches(path: string, size: number): boolean {
  try {
    const stat = lstatSync(path);
    return stat.isFile() && stat.size === size;
  } catch {
    return false;
  }
}

/** The files present in the folders that hold `paths` (one listing per folder, no stat per file), as a compact set. */
function filesInFolders(dir: string, paths: Iterable<string>): HashSet {
  const folders = new Set<string>();
  for (const path of paths) folders.add(path.slice(0, Math.max(0, path.lastIndexOf('/'))));
  const listed = HashSet.builder();
  for (const folder of folders) {
    let entries: Dirent[];
    try {
      entries = readdirSync(join(dir, folder), { withFileTypes: true });
    } catch {
      continue;
    }
    const prefix = folder ? `${folder}/` : '';
    for (const entry of entries) if (entry.isFile()) listed.add(prefix + entry.name);
  }
  return listed.build();
}

interface OpenOptions {
  /**
   * The folder was last synced in this boot (see state/boot.ts), so power loss cannot have cut its
   * files short since: a kept file is checked by its folder's listing, not by its size.
   */
  sameBoot?: boolean;
  /** Stage nothing that already sits in the folder with the same bytes (default true). */
  reuse?: boolean;
}

/** A file being written into staging piece by piece. */
export interface StagedStream {
  write(piece: string | Buffer): Promise<void>;
  /** Ends the file and adds it to the snapshot (dropping the staged copy when the folder holds the same bytes). */
  finish(validators?: Validators): Promise<void>;
  /** Drops what was written (a retry starts over). */
  abort(): Promise<void>;
}

export class SnapshotWriter {
  readonly #dir: string;
  readonly #previous: FileTable | undefined;
  /** The sha256 of the published manifest's bytes (the previous snapshot's), when there is one. */
  readonly #previousSha256: string | undefined;
  /** The folder held nothing before (no manifest, no files): nothing to compare with. */
  readonly #fresh: boolean;
  readonly #entries: FileTable;
  /** The entries of #entries staged in this run, by index. */
  readonly #staged = new BitSet();
  /** Published files found altered when read: rewritten whatever the manifest says. */
  readonly #damaged = new Set<string>();
  readonly #madeDirs = new Set<string>();
  /** The files the folder holds, when listings stand in for sizes (same boot); else undefined. */
  readonly #listed: HashSet | undefined;
  readonly #tree: string;
  readonly #files = new FileBatcher();

  private constructor(dir: string, previous: ManifestRead | undefined, fresh: boolean, listed: HashSet | undefined) {
    this.#dir = dir;
    this.#tree = join(stagingDir(dir), TREE);
    this.#previous = previous?.table;
    this.#previousSha256 = previous?.sha256;
    // Derived from the previous table: what stays as it was costs a bit, not a copy.
    this.#entries = previous ? FileTable.over(previous.table) : new FileTable();
    this.#fresh = fresh;
    this.#listed = listed;
  }

  /** A writer over `dir` (locked by the caller, recovered), whose published snapshot is `previous`. */
  static async open(dir: string, previous: ManifestRead | undefined, options: OpenOptions = {}): Promise<SnapshotWriter> {
    await fs.rm(stagingDir(dir), { recursive: true, force: true });
    await fs.mkdir(join(stagingDir(dir), TREE), { recursive: true });
    const fresh = options.reuse === false || (!previous && (await fs.readdir(dir)).every((name) => name === WORK_DIR || isOutsideSnapshot(name)));
    const listed = previous && options.sameBoot ? filesInFolders(dir, previous.table.paths()) : undefined;
    return new SnapshotWriter(dir, previous, fresh, listed);
  }

  /**
   * About how many files the new snapshot will hold, once the lists tell. A first sync makes room
   * for them at once; a re-sync's table holds only what changed, and needs none.
   */
  expect(files: number): void {
    if (!this.#previous) this.#entries.reserve(files);
  }

  /** The files of the new snapshot so far, with hash, size and validators. */
  get entries(): FileTable {
    return this.#entries;
  }

  /** The previous snapshot's files (undefined on a first sync). */
  get previous(): FileTable | undefined {
    return this.#previous;
  }

  /**
   * Adds a file of the new snapshot, staging it unless the folder already holds these bytes.
   * `replace` lets a file put earlier in this run be put again (a list rewritten without the
   * records that answered 404); otherwise a second file under one name is an error. `sha256`:
   * the bytes' digest, when the caller has it already (made on the record thread).
   */
  async put(path: string, bytes: Buffer, options: { validators?: Validators; replace?: boolean; sha256?: string } = {}): Promise<void> {
    this.#claim(path, options.replace);
    const digest = options.sha256 ?? sha256(bytes);
    this.#unstage(path);
    const i = this.#entries.set(path, digest, bytes.length, options.validators);
    if (await this.#holds(path, digest, bytes.length, bytes)) return;
    await this.#ensureParent(path);
    await this.#files.write(this.#inTree(path), bytes);
    this.#staged.add(i);
  }

  /**
   * Streams a file into staging (a list or view of any size), hashing it as it goes. It is written
   * beside its staged place and moved there on `finish`, so the file it replaces can be read while
   * it is written (a list rewritten without some records).
   */
  async stream(path: string, options: { replace?: boolean } = {}): Promise<StagedStream> {
    this.#claim(path, options.replace);
    await this.#ensureParent(path);
    const file = this.#inTree(path);
    const part = `${file}.${process.pid}.part`;
    const handle = await fs.open(part, 'w');
    const hash = createHash('sha256');
    let size = 0;
    let open = true;
    const close = async (): Promise<void> => {
      if (!open) return;
      open = false;
      await fs.close(handle);
    };
    return {
      write: async (piece) => {
        const bytes = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
        hash.update(bytes);
        size += bytes.length;
        await fs.write(handle, bytes);
      },
      finish: async (validators) => {
        await close();
        const digest = hash.digest();
        this.#unstage(path);
        const i = this.#entries.set(path, digest, size, validators);
        if (await this.#holds(path, digest.toString('hex'), size)) {
          await fs.rm(part, { force: true });
          await fs.rm(file, { force: true });
        } else {
          await fs.rename(part, file);
          this.#staged.add(i);
        }
      },
      abort: async () => {
        await close();
        await fs.rm(part, { force: true });
      },
    };
  }

  /**
   * Keeps a file of the previous snapshot as it is (the service answered 304, or nothing it
   * depends on changed). False when the previous snapshot does not have it or the file is no
   * longer whole: then the caller fetches the body and `put`s it.
   */
  keep(path: string, validators?: Validators): boolean {
    const i = this.#previous?.indexOf(path);
    if (i === undefined || !this.#intact(path, this.#previous!.fileSize(i))) return false;
    this.#claim(path, true);
    this.#unstage(path);
    const j = this.#entries.copyFrom(this.#previous!, i, path);
    if (validators) this.#entries.setValidators(j, validators);
    return true;
  }

  /** Where a file of the new snapshot can be read from now: its staged copy, or the folder's. */
  location(path: string): string | undefined {
    if (this.#isStaged(path)) return this.#inTree(path);
    return this.#entries.has(path) || this.#previous?.has(path) ? join(this.#dir, path) : undefined;
  }

  /** A file of the new snapshot (or, failing that, the previous one) as a stream of chunks. */
  readStream(path: string): AsyncIterable<Buffer> | undefined {
    const location = this.location(path);
    return location ? (createReadStream(location, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) : undefined;
  }

  /**
   * A published file of the previous snapshot as a stream of chunks, checked against its manifest
   * entry as it is read: at the end, a DamagedFileError when the bytes are not the ones published
   * (the file is then treated as damaged, and rewritten whatever the manifest says).
   */
  async *readPublished(path: string): AsyncGenerator<Buffer> {
    const i = this.#previous?.indexOf(path);
    if (i === undefined) throw new DamagedFileError(path);
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of createReadStream(join(this.#dir, path), { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      size += chunk.length;
      yield chunk;
    }
    if (size !== this.#previous!.fileSize(i) || hash.digest('hex') !== this.#previous!.sha256(i)) {
      this.#damaged.add(path);
      throw new DamagedFileError(path);
    }
  }

  /**
   * Bytes `[at, at + length)` of a file of the new snapshot, from where it is now: one item of a
   * list kept as it was, for the record that needs it. A DamagedFileError when they are not there.
   */
  async readRange(path: string, at: number, length: number): Promise<Buffer> {
    const location = this.location(path);
    if (!location) throw new DamagedFileError(path);
    const fd = await fs.open(location, 'r');
    try {
      const bytes = Buffer.alloc(length);
      const { bytesRead } = await fs.read(fd, bytes, 0, length, at);
      if (bytesRead !== length) throw new DamagedFileError(path);
      return bytes;
    } finally {
      await fs.close(fd);
    }
  }

  /**
   * A file's bytes in the new snapshot: staged, or published and still matching the previous
   * manifest. Undefined when neither (a published file altered on disk).
   */
  async read(path: string): Promise<Buffer | undefined> {
    if (this.#isStaged(path)) return fs.readFile(this.#inTree(path));
    const table = this.#entries.has(path) ? this.#entries : this.#previous;
    const i = table?.indexOf(path);
    if (i === undefined) return undefined;
    const bytes = await fs.readFile(join(this.#dir, path)).catch(() => undefined);
    if (bytes && bytes.length === table!.fileSize(i) && sha256(bytes) === table!.sha256(i)) return bytes;
    this.#damaged.add(path);
    return undefined;
  }

  /** The staged paths and the removals a commit would make, without making them (a dry run); `order`: the entries in the manifest's order, when known. */
  pending(order: readonly number[] = this.#entries.sortedIndexes()): Pending {
    const written: string[] = [];
    for (const i of order) if (this.#staged.has(i)) written.push(this.#entries.path(i));
    const removed: string[] = [];
    for (const path of this.#previous?.paths() ?? []) if (!this.#entries.has(path)) removed.push(path);
    return { written, removed: removed.sort() };
  }

  /** Publishes the snapshot: the staged files, the removals, then run metadata, the manifest and its signature. */
  async commit(options: CommitOptions = {}): Promise<PublishResult> {
    await this.#files.close();
    const { journal, result, meta } = await this.prepare(options);
    if (!journal) {
      // The folder holds this snapshot already: only run metadata may change, each file replaced whole.
      for (const [path, content] of meta) await replaceFile(join(this.#dir, path), content);
      await this.discard();
      return result;
    }
    await commit(this.#dir, journal);
    await rollForward(this.#dir, journal);
    return { ...result, published: true };
  }

  /**
   * Stages the manifest, its signature and the run metadata, and returns the journal that would
   * publish the snapshot, without committing it; no journal (and the metadata to write as is)
   * when the folder already holds exactly this snapshot.
   */
  async prepare(options: CommitOptions = {}): Promise<{ journal: Journal | undefined; result: PublishResult; meta: Map<string, Iterable<string> | Buffer> }> {
    const order = this.#entries.sortedIndexes();
    const pending = this.pending(order);
    const { written, removed } = pending;
    const final = join(stagingDir(this.#dir), FINAL);
    await fs.mkdir(final, { recursive: true });
    const manifestFile = join(final, 'manifest.json');
    const manifestSha256 = await writeChunks(manifestFile, manifestChunks(this.#entries, order));
    const manifestSame = this.#previousSha256 === manifestSha256;
    const oldSignature = await fs.readFile(join(this.#dir, SIGNATURE_FILE)).catch(() => undefined);
    let signature: Buffer | undefined;
    let signatureStale = false;
    if (options.sign || oldSignature) {
      const manifestBytes = await fs.readFile(manifestFile);
      signature = options.sign?.(manifestBytes);
      signatureStale = !signature && oldSignature !== undefined && !(options.signs?.(oldSignature, manifestBytes) ?? false);
    }
    const signatureChanged = signature !== undefined && !oldSignature?.equals(signature);
    const meta = options.meta?.(manifestSha256, order, pending) ?? new Map<string, Iterable<string> | Buffer>();
    const result = { written, removed, unchanged: this.#entries.size - written.length, manifestSha256, published: false };
    if (written.length === 0 && removed.length === 0 && manifestSame && !signatureChanged && !signatureStale) return { journal: undefined, result, meta };

    const puts: Journal['puts'] = await this.#treePuts(written);
    const stage = async (path: string, content: Iterable<string> | Buffer): Promise<void> => {
      const staged = `${FINAL}/${path.split('/').pop()!}`;
      const digest = await writeChunks(join(stagingDir(this.#dir), staged), content);
      puts.push({ staged, path, sha256: digest });
    };
    for (const [path, content] of meta) await stage(path, content);
    if (!manifestSame) puts.push({ staged: `${FINAL}/manifest.json`, path: MANIFEST_FILE, sha256: manifestSha256 });
    if (signatureChanged) await stage(SIGNATURE_FILE, signature!);
    if (signatureStale) options.log?.(`warning: removed ${SIGNATURE_FILE}: it signed an earlier manifest (pass --sign-key to sign this one)`);
    return { journal: { format: 2, puts, removes: signatureStale ? [...removed, SIGNATURE_FILE] : removed }, result, meta: new Map() };
  }

  /** Drops everything staged; the folder keeps its snapshot. */
  async discard(): Promise<void> {
    await this.#files.close();
    await fs.rm(stagingDir(this.#dir), { recursive: true, force: true });
  }

  /**
   * Where `path` of the snapshot is staged. Joined by hand: snapshot paths are ours, relative and
   * already normal (see paths.ts), and path.join's normalising cost 0.1 s over a 36k-file sync.
   */
  #inTree(path: string): string {
    return path ? `${this.#tree}/${path}` : this.#tree;
  }

  async #ensureParent(path: string): Promise<void> {
    const parent = path.slice(0, Math.max(0, path.lastIndexOf('/')));
    if (this.#madeDirs.has(parent)) return;
    await fs.mkdir(this.#inTree(parent), { recursive: true });
    this.#madeDirs.add(parent);
  }

  /** Whether the published file at `path` is still there, with `size` bytes unless listings stand in. */
  #intact(path: string, size: number): boolean {
    if (this.#damaged.has(path)) return false;
    return this.#listed ? this.#listed.has(path) : sizeMatches(join(this.#dir, path), size);
  }

  #isStaged(path: string): boolean {
    const i = this.#entries.indexOf(path);
    return i !== undefined && this.#staged.has(i);
  }

  /** Forgets that `path` was staged, before its entry is set again (which may move it to another index). */
  #unstage(path: string): void {
    const i = this.#entries.indexOf(path);
    if (i !== undefined) this.#staged.delete(i);
  }

  /** A second file under one name in one run is a collision of two records' names, unless replacing. */
  #claim(path: string, replace = false): void {
    if (!replace && this.#entries.has(path)) throw new NameCollisionError(`two records or views would both be written to ${path}; the service sent ids that cannot be told apart as file names`);
  }

  /** Whether the folder already holds exactly these bytes at `path` (so nothing is staged). */
  async #holds(path: string, digest: string, size: number, bytes?: Buffer): Promise<boolean> {
    if (this.#fresh || this.#damaged.has(path)) return false;
    if (this.#previous) return this.#previous.matches(path, digest, size) && this.#intact(path, size);
    // No manifest (an interrupted first publish, an unpacked folder): compare with the file itself.
    const existing = await fs.readFile(join(this.#dir, path)).catch(() => undefined);
    if (existing === undefined || existing.length !== size) return false;
    return bytes ? existing.equals(bytes) : sha256(existing) === digest;
  }

  /**
   * The journal's renames for the staged tree: a folder the published snapshot does not have
   * moves as a whole (one rename for `servers/` on a first sync), other files one by one.
   */
  async #treePuts(written: string[]): Promise<Journal['puts']> {
    const exists = new Map<string, boolean>();
    const dirExists = async (rel: string): Promise<boolean> => {
      let known = exists.get(rel);
      if (known === undefined) {
        known = (await safeFolder(this.#dir, rel)) !== 'absent';
        exists.set(rel, known);
      }
      return known;
    };
    const puts: Journal['puts'] = [];
    const movedDirs = new Set<string>();
    for (const path of written) {
      const parts = path.split('/');
      let moved: string | undefined;
      for (let depth = 1; depth < parts.length && moved === undefined; depth++) {
        const rel = parts.slice(0, depth).join('/');
        if (!(await dirExists(rel))) moved = rel;
      }
      if (moved === undefined) puts.push({ staged: `${TREE}/${path}`, path, sha256: this.#entries.sha256(this.#entries.indexOf(path)!) });
      else if (!movedDirs.has(moved)) {
        movedDirs.add(moved);
        puts.push({ staged: `${TREE}/${moved}`, path: moved });
      }
    }
    return puts;
  }
}

/** Writes pieces (or bytes) to `file`; resolves to the sha256 of what was written. */
async function writeChunks(file: string, content: Iterable<string> | Buffer): Promise<string> {
  const hash = createHash('sha256');
  const handle = await fs.open(file, 'w');
  try {
    for (const piece of Buffer.isBuffer(content) ? [content] : content) {
      const bytes = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
      hash.update(bytes);
      await fs.write(handle, bytes);
    }
  } finally {
    await fs.close(handle);
  }
  return hash.digest('hex');
}

/** Replaces `file` whole (temp file, then rename), so a reader never sees half of it; unless it holds these bytes already. */
async function replaceFile(file: string, content: Iterable<string> | Buffer): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    const digest = await writeChunks(tmp, content);
    const existing = await fs.readFile(file).catch(() => undefined);
    if (existing && sha256(existing) === digest) await fs.rm(tmp, { force: true });
    else await fs.rename(tmp, file);
  } catch (error) {
    await fs.rm(tmp, { force: true });
    throw error;
  }
}
