/**
 * `_meta/http-cache.json`: the validators (ETag, Last-Modified) of the responses behind each file
 * of the snapshot, so the next sync can ask "changed since?" and keep the published file on 304;
 * for a record also the digest of the list item it was checked against. Run metadata, outside the
 * manifest and git-ignored, but published in the same journal as the manifest and bound to it by
 * the manifest's sha256: a cache that does not belong to the manifest on disk is never used (a
 * 304 would otherwise keep bytes the service never sent for that ETag).
 *
 * Validators are in the manifest's order, one row per file, as columns (see FileTable's
 * ValidatorColumns): raw bytes in base64 where the table keeps raw bytes, so neither writing nor
 * reading them costs an object per file (at 200 000 servers, 360 000 entries as arrays cost a
 * no-change incremental sync about 1.3 s of CPU). No paths: about 60 bytes per record, with what
 * an incremental sync needs (the run that last fetched or confirmed it, and the records its body
 * refers to); 93 with the list summaries. The head names the run (counted by incremental syncs), the last run every
 * record was verified in, and the service the snapshot came from. After the columns, a member
 * `list <resource>` for each list whose summary the sync keeps (see sync/list-cache.ts), so a
 * list kept on a 304 need not be read again; each is parsed only by the sync that uses it. And the
 * stamps of the folders and lists the sync checked and left as they were (see stamps.ts).
 */
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { OutputError } from '../errors.js';
import { parseArrayInSlices } from '../json/array-slices.js';
import { EnvelopeScanner, piecesText, ScanError } from '../json/scan.js';
import { HTTP_CACHE_FILE } from './paths.js';
import { COLUMN_WIDTHS, type FileTable, type ValidatorColumns } from './table.js';

/** Bumped whenever what the cache holds changes: a cache of another format is not used (the sync then fetches everything once). */
const FORMAT = 5;
/** Bytes of a column encoded at a time: a multiple of 3, so the base64 pieces join without padding. */
const SLICE_BYTES = 48 * 1024;
const BYTE_COLUMNS = Object.keys(COLUMN_WIDTHS) as (keyof typeof COLUMN_WIDTHS)[];
/** References encoded at a time. */
const REFS_SLICE = 8192;

/** Which run of the folder a cache belongs to, and the service it was synced from. */
export interface CacheHead {
  /** 1 for a folder's first sync, one more for each incremental sync after (a full sync confirms every record in the run it follows). */
  run: number;
  /** The service's base URL as displayed (no credentials). */
  service: string;
  /** The last run that fetched or confirmed every record (a full sync): no record was seen before it. */
  verified: number;
}

/** A list summary as the cache holds it (JSON text, checked by its user), and where in the file. */
export class CachedList {
  constructor(
    readonly pieces: readonly Buffer[],
    readonly file: string,
    readonly at: number,
  ) {}

  /**
   * The same bytes, read again from the file each time they are iterated, for a later cache that
   * keeps the summary as it is: held from the list's 304 to the end of the run, they were 13 MB at
   * 200 000 servers. Bytes that changed meanwhile are an OutputError, raised before the last piece
   * is handed over (the file written from them is then not published).
   */
  again(): Iterable<Buffer> {
    const hash = createHash('sha256');
    for (const piece of this.pieces) hash.update(piece);
    const digest = hash.digest('hex');
    const length = this.pieces.reduce((n, piece) => n + piece.length, 0);
    const { file, at } = this;
    return {
      *[Symbol.iterator](): Generator<Buffer> {
        const fd = openSync(file, 'r');
        try {
          const check = createHash('sha256');
          let held: Buffer | undefined;
          for (let done = 0; done < length; ) {
            const piece = Buffer.allocUnsafe(Math.min(AGAIN_BYTES, length - done));
            const read = readSync(fd, piece, 0, piece.length, at + done);
            if (read === 0) break;
            done += read;
            check.update(piece.subarray(0, read));
            if (held) yield held;
            held = piece.subarray(0, read);
          }
          if (check.digest('hex') !== digest) throw new OutputError(`${file} changed while the sync held the folder; run the sync again`);
          if (held) yield held;
        } finally {
          closeSync(fd);
        }
      },
    };
  }
}

