/**
 * Reads a manifest in the exact form manifestChunks writes, line by line with indexOf instead of
 * a JSON scan and a parse per entry: at 200 000 servers (360 000 entries, 47 MB) that is what lets
 * `serve` be ready in a few seconds. Any other form, even valid JSON, is handed to the general
 * reader (parseManifest), so the answer is always the manifest's content. The entries go to a
 * sink: a FileTable, or a reader's own structure (serve keeps a smaller, read-only one).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { closingQuote, stringBetween } from '../json/scan.js';
import { Carry } from '../util/carry.js';
import { parseManifest, type ManifestRead } from './manifest.js';
import { isSnapshotPath, MANIFEST_FILE } from './paths.js';
import { FileTable } from './table.js';

const HEAD = Buffer.from('{\n  "format": 1,\n  "generator": "inventory-mirror",\n  "files": {');
const ENTRY_OPEN = Buffer.from('\n    "');
const SHA_OPEN = Buffer.from('": {\n      "sha256": "');
const SIZE_OPEN = Buffer.from('",\n      "size": ');
const ENTRY_CLOSE = Buffer.from('\n    }');
const EMPTY_TAIL = Buffer.from('}\n}\n');
const TAIL = Buffer.from('\n  }\n}\n');
/** The digest being read, decoded (a sink copies it). */
const SHA = Buffer.alloc(32);
/** Not the exact form: the general reader takes over. */
class NotCanonical extends Error {}

/** The value of each lowercase hex digit by its byte; -1 for any other byte (as the general reader, uppercase is refused). */
const HEX = new Int8Array(256).fill(-1);
for (let b = 0; b < 16; b++) HEX[b.toString(16).charCodeAt(0)] = b;

/** Decodes the 64 hex digits at `buf[at]` into `out`; false when they are not 64 lowercase hex digits. */
function decodeHex(buf: Buffer, at: number, out: Buffer): boolean {
  for (let k = 0; k < 32; k++) {
    const high = HEX[buf[at + 2 * k]!]!;
    const low = HEX[buf[at + 2 * k + 1]!]!;
    if ((high | low) < 0) return false;
    out[k] = (high << 4) | low;
  }
  return true;
}

/** The chunk ended inside an entry: wait for the next one. */
const MORE = Symbol('more');

/** Where a manifest's entries go, in the manifest's order. */
interface ManifestSink<T> {
  /** Adds an entry (`sha256`: 32 bytes, valid during the call only); false when `path` is already there. */
  add(path: string, sha256: Buffer, size: number): boolean;
  /** What the entries made; undefined when a path came twice after all (a sink may check only at the end). */
  done(): T | undefined;
}

/** Collects the entries in a FileTable. */
export function fileTableSink(expected?: number): ManifestSink<FileTable> {
  const table = new FileTable(expected);
  let greatest = '';
  return {
    add: (path, sha256, size) => {
      // A path greater than every one before (a sync writes them in order) cannot be in already.
      if (path > greatest) {
        greatest = path;
        table.add(path, sha256, size);
        return true;
      }
      const before = table.size;
      return table.set(path, sha256, size) === before;
    },
    done: () => table,
  };
}

/** Parses manifest bytes pushed in order into a sink. Throws NotCanonical on any other form. */
class CanonicalReader<T> {
  constructor(readonly sink: ManifestSink<T>) {}
  readonly #carry = new Carry();
  #head = true;
  #done = false;
  #first = true;
  /** A path came escaped (`\u0073`): the entries are exact, the bytes not the ones a sync writes. */
  #escaped = false;

  /** Whether the bytes were exactly manifestChunks' for the entries in the order read. */
  get exact(): boolean {
    return !this.#escaped;
  }

