/**
 * The new snapshot while a run builds it: its file table (path → sha256, size, validators) and,
 * for each file, whether its bytes are staged or already in the folder. Only what changed is
 * staged: a file the folder already holds with the same bytes (the previous manifest says so and
 * it is still whole) is recorded, not written. The previous snapshot is only read here (see
 * snapshot/published.ts); publish.ts turns the result into one journal.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NameCollisionError, ValidationError } from '../errors.js';
import { withoutItems } from '../json/without.js';
import { sha256 } from '../snapshot/manifest.js';
import { isOutsideSnapshot, WORK_DIR } from '../snapshot/paths.js';
import type { PublishedSnapshot } from '../snapshot/published.js';
import { FileTable, type Validators } from '../snapshot/table.js';
import { BitSet } from '../util/bit-set.js';
import { holdsSecret, longestSecret } from '../util/secrets.js';
import { Staging, type StagedStream } from './staging.js';

/** A file streamed into the new snapshot: written piece by piece, then finished with its validators. */
export interface NextStream {
  write(piece: string | Buffer): Promise<void>;
  finish(validators?: Validators): Promise<void>;
  abort(): Promise<void>;
}

/**
 * A list or view of the new snapshot whose published form is its bytes so far (the body the pull
 * staged, or the previous snapshot's copy it kept) without the items of some records: a value
 * decided by the assembly (sync/assemble.ts finalLists), written by NextSnapshot.writeCut.
 */
export interface ListCut {
  /** The snapshot file. */
  file: string;
  /** Its envelope key (the resource). */
  key: string;
  /** The ids of the items left out. */
  without: ReadonlySet<string>;
}

interface PutOptions {
  validators?: Validators | undefined;
  /** A file put earlier in this run may be put again (a record fetched again, a file masked by redact.values); else a second file under one name is an error. */
  replace?: boolean;
  /** The bytes' digest (hex), when the caller has it already (made on the record thread). */
  sha256?: string;
}

export class NextSnapshot {
  readonly dir: string;
  /** The snapshot this one replaces (undefined: the folder has none). */
  readonly previous: PublishedSnapshot | undefined;
  readonly staging: Staging;
  readonly #entries: FileTable;
  /** The entries of #entries staged in this run, by index. */
  readonly #staged = new BitSet();
  /** The folder held nothing before (no manifest, no files): nothing to compare with. */
  readonly #fresh: boolean;

  private constructor(dir: string, previous: PublishedSnapshot | undefined, staging: Staging, fresh: boolean) {
    this.dir = dir;
    this.previous = previous;
    this.staging = staging;
    // Derived from the previous table: what stays as it was costs a bit, not a copy.
    this.#entries = previous ? FileTable.over(previous.table) : new FileTable();
    this.#fresh = fresh;
  }

  /** A new snapshot of `dir` (locked by the caller, recovered) replacing `previous`. */
  static async open(dir: string, previous: PublishedSnapshot | undefined): Promise<NextSnapshot> {
    // A folder holding no file of a snapshot has nothing to compare new files with.
    const fresh = !previous && (await readdir(dir)).every((name) => name === WORK_DIR || isOutsideSnapshot(name));
    return new NextSnapshot(dir, previous, await Staging.open(dir), fresh);
  }

  /** The files of the new snapshot so far, with hash, size and validators. */
  get entries(): FileTable {
    return this.#entries;
  }

  /**
   * About how many files the new snapshot will hold, once the lists tell. A first sync makes room
   * for them at once; a re-sync's table holds only what changed, and needs none.
   */
  expect(files: number): void {
    if (!this.previous) this.#entries.reserve(files);
  }