/** Bytes of a kept list summary read at a time (see CachedList.again). */
const AGAIN_BYTES = 1024 * 1024;

/** What a cache holds besides the validators: its head, and the list summaries by resource. */
export interface CacheRead extends CacheHead {
  lists: Map<string, CachedList>;
  /** Stamps by path (see stamps.ts); none when the member is missing or malformed. */
  stamps: Map<string, string>;
}

/** A cache as read, before it is bound to a manifest's table (bindHttpCache). */
export interface CacheFile extends CacheRead {
  /** The sha256 of the manifest it belongs to. */
  manifest: string;
  count: number;
  columns: ValidatorColumns;
}

const LIST_MEMBER = 'list ';

/**
 * The cache's text for `table` (the new snapshot's files, in `order`), bound to the manifest with
 * `manifestSha256`; `lists`: list summaries as JSON text in pieces, by resource; `stamps`: by path.
 */
export function* httpCacheChunks(table: FileTable, order: readonly number[], manifestSha256: string, head: CacheHead, lists: ReadonlyMap<string, Iterable<string | Buffer>> = new Map(), stamps: ReadonlyMap<string, string> = new Map()): Generator<string | Buffer> {
  const columns = table.validatorColumns(order);
  yield `{"format":${FORMAT},"manifest":"${manifestSha256}","run":${head.run},"verified":${head.verified},"service":${JSON.stringify(head.service)},"count":${order.length}`;
  for (const name of BYTE_COLUMNS) {
    const bytes = columns[name];
    yield `,"${name}":"`;
    for (let at = 0; at < bytes.length; at += SLICE_BYTES) yield bytes.toString('base64', at, Math.min(bytes.length, at + SLICE_BYTES));
    yield '"';
  }
  yield `,"otherEtags":${JSON.stringify(Object.fromEntries(columns.otherEtags))},"modified":${JSON.stringify(Object.fromEntries(columns.modified))},"refs":[`;
  // In slices: as one string, the references of 200 000 servers were 7 MB at the end of every run, where it peaks.
  for (let at = 0; at < columns.refs.length; at += REFS_SLICE) yield `${at === 0 ? '' : ','}${JSON.stringify(columns.refs.slice(at, at + REFS_SLICE)).slice(1, -1)}`;
  yield `],"stamps":${JSON.stringify(Object.fromEntries(stamps))}`;
  for (const [resource, summary] of lists) {
    yield `,${JSON.stringify(LIST_MEMBER + resource)}:`;
    yield* summary;
  }
  yield '}\n';
}

/** A JSON object of strings by path, as a map; empty when it is anything else. */
function stampsIn(value: unknown): Map<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return new Map();
  const entries = Object.entries(value);
  return entries.every(([, stamp]) => typeof stamp === 'string') ? new Map(entries as [string, string][]) : new Map();
}

/** A JSON object of strings keyed by row numbers, as a map; undefined when it is anything else. */
function rowStrings(value: unknown): Map<number, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const out = new Map<number, string>();
  for (const [key, text] of Object.entries(value)) {
    const row = Number(key);
    if (!/^(0|[1-9][0-9]*)$/.test(key) || typeof text !== 'string') return undefined;
    out.set(row, text);
  }
  return out;
}

/**
 * The byte column in a member's pieces (a JSON string of base64), decoded piece by piece: the
 * whole text, as a string or bytes, is copied outside the JS heap to be decoded, and letting that
 * copy go (7.7 MB at 200 000 servers) left the C allocator keeping as much for the rest of the run.
 * Undefined when it is anything else: the decoder skips what is not base64, so a piece that holds
 * any decodes short.
 */