  push(chunk: Buffer): void {
    if (this.#done) {
      if (chunk.length > 0) throw new NotCanonical();
      return;
    }
    const buf = this.#carry.join(chunk);
    /** `prefix` is at `at`; MORE when the bytes end first. */
    const expect = (at: number, prefix: Buffer): void => {
      const n = Math.min(prefix.length, buf.length - at);
      for (let k = 0; k < n; k++) if (buf[at + k] !== prefix[k]) throw new NotCanonical();
      if (n < prefix.length) throw MORE;
    };
    let i = 0;
    try {
      if (this.#head) {
        expect(0, HEAD);
        i = HEAD.length;
        this.#head = false;
      }
      while (i < buf.length) {
        // Between entries: the end of the object, or `,` (not before the first) and the next entry.
        const end = this.#first ? EMPTY_TAIL : TAIL;
        if (buf[i] === end[0]) {
          expect(i, end);
          if (buf.length !== i + end.length) throw new NotCanonical();
          this.#done = true;
          i = buf.length;
          break;
        }
        let at = i;
        if (!this.#first) {
          if (buf[at] !== 0x2c) throw new NotCanonical();
          at += 1;
        }
        expect(at, ENTRY_OPEN);
        const pathAt = at + ENTRY_OPEN.length - 1;
        const pathEnd = closingQuote(buf, pathAt + 1, false);
        if (pathEnd < 0) {
          if (buf.length - i > 1 << 20) throw new NotCanonical();
          throw MORE;
        }
        const path = stringBetween(buf, pathAt, pathEnd);
        // Not a snapshot's path: the general reader refuses it by name.
        if (!isSnapshotPath(path)) throw new NotCanonical();
        // A snapshot's path needs no escape in JSON: its bytes are its characters, unless escaped.
        if (pathEnd - pathAt - 1 !== path.length) this.#escaped = true;
        at = pathEnd;
        expect(at, SHA_OPEN);
        at += SHA_OPEN.length;
        if (buf.length - at < 64) throw MORE;
        const sha = SHA;
        if (!decodeHex(buf, at, sha)) throw new NotCanonical();
        at += 64;
        expect(at, SIZE_OPEN);
        at += SIZE_OPEN.length;
        const digits = at;
        // The digits' value as they are read, not a string per entry: 360 000 of them at 200 000 servers.
        let size = 0;
        for (let digit = buf[at]! - 0x30; at < buf.length && digit >= 0 && digit <= 9; digit = buf[++at]! - 0x30) size = size * 10 + digit;
        if (at === buf.length) throw MORE;
        if (at === digits || (buf[digits] === 0x30 && at - digits > 1) || at - digits > 15) throw new NotCanonical();
        expect(at, ENTRY_CLOSE);
        // Listed twice: the general reader names it.
        if (!this.sink.add(path, sha, size)) throw new NotCanonical();
        i = at + ENTRY_CLOSE.length;
        this.#first = false;
      }
    } catch (signal) {
      if (signal !== MORE) throw signal;
    }
    this.#carry.keep(buf, i);
  }

  end(): T {
    const entries = this.#done ? this.sink.done() : undefined;
    if (entries === undefined) throw new NotCanonical();
    return entries;
  }
}

/**
 * Reads a manifest from `chunks` (the file in order) into a new sink from `sink`; undefined when
 * it is not a manifest of ours. The canonical form is read fast (and not hashed when the sha256 of
 * its bytes is `known`); anything else is read again whole by parseManifest, so `again` must give
 * the bytes once more.
 */
export async function readManifestInto<T>(chunks: AsyncIterable<Buffer>, again: () => Promise<Buffer>, sink: () => ManifestSink<T>, known?: string): Promise<{ entries: T; sha256: string; exact: boolean } | undefined> {
  const reader = new CanonicalReader(sink());
  const hash = known === undefined ? createHash('sha256') : undefined;
  try {
    for await (const chunk of chunks) {
      hash?.update(chunk);
      reader.push(chunk);
    }
    return { entries: reader.end(), sha256: hash ? hash.digest('hex') : known!, exact: reader.exact };
  } catch (error) {
    if (!(error instanceof NotCanonical)) throw error;
    const read = parseManifest(await again());
    if (!read) return undefined;
    const other = sink();
    for (let i = 0; i < read.table.size; i++) other.add(read.table.path(i), Buffer.from(read.table.sha256(i), 'hex'), read.table.fileSize(i));
    const entries = other.done();
    return entries === undefined ? undefined : { entries, sha256: read.sha256, exact: false };
  }
}

/** readManifestInto a FileTable. */
export async function readManifestChunks(chunks: AsyncIterable<Buffer>, again: () => Promise<Buffer>, expected?: number, known?: string): Promise<ManifestRead | undefined> {
  const read = await readManifestInto(chunks, again, () => fileTableSink(expected), known);
  return read && { table: read.entries, sha256: read.sha256, exact: read.exact };
}

/**
 * Reads `dir`'s manifest as it streams from disk; undefined when there is none or it is not ours.
 * `known`: the sha256 of its bytes, when the caller knows them unchanged since they were hashed
 * (see stamps.ts); a manifest in another form than a sync writes is hashed all the same.
 */
export async function readManifest(dir: string, known?: string): Promise<ManifestRead | undefined> {
  const file = join(dir, MANIFEST_FILE);
  try {
    // About 120 bytes an entry: the table is made that size at once.
    const expected = Math.ceil((await stat(file)).size / 120);
    return await readManifestChunks(createReadStream(file, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>, () => readFile(file), expected, known);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}
