/**
 * The staging area of a publish, `.inventory-mirror/staging/`: the new snapshot's changed files
 * are written here as they arrive (nothing in the published folder changes yet), the tree under
 * `tree/`, and the files placed last (run metadata, the manifest, its signature) under `final/`.
 * Write-only for the stages that fill it; what a file turned out to be (its digest, whether the
 * folder already holds it) is theirs to record in the new snapshot's file table (next-files.ts).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import fs from 'fs-extra';
import { NEW_FILE, writeNew, type Content } from '../util/atomic-write.js';
import { FileBatcher } from './file-batch.js';
import { stagingDir } from './journal.js';

/** Where staged files of the snapshot tree go, relative to the staging folder. */
export const TREE = 'tree';
/** The manifest, its signature and the run metadata, staged apart from the tree: they are placed last. */
export const FINAL = 'final';

/** A file being written into staging piece by piece. */
export interface StagedStream {
  write(piece: string | Buffer): Promise<void>;
  /** Ends the file; its digest and size. */
  finish(): Promise<{ sha256: Buffer; size: number }>;
  /** Drops what was written (a retry starts over). */
  abort(): Promise<void>;
}

export class Staging {
  readonly #dir: string;
  readonly #tree: string;
  readonly #files = new FileBatcher();
  readonly #madeDirs = new Set<string>();

  private constructor(dir: string) {
    this.#dir = dir;
    this.#tree = `${stagingDir(dir)}/${TREE}`;
  }

  /** An empty staging area in `dir` (locked by the caller, recovered); anything staged before is dropped. */
  static async open(dir: string): Promise<Staging> {
    await fs.rm(stagingDir(dir), { recursive: true, force: true });
    await fs.mkdir(`${stagingDir(dir)}/${TREE}`, { recursive: true });
    await fs.mkdir(`${stagingDir(dir)}/${FINAL}`);
    return new Staging(dir);
  }

  /**
   * Where `path` of the snapshot is staged. Joined by hand: snapshot paths are ours, relative and
   * already normal (see snapshot/paths.ts), and path.join's normalising cost 0.1 s over a 36k-file sync.
   */
  location(path: string): string {
    return path ? `${this.#tree}/${path}` : this.#tree;
  }

  /** Stages `bytes` as `path` (not staged yet in this run: see `remove`). */
  async put(path: string, bytes: Buffer): Promise<void> {
    const making = this.#ensureParent(path);
    if (making) await making;
    await this.#files.write(this.location(path), bytes);
  }

  /**
   * Streams a file into staging (a list or view of any size), hashing it as it goes. It is written
   * beside its staged place and moved there by `finish`, so a file staged earlier under the same
   * path can be read while it is written (a list rewritten without some records).
   */
  async stream(path: string): Promise<StagedStream> {
    await this.#ensureParent(path);
    const file = this.location(path);
    const part = `${file}.${process.pid}.part`;
    await rm(part, { force: true });
    const handle = await open(part, NEW_FILE);
    const hash = createHash('sha256');
    let size = 0;
    let isOpen = true;
    const close = async (): Promise<void> => {
      if (!isOpen) return;
      isOpen = false;
      await handle.close();
    };
    return {
      write: async (piece) => {
        const bytes = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
        hash.update(bytes);
        size += bytes.length;
        await handle.write(bytes);
      },
      finish: async () => {
        await close();
        await rename(part, file);
        return { sha256: hash.digest(), size };
      },
      abort: async () => {
        await close();
        await rm(part, { force: true });
      },
    };
  }

  /** Drops the staged copy of `path` (the folder holds these bytes already, or it is staged anew). */
  async remove(path: string): Promise<void> {
    await rm(this.location(path), { force: true });
  }

  /** A staged file as a stream of chunks. */
  readStream(path: string): AsyncIterable<Buffer> {
    return createReadStream(this.location(path), { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>;
  }

  /** A staged file's bytes. */
  read(path: string): Promise<Buffer> {
    return fs.readFile(this.location(path));
  }

  /** Stages one of the files placed last (`name` inside `final/`); resolves to its sha256 (hex). */
  async putFinal(name: string, content: Content): Promise<string> {
    return writeNew(`${stagingDir(this.#dir)}/${FINAL}/${name}`, content);
  }

  /** A file staged with putFinal. */
  readFinal(name: string): Promise<Buffer> {
    return fs.readFile(`${stagingDir(this.#dir)}/${FINAL}/${name}`);
  }

  /** Waits for every staged write to land. */
  async close(): Promise<void> {
    await this.#files.close();
  }

  /** Drops everything staged; the folder keeps its snapshot. */
  async discard(): Promise<void> {
    await this.#files.close();
    await fs.rm(stagingDir(this.#dir), { recursive: true, force: true });
  }

  #ensureParent(path: string): Promise<void> | undefined {
    const parent = path.slice(0, Math.max(0, path.lastIndexOf('/')));
    // Made already (nearly every put of a first sync, one per record): no promise to wait for.
    if (this.#madeDirs.has(parent)) return undefined;
    return fs.mkdir(this.location(parent), { recursive: true }).then(() => void this.#madeDirs.add(parent));
  }
}