function byteColumn(pieces: readonly Buffer[]): Buffer | undefined {
  const total = pieces.reduce((n, piece) => n + piece.length, 0);
  const quoted = (at: number): boolean => byteAt(pieces, at) === 0x22;
  if (total < 2 || !quoted(0) || !quoted(total - 1) || (total - 2) % 4 !== 0) return undefined;
  const out = Buffer.allocUnsafe(((total - 2) / 4) * 3);
  let written = 0;
  let carry = '';
  let at = 0;
  for (const piece of pieces) {
    const from = Math.max(0, 1 - at);
    const to = Math.min(piece.length, total - 1 - at);
    at += piece.length;
    if (from >= to) continue;
    const text = carry + piece.toString('latin1', from, to);
    const whole = text.length - (text.length % 4);
    carry = text.slice(whole);
    // Padding ends the column, and only the column.
    const padding = at < total - 1 ? 0 : text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
    const wrote = out.write(text.slice(0, whole), written, 'base64');
    if (wrote !== (whole / 4) * 3 - padding) return undefined;
    written += wrote;
  }
  return out.subarray(0, written);
}

/** Byte `at` of bytes in pieces. */
function byteAt(pieces: readonly Buffer[], at: number): number | undefined {
  for (const piece of pieces) {
    if (at < piece.length) return piece[at];
    at -= piece.length;
  }
  return undefined;
}

/** The validator columns in `members` (JSON values by name, byte columns decoded), or undefined when any is missing or malformed. */
function columnsOf(members: Map<string, unknown>): ValidatorColumns | undefined {
  const bytes = {} as Record<keyof typeof COLUMN_WIDTHS, Buffer>;
  for (const name of BYTE_COLUMNS) {
    const column = members.get(name);
    if (!(column instanceof Buffer)) return undefined;
    bytes[name] = column;
  }
  const otherEtags = rowStrings(members.get('otherEtags'));
  const modified = rowStrings(members.get('modified'));
  const refs = members.get('refs');
  if (!otherEtags || !modified || !Array.isArray(refs) || !refs.every((r) => r === null || typeof r === 'string')) return undefined;
  return { ...bytes, otherEtags, modified, refs: refs as (string | null)[] };
}

/**
 * Reads the folder's cache; false when it is missing, damaged or of another format: it is then
 * simply not used (the sync fetches everything).
 */
export async function readHttpCache(dir: string): Promise<CacheFile | false> {
  // No member is streamed, and each is decoded as it completes, so the file is never held whole
  // (33 MB at 200 000 servers); list summaries are kept as bytes for their user to parse.
  const file = join(dir, HTTP_CACHE_FILE);
  const scanner = new EnvelopeScanner('');
  const members = new Map<string, unknown>();
  const lists = new Map<string, CachedList>();
  const take = (): void => {
    for (const { key, pieces, at } of scanner.takeMembers()) {
      if (key.startsWith(LIST_MEMBER)) lists.set(key.slice(LIST_MEMBER.length), new CachedList(pieces, file, at));
      else if ((BYTE_COLUMNS as string[]).includes(key)) members.set(key, byteColumn(pieces));
      else members.set(key, key === 'refs' ? parseArrayInSlices(piecesText(pieces)) : JSON.parse(piecesText(pieces)));
    }
  };
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) {
      scanner.push(chunk as Buffer);
      take();
    }
    scanner.end();
    take();
  } catch (error) {
    if (error instanceof ScanError || error instanceof SyntaxError || (error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  const [manifest, count, run, verified, service] = ['manifest', 'count', 'run', 'verified', 'service'].map((key) => members.get(key));
  if (members.get('format') !== FORMAT || typeof manifest !== 'string' || !Number.isSafeInteger(count)) return false;
  if (!Number.isSafeInteger(run) || (run as number) < 1 || !Number.isSafeInteger(verified) || (verified as number) < 0 || (verified as number) > (run as number) || typeof service !== 'string') return false;
  const columns = columnsOf(members);
  if (!columns) return false;
  return { manifest, count: count as number, columns, run: run as number, service, verified: verified as number, lists, stamps: stampsIn(members.get('stamps')) };
}

/**
 * Loads `cache` into `table` (the previous manifest's files, in manifest order) when it belongs to
 * the manifest whose sha256 is `manifestSha256`; returns what else it holds when it did.
 */
export function bindHttpCache(cache: CacheFile, table: FileTable, manifestSha256: string): CacheRead | false {
  if (cache.manifest !== manifestSha256 || cache.count !== table.size || !table.loadValidatorColumns(cache.columns)) return false;
  const { run, service, verified, lists, stamps } = cache;
  return { run, service, verified, lists, stamps };
}
