/**
 * A snapshot as it is published in a folder, read-only: its files (from the manifest), and reads
 * of them that are checked against it. Whether a file is still there is known without a stat per
 * file when the folder was last synced in this boot (one listing per folder: power loss cannot
 * have cut its files short since, see state/boot.ts), else by its size. A read that finds bytes
 * other than the manifest's marks the file damaged: it is then never taken as intact again, so
 * the next snapshot writes it afresh whatever the manifest says.
 */
import { createHash } from 'node:crypto';
import { createReadStream, lstatSync } from 'node:fs';
import { open, opendir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { digestFiles, type FileDigest } from './file-digests.js';
import { sha256, type ManifestRead } from './manifest.js';
import type { FileTable, Validators } from './table.js';

/** A published file that no longer holds the bytes its manifest lists: fetch or build it again. */
export class DamagedFileError extends Error {
  constructor(readonly path: string) {
    super(`${path} no longer matches its manifest`);
  }
}

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

/**
 * A folder the manifest has at least this many files in is listed a batch of LISTING_BATCH entries at
 * a time; a smaller one at once. At once, the listing runs in the thread pool while the main thread
 * reads the manifest (batches cost a 20 000-server re-sync 60 ms); but the array of every entry and
 * the C library's copies of their names held about 15 MB of a 200 000-server re-sync's peak.
 */
const LARGE_FOLDER = 50_000;
const LISTING_BATCH = 1024;

/** Calls `visit` with the name of each file (not folder or link) in `path`; a folder that cannot be listed (further) holds no more. */
async function eachFile(path: string, large: boolean, visit: (name: string) => void): Promise<void> {
  try {
    if (large) {
      for await (const entry of await opendir(path, { bufferSize: LISTING_BATCH })) if (entry.isFile()) visit(entry.name);
    } else {
      for (const entry of await readdir(path, { withFileTypes: true })) if (entry.isFile()) visit(entry.name);
    }
  } catch {
    // Its files are fetched again.
  }
}

/**
 * Which entries of `table` (a manifest's, in its order) are files in `dir` (1 at their index), from
 * one listing per folder of `folders` (with how many files the manifest has in each, see
 * foldersOf) and no stat per file; a folder `unchanged` since the last sync stamped it (see
 * stamps.ts) holds every entry the manifest lists in it, unlisted. The listings are read in the
 * thread pool, so a caller can read other files meanwhile: at 200 000 servers they take a quarter
 * of a second, and as much CPU. Each listed name is looked up in the table's own index, so nothing
 * is kept of names the table does not have.
 */
export async function listedEntries(dir: string, folders: ReadonlyMap<string, number>, table: FileTable, unchanged: (folder: string) => Promise<boolean>): Promise<Uint8Array> {
  const present = new Uint8Array(table.size);
  const stamped = new Set<string>();
  // One folder at a time: the listing of the records' folders is the bulk, and holding them all at once cost 20 MB.
  for (const [folder, files] of folders) {
    if (await unchanged(folder)) {
      stamped.add(folder);
      continue;
    }
    const prefix = folder ? `${folder}/` : '';
    await eachFile(join(dir, folder), files >= LARGE_FOLDER, (name) => {
      const i = table.indexOf(prefix + name);
      if (i !== undefined) present[i] = 1;
    });
  }
  if (stamped.size > 0) {
    let i = 0;
    let folder = '';
    let inStamped = false;
    table.pathSpans()((text, start, end) => {
      const slash = text.lastIndexOf('/', end - 1);
      const cut = slash < start ? start : slash;
      // A manifest lists a folder's files together: its name is made once per run of them.
      if (i === 0 || cut - start !== folder.length || !text.startsWith(folder, start)) {
        folder = text.slice(start, cut);
        inStamped = stamped.has(folder);
      }
      if (inStamped) present[i] = 1;
      i++;
    });
  }
  return present;
}

const CHUNK = 1024 * 1024;

export class PublishedSnapshot {
  readonly dir: string;
  readonly table: FileTable;
  /** The sha256 of the manifest's bytes (what run metadata is bound to). */
  readonly manifestSha256: string;
  /** Whether the manifest's bytes are the ones a sync writes for its entries in the order they are listed. */
  readonly manifestExact: boolean;
  /** Which entries are files in the folder (1 at their index), once listed, when listings stand in for sizes (same boot); else undefined. */
  #listed: Uint8Array | undefined;
  readonly #listing: Promise<void>;
  readonly #damaged = new Set<string>();
  /** Digests being made ahead of check(), by path (see checkAhead). */
  readonly #ahead = new Map<string, Promise<FileDigest | undefined>>();
  /** Files stamped unchanged since the last sync: taken as the manifest lists them (see checkAhead). */
  readonly #vouched = new Set<string>();

  private constructor(dir: string, manifest: ManifestRead, listing: Promise<Uint8Array> | undefined) {
    this.dir = dir;
    this.table = manifest.table;
    this.manifestSha256 = manifest.sha256;
    this.manifestExact = manifest.exact;
    this.#listing = listing ? listing.then((listed) => void (this.#listed = listed)) : Promise.resolve();
    // Awaited by listed(); a failure is its to report, not an unhandled rejection meanwhile.
    this.#listing.catch(() => undefined);
  }

  /**
   * The snapshot of `dir` as `manifest` lists it; `listing`: which of its entries the folders hold
   * (see listedEntries), when it was last synced in this boot (see above). Until the listing is in,
   * a file's size says whether it is intact, as in another boot.
   */
  static of(dir: string, manifest: ManifestRead, listing?: Promise<Uint8Array>): PublishedSnapshot {
    return new PublishedSnapshot(dir, manifest, listing);
  }

  /** Resolves once the folder's listing (when there is one) stands in for sizes: before asking about many files. */
  listed(): Promise<void> {
    return this.#listing;
  }

  has(path: string): boolean {
    return this.table.has(path);
  }

  validators(path: string): Validators | undefined {
    const i = this.table.indexOf(path);
    return i === undefined ? undefined : this.table.validators(i);
  }

  /** Whether the published file at `path` is listed and still there, whole (by listing or size). */
  intact(path: string): boolean {
    const i = this.table.indexOf(path);
    return i !== undefined && this.intactAt(i, path);
  }

  /** intact() for entry `i` of the table, whose path the caller has. */
  intactAt(i: number, path: string): boolean {
    if (this.#damaged.has(path)) return false;
    return this.#listed ? this.#listed[i] === 1 : sizeMatches(join(this.dir, path), this.table.fileSize(i));
  }

  /** Whether the folder holds exactly these bytes (by digest and size) at `path`, intact. */
  holds(path: string, digest: string, size: number): boolean {
    return !this.#damaged.has(path) && this.table.matches(path, digest, size) && this.intact(path);
  }

  /** A published file as a stream of chunks, as it is (a file the caller knows to be whole). */
  readStream(path: string): AsyncIterable<Buffer> {
    return createReadStream(join(this.dir, path), { highWaterMark: CHUNK }) as AsyncIterable<Buffer>;
  }

  /**
   * A published file as a stream of chunks, checked against the manifest as it is read: at the end,
   * a DamagedFileError when the bytes are not the ones published (the file is then damaged).
   */
  async *readChecked(path: string): AsyncGenerator<Buffer> {
    const i = this.table.indexOf(path);
    if (i === undefined) throw new DamagedFileError(path);
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of createReadStream(join(this.dir, path), { highWaterMark: CHUNK }) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      size += chunk.length;
      yield chunk;
    }
    if (size !== this.table.fileSize(i) || hash.digest('hex') !== this.table.sha256(i)) {
      this.#damaged.add(path);
      throw new DamagedFileError(path);
    }
  }

  /**
   * Starts hashing these published files on a thread of their own (see file-digests.ts), for
   * check() to use; those `unchanged` since the last sync stamped them (see stamps.ts) pass check() unhashed.
   */
  async checkAhead(paths: Iterable<string>, unchanged?: (path: string) => Promise<boolean>): Promise<void> {
    const wanted: string[] = [];
    for (const path of paths) {
      if (!this.table.has(path) || this.#ahead.has(path)) continue;
      if (unchanged && (await unchanged(path))) this.#vouched.add(path);
      else wanted.push(path);
    }
    if (wanted.length === 0) return;
    const digests = digestFiles(wanted.map((path) => join(this.dir, path)));
    wanted.forEach((path, n) => this.#ahead.set(path, digests.then((all) => all[n])));
  }

  /** Whether the published file at `path` still holds the bytes the manifest lists (else it is damaged): hashed ahead, or read through now. */
  async check(path: string): Promise<boolean> {
    if (this.#vouched.has(path) && !this.#damaged.has(path)) return true;
    const ahead = await this.#ahead.get(path);
    this.#ahead.delete(path);
    const i = this.table.indexOf(path);
    if (ahead !== undefined && i !== undefined && !this.#damaged.has(path)) {
      if (ahead.size === this.table.fileSize(i) && ahead.sha256 === this.table.sha256(i)) return true;
      this.#damaged.add(path);
      return false;
    }
    try {
      for await (const chunk of this.readChecked(path)) void chunk;
      return true;
    } catch (error) {
      if (error instanceof DamagedFileError) return false;
      throw error;
    }
  }

  /** A published file's bytes when they match the manifest, else undefined (and the file is damaged). */
  async read(path: string): Promise<Buffer | undefined> {
    const i = this.table.indexOf(path);
    if (i === undefined) return undefined;
    const bytes = await readFile(join(this.dir, path)).catch(() => undefined);
    if (bytes && bytes.length === this.table.fileSize(i) && sha256(bytes) === this.table.sha256(i)) return bytes;
    this.#damaged.add(path);
    return undefined;
  }

  /**
   * `decode` of a published file's pieces as they are read, when its bytes match the manifest;
   * else undefined (and the file is damaged). A report of megabytes is then never held whole:
   * `decode` must read every piece, for the check at the end to run.
   */
  async decodeChecked<T>(path: string, decode: (pieces: AsyncIterable<Buffer>) => Promise<T>): Promise<T | undefined> {
    if (this.table.indexOf(path) === undefined) return undefined;
    try {
      return await decode(this.readChecked(path));
    } catch {
      this.#damaged.add(path);
      return undefined;
    }
  }

  /** Bytes `[at, at + length)` of a published file (one item of a list); a DamagedFileError when they are not there. */
  async readRange(path: string, at: number, length: number): Promise<Buffer> {
    const handle = await open(join(this.dir, path), 'r').catch(() => undefined);
    if (!handle) throw new DamagedFileError(path);
    try {
      const bytes = Buffer.alloc(length);
      const { bytesRead } = await handle.read(bytes, 0, length, at);
      if (bytesRead !== length) throw new DamagedFileError(path);
      return bytes;
    } finally {
      await handle.close();
    }
  }
}