  /**
   * Adds a file, staging its bytes unless the folder holds them already. Bytes in pieces (a report
   * of megabytes) are never joined: iterated once to hash them, and once more to stage them if they
   * changed, so an iterable that makes them as it goes never holds them all.
   */
  async put(path: string, content: Buffer | Iterable<Buffer>, options: PutOptions = {}): Promise<void> {
    const whole = Buffer.isBuffer(content) ? content : undefined;
    // A Buffer is an iterable too, of numbers.
    const pieces = (): Iterable<Buffer> => (whole ? [whole] : (content as Iterable<Buffer>));
    const secrets = new SecretWatch(path);
    // A record comes with its digest, made on the record thread: no hash object for it.
    const hash = options.sha256 === undefined ? createHash('sha256') : undefined;
    let size = 0;
    for (const piece of pieces()) {
      secrets.check(piece);
      hash?.update(piece);
      size += piece.length;
    }
    const restaged = this.#claim(path, options.replace);
    const digest = options.sha256 ?? hash!.digest('hex');
    const i = this.#set(path, digest, size, options.validators);
    if (restaged) await this.staging.remove(path);
    // A first sync's folder holds nothing: no async call per record to say so.
    if (!this.#fresh && (await this.#holds(path, digest, size, whole))) return;
    if (whole) await this.staging.put(path, whole);
    else {
      const staged = await this.staging.stream(path);
      try {
        for (const piece of pieces()) await staged.write(piece);
        await staged.finish();
      } catch (error) {
        await staged.abort();
        throw error;
      }
    }
    this.#staged.add(i);
  }

  /** Streams a file (a list or view of any size) into the snapshot; see Staging.stream. */
  async stream(path: string, options: { replace?: boolean } = {}): Promise<NextStream> {
    // A staged copy put earlier is replaced by the rename that finishes this one.
    this.#claim(path, options.replace);
    const staged: StagedStream = await this.staging.stream(path);
    const secrets = new SecretWatch(path);
    return {
      write: (piece) => {
        secrets.check(piece);
        return staged.write(piece);
      },
      finish: async (validators) => {
        const { sha256: digest, size } = await staged.finish();
        const hex = digest.toString('hex');
        const i = this.#set(path, digest, size, validators);
        if (await this.#holds(path, hex, size)) await this.staging.remove(path);
        else this.#staged.add(i);
      },
      abort: () => staged.abort(),
    };
  }

  /**
   * Writes a list or view in its published form (see ListCut), streamed: the pull's copy is read
   * once and the final one written once, both a piece at a time. It is not the service's body any
   * more, so it has no validators: the next sync asks for it whole. Nothing to do when the new
   * snapshot has no such file.
   */
  async writeCut(cut: ListCut): Promise<void> {
    const source = this.readStream(cut.file);
    if (!source) return;
    const staged = await this.stream(cut.file, { replace: true });
    try {
      for await (const piece of withoutItems(source, cut.key, cut.without, cut.file)) await staged.write(piece);
    } catch (error) {
      await staged.abort();
      throw error;
    }
    await staged.finish();
  }

  /**
   * Keeps a file of the previous snapshot as it is (the service answered 304, or nothing it
   * depends on changed). False when the previous snapshot does not have it whole: then the caller
   * fetches or builds the bytes and puts them. `seen`: the run that confirmed it (an incremental
   * sync's refresh); its other validators stay as they were.
   */
  keep(path: string, seen?: number): boolean {
    const previous = this.previous;
    const i = previous?.table.indexOf(path);
    if (i === undefined || !previous!.intact(path)) return false;
    // A copy staged earlier in this run (none in practice) is left out of the publish by unstaging it.
    this.#claim(path, true);
    this.#unstage(path);
    const j = this.#entries.copyFrom(previous!.table, i, path);
    if (seen !== undefined) this.#entries.confirm(j, seen);
    return true;
  }

  /**
   * keep() for entry `i` of the previous snapshot's table, validators included: a sync keeps most
   * records (unread, or on a 304), and finding each by its path again, several times over, was
   * most of that work at 200 000 servers.
   */
  keepEntry(i: number, seen?: number): boolean {
    const previous = this.previous!;
    const path = previous.table.path(i);
    if (!previous.intactAt(i, path)) return false;
    if (!this.#entries.holdBase(i, path)) return this.keep(path, seen);
    if (seen !== undefined) this.#entries.confirm(i, seen);
    return true;
  }

  /** Whether `path` is staged in this run. */
  isStaged(path: string): boolean {
    const i = this.#entries.indexOf(path);
    return i !== undefined && this.#staged.has(i);
  }

  /** Whether entry `i` of the table is staged. */
  stagedAt(i: number): boolean {
    return this.#staged.has(i);
  }

  /** A file of the new snapshot as a stream of chunks: its staged copy, or the folder's; undefined when it has none. */
  readStream(path: string): AsyncIterable<Buffer> | undefined {
    if (this.isStaged(path)) return this.staging.readStream(path);
    if (!this.#entries.has(path)) return undefined;
    // Kept or held: the previous snapshot's file, whole when it was taken in (see keep and #holds).
    return this.previous?.has(path) ? this.previous.readStream(path) : undefined;
  }

  /** A file's bytes in the new snapshot: staged, or published and still matching the manifest; undefined when neither. */
  async read(path: string): Promise<Buffer | undefined> {
    if (this.isStaged(path)) return this.staging.read(path);
    if (!this.#entries.has(path)) return undefined;
    return this.previous?.read(path);
  }

  /** Sets an entry, first forgetting that it was staged (setting it may move it to another index). */
  #set(path: string, digest: string | Buffer, size: number, validators: Validators | undefined): number {
    this.#unstage(path);
    return this.#entries.set(path, digest, size, validators);
  }

  #unstage(path: string): void {
    const i = this.#entries.indexOf(path);
    if (i !== undefined) this.#staged.delete(i);
  }

  /**
   * A second file under one name in one run is a collision of two records' names, unless
   * replacing; returns whether a staged copy of an earlier put is there to be replaced.
   */
  #claim(path: string, replace = false): boolean {
    if (!this.#entries.has(path)) return false;
    if (!replace) throw new NameCollisionError(`two records or views would both be written to ${path}; the service sent ids that cannot be told apart as file names`);
    return this.isStaged(path);
  }

  /** Whether the folder already holds exactly these bytes at `path` (so nothing is staged). */
  async #holds(path: string, digest: string, size: number, bytes?: Buffer): Promise<boolean> {
    if (this.#fresh) return false;
    if (this.previous) return this.previous.holds(path, digest, size);
    // No manifest (an interrupted first publish, an unpacked folder): compare with the file itself.
    const existing = await readFile(join(this.dir, path)).catch(() => undefined);
    if (existing === undefined || existing.length !== size) return false;
    return bytes ? existing.equals(bytes) : sha256(existing) === digest;
  }
}

const NOTHING = Buffer.alloc(0);

/**
 * A service that echoes the API token into its data would have it published, in git and in
 * archives: the sync refuses the snapshot instead, naming the file (the token never appears).
 * Checks a file piece by piece, the seams between pieces included.
 */
class SecretWatch {
  /** The end of the previous piece: a secret may straddle two. */
  #tail: Buffer = NOTHING;
  readonly #longest = longestSecret();

  constructor(readonly path: string) {}

  check(piece: string | Buffer): void {
    if (this.#longest === 0) return;
    const bytes = typeof piece === 'string' ? Buffer.from(piece) : piece;
    this.#refuse(bytes);
    const keep = this.#longest - 1;
    if (keep === 0) return;
    // Only a seam needs the previous piece's end; the first piece (a whole file) has none.
    if (this.#tail.length > 0) this.#refuse(Buffer.concat([this.#tail, bytes.subarray(0, keep)]));
    this.#tail = bytes.length >= keep ? bytes.subarray(bytes.length - keep) : Buffer.concat([this.#tail, bytes]).subarray(-keep);
  }

  #refuse(bytes: Buffer): void {
    if (holdsSecret(bytes)) throw new ValidationError(`${this.path}: the service sent the API token inside its data; nothing was published (ask the service's owners why it echoes the token)`);
  }
}

