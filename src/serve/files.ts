/**
 * The snapshot's files on disk, read for an answer: opened without following a symbolic link
 * (O_NOFOLLOW; the folders on the way were checked when the snapshot was loaded) and checked
 * against the manifest (size, then sha256) before a byte is sent. A file that does not match is
 * "stale": a publish is under way or just done, and the caller waits for the new manifest.
 */
import { createHash, hash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, read, readSync } from 'node:fs';
import { promisify } from 'node:util';

const readAsync = promisify(read);

/** Read-only, never through a link, and never blocking on a FIFO someone put in the folder. */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
/** Files up to this size are read whole and hashed on each read; larger ones keep a verdict. */
export const SMALL_FILE_BYTES = 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;
const VERDICTS_MAX = 4096;

/** What an answer reads in place of a file that does not match the snapshot. */
export const STALE = 'stale' as const;
export type Stale = typeof STALE;

/** Errors that mean "the path does not hold the snapshot's file" rather than a fault of the machine. */
const NOT_THE_FILE = new Set(['ENOENT', 'ENOTDIR', 'EISDIR', 'ENXIO']);

/** Read errors of something that is not a regular file. */
const NOT_READABLE = new Set(['EISDIR', 'EAGAIN', 'ESPIPE', 'EINVAL']);

/** Opens `path` for reading without following a link: the descriptor, or why there is none to read. */
export function openNoFollow(path: string): number | 'missing' | 'link' {
  try {
    return openSync(path, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    // O_NOFOLLOW on a link fails with ELOOP (EMLINK on some BSDs).
    if (code === 'ELOOP' || code === 'EMLINK') return 'link';
    if (NOT_THE_FILE.has(code)) return 'missing';
    throw error;
  }
}

/** Fills `target[offset, offset + length)` from the file at `position`; false when the file is shorter. */
export function readFully(fd: number, target: Buffer, offset: number, length: number, position: number): boolean {
  let done = 0;
  while (done < length) {
    const n = readSync(fd, target, offset + done, length - done, position + done);
    if (n === 0) return false;
    done += n;
  }
  return true;
}

/** Reads a whole file in chunks, each given to `onChunk` (valid only during the call); its sha256 and size. */
export async function scanFile(fd: number, onChunk?: (chunk: Buffer) => void): Promise<{ sha256: string; size: number }> {
  const digest = createHash('sha256');
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let position = 0;
  for (;;) {
    const { bytesRead } = await readAsync(fd, buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    digest.update(chunk);
    onChunk?.(chunk);
    position += bytesRead;
  }
  return { sha256: digest.digest('hex'), size: position };
}

/** The bytes of `fd` from `start` to `end`, in chunks of at most 1 MiB. */
export async function* fileChunks(fd: number, start: number, end: number): AsyncGenerator<Buffer> {
  for (let position = start; position < end; ) {
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, end - position));
    const { bytesRead } = await readAsync(fd, buffer, 0, buffer.length, position);
    if (bytesRead === 0) throw new Error('the file became shorter while it was sent');
    position += bytesRead;
    yield bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead);
  }
}

/**
 * A file of a snapshot whose bytes were checked, held open: they stay readable even after a
 * publish renamed a new file over its path, for as long as a snapshot (or an answer) uses them.
 */
export class HeldFile {
  #refs = 1;
  #mtimeMs: number;
  #checking: Promise<boolean> | undefined;

  constructor(
    readonly fd: number,
    readonly size: number,
    readonly sha256: string,
    mtimeMs: number,
  ) {
    this.#mtimeMs = mtimeMs;
  }

  retain(): this {
    this.#refs++;
    return this;
  }

  release(): void {
    if (--this.#refs === 0) closeSync(this.fd);
  }

  /**
   * Whether the bytes are still the ones checked. A publish never writes into a file in place,
   * but something else might: its mtime then moved, and the file is hashed again.
   */
  async intact(): Promise<boolean> {
    const stat = fstatSync(this.fd);
    if (stat.size === this.size && stat.mtimeMs === this.#mtimeMs) return true;
    this.#checking ??= scanFile(this.fd)
      .then(({ sha256, size }) => {
        const same = sha256 === this.sha256 && size === this.size;
        if (same) this.#mtimeMs = stat.mtimeMs;
        return same;
      })
      .finally(() => {
        this.#checking = undefined;
      });
    return this.#checking;
  }
}

/** A published file read for an answer: whole, or held open to be streamed (close it when done). */
type FileRead = { bytes: Buffer } | { fd: number; size: number };

/**
 * sha256 of large files by (path, inode, mtime, size): a 150 MB file is hashed once, not per
 * request. A publish renames a new file into place (a new inode), and any write changes the mtime.
 */
export class Verdicts {
  readonly #known = new Map<string, string>();

  get(key: string): string | undefined {
    return this.#known.get(key);
  }

  set(key: string, sha256: string): void {
    this.#known.delete(key);
    this.#known.set(key, sha256);
    if (this.#known.size > VERDICTS_MAX) this.#known.delete(this.#known.keys().next().value!);
  }
}

/** Reads the file at `path` if it holds exactly `expected`; STALE when it does not (or is missing, or a link). */
export async function readPublished(path: string, expected: { sha256: string; size: number }, verdicts: Verdicts, smallBytes = SMALL_FILE_BYTES): Promise<FileRead | Stale> {
  // A link (where the snapshot has a file) is never read through: it is no match either.
  const fd = openNoFollow(path);
  if (typeof fd !== 'number') return STALE;
  let handedOver = false;
  try {
    if (expected.size <= smallBytes) {
      // No fstat: a file of any other size reads short or long, a folder or FIFO fails or reads nothing.
      const bytes = Buffer.allocUnsafe(expected.size + 1);
      let read = 0;
      try {
        for (let n = -1; n !== 0 && read < bytes.length; read += n) n = readSync(fd, bytes, read, bytes.length - read, read);
      } catch (error) {
        // A folder, a FIFO or a device where the snapshot has a file.
        if (NOT_READABLE.has((error as NodeJS.ErrnoException).code ?? '')) return STALE;
        throw error;
      }
      const body = bytes.subarray(0, expected.size);
      if (read !== expected.size || hash('sha256', body, 'hex') !== expected.sha256) return STALE;
      return { bytes: body };
    }
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size !== expected.size) return STALE;
    const key = `${path}\0${stat.ino}\0${stat.mtimeMs}\0${stat.size}`;
    let sha256 = verdicts.get(key);
    if (sha256 === undefined) {
      const scanned = await scanFile(fd);
      if (scanned.size !== stat.size) return STALE;
      sha256 = scanned.sha256;
      verdicts.set(key, sha256);
    }
    if (sha256 !== expected.sha256) return STALE;
    handedOver = true;
    return { fd, size: stat.size };
  } finally {
    if (!handedOver) closeSync(fd);
  }
}
