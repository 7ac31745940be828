/**
 * The bodies serve sends, read from the snapshot's files: a published file as it is (checked
 * against the manifest), or a list query's answer cut from the list file. A query answer is the
 * list's envelope around the items it keeps, copied byte for byte from the list file (which holds
 * each item as encodeJson writes it inside `{"<resource>": [...]}`), adjacent items in one piece.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { closeSync } from 'node:fs';
import { planListQuery, selectPositions, type ListQuery, type QueryRefusal } from '../index/query.js';
import { EnvelopeEncoder } from '../json/encode.js';
import { filterFile } from '../snapshot/paths.js';
import type { ResourceName } from '../spec/resources.js';
import type { BodyCache } from './cache.js';
import { fileChunks, readFully, readPublished, SMALL_FILE_BYTES, STALE, type Stale, type Verdicts } from './files.js';
import { ITEM_GAP } from './list-index.js';
import { contentType, JSON_TYPE } from './route.js';
import type { HeldList, Snapshot } from './snapshot.js';

/** A body to send: whole in memory, or read in pieces as it is sent (then `close` it once done). */
export type Body = { etag: string; type: string; bytes: Buffer } | { etag: string; type: string; size: number; chunks: () => AsyncIterable<Buffer>; close: () => void };

/** Answers up to this size are put together in memory (and may be cached); larger ones are streamed. */
const ANSWER_IN_MEMORY_BYTES = 8 * 1024 * 1024;
/** Items closer than this in the file are read in one go, the bytes between them skipped. */
const MERGE_GAP_BYTES = 16 * 1024;
/** At most this much is read at once for an answer. */
const PIECE_BYTES = 1024 * 1024;

/** What bodies are made with. */
export interface BodySources {
  cache: BodyCache;
  verdicts: Verdicts;
  /** Files up to this size are read whole (and may be cached), larger ones streamed (default SMALL_FILE_BYTES). */
  fileInMemoryBytes?: number;
  /** Likewise for query answers (default ANSWER_IN_MEMORY_BYTES). */
  answerInMemoryBytes?: number;
}

/** The ETag of a body whose sha256 (or derived digest) is given. */
export const quoted = (sha256: string): string => `"${sha256}"`;

/** What the snapshot says of a file it answers with (Snapshot.file). */
type SnapshotFile = NonNullable<ReturnType<Snapshot['file']>>;

/** The body of a file when the cache holds it: no disk read at all. */
export function cachedFileBody(path: string, file: SnapshotFile, sources: BodySources): Body | undefined {
  const etag = quoted(file.sha256);
  const hit = sources.cache.get(etag);
  return hit && { etag, type: contentType(path), bytes: hit };
}

/** The body of a published file, checked against the snapshot; STALE when the disk no longer holds it. */
export async function fileBody(snapshot: Snapshot, path: string, file: SnapshotFile, sources: BodySources): Promise<Body | Stale> {
  const type = contentType(path);
  const etag = quoted(file.sha256);
  const hit = sources.cache.get(etag);
  if (hit) return { etag, type, bytes: hit };
  const { held } = file;
  if (held) {
    if (!(await held.intact())) return STALE;
    if (held.size <= (sources.fileInMemoryBytes ?? SMALL_FILE_BYTES)) {
      const bytes = Buffer.allocUnsafe(held.size);
      if (!readFully(held.fd, bytes, 0, held.size, 0)) return STALE;
      sources.cache.set(etag, bytes);
      return { etag, type, bytes };
    }
    return { etag, type, size: held.size, chunks: () => fileChunks(held.fd, 0, held.size), close: () => {} };
  }
  const read = await readPublished(join(snapshot.dir, path), file, sources.verdicts, sources.fileInMemoryBytes);
  if (read === STALE) return STALE;
  if ('bytes' in read) {
    sources.cache.set(etag, read.bytes);
    return { etag, type, bytes: read.bytes };
  }
  let open = true;
  return {
    etag,
    type,
    size: read.size,
    chunks: () => fileChunks(read.fd, 0, read.size),
    close: () => {
      if (open) closeSync(read.fd);
      open = false;
    },
  };
}

/** A query answer whose items are chosen, not yet read. */
interface PreparedAnswer {
  etag: string;
  resource: ResourceName;
  list: HeldList;
  /** The byte ranges of the kept items in the list file, adjacent items joined: [start, end, ...]. */
  ranges: number[];
  /** The answer's length in bytes. */
  size: number;
}

/**
 * Plans and evaluates a list query on the snapshot: the refusal, STALE when a view it needs does
 * not match the snapshot on disk, or the items the answer keeps. The ETag is derived from what the
 * answer is made of (the query and the sha256 of the files read), so it is known before the body.
 */
export async function prepareQuery(snapshot: Snapshot, resource: ResourceName, query: ListQuery): Promise<PreparedAnswer | QueryRefusal | Stale> {
  const planned = planListQuery(resource, query, snapshot, { caseSensitive: snapshot.caseSensitive });
  if (!planned.ok) return { param: planned.param, message: planned.message };
  const { plan } = planned;
  const list = plan.include ? await snapshot.include(resource) : snapshot.list(resource);
  if (list === STALE) return STALE;
  const views: Int32Array[] = [];
  const sources = [list.file?.sha256 ?? 'none'];
  if (!plan.empty) {
    for (const { param, value } of plan.views) {
      const positions = await snapshot.viewPositions(resource, param, value, list);
      if (positions === STALE) return STALE;
      views.push(positions);
      sources.push(snapshot.expected(filterFile(resource, param, value))!.sha256);
    }
  }
  const ranges = list.index.ranges(selectPositions(list.index, plan, views));
  const etag = quoted(createHash('sha256').update(['query/1', snapshot.caseSensitive ? 'case' : 'nocase', resource, query.key, ...sources].join('\0')).digest('hex'));
  const { head, tail } = envelope(resource, ranges.length > 0);
  // Each range is led by ITEM_GAP, but the first by its newline and indent only.
  let size = head.length + tail.length - (ranges.length > 0 ? 1 : 0);
  for (let k = 0; k < ranges.length; k += 2) size += ITEM_GAP.length + ranges[k + 1]! - ranges[k]!;
  return { etag, resource, list, ranges, size };
}

/** What encodeJson writes around the items of `{"<resource>": [...]}`. */
function envelope(resource: ResourceName, items: boolean): { head: Buffer; tail: Buffer } {
  const encoder = new EnvelopeEncoder(resource);
  return { head: Buffer.from(encoder.head()), tail: Buffer.from(items ? '\n  ]\n}\n' : encoder.tail()) };
}

/** The answer's bytes: from the cache, put together in memory, or streamed when large. */
export async function queryBody(answer: PreparedAnswer, sources: BodySources): Promise<Body | Stale> {
  const { etag, list } = answer;
  const hit = sources.cache.get(etag);
  if (hit) return { etag, type: JSON_TYPE, bytes: hit };
  if (list.file && !(await list.file.intact())) return STALE;
  const { ranges, size } = answer;
  const fd = list.file?.fd ?? -1;
  if (size <= (sources.answerInMemoryBytes ?? ANSWER_IN_MEMORY_BYTES)) {
    const bytes = answerBytes(fd, answer.resource, ranges);
    sources.cache.set(etag, bytes);
    return { etag, type: JSON_TYPE, bytes };
  }
  const { head, tail } = envelope(answer.resource, ranges.length > 0);
  return {
    etag,
    type: JSON_TYPE,
    size,
    chunks: async function* () {
      yield head;
      for (const [k, end] of groups(ranges)) {
        const piece = Buffer.allocUnsafe(groupSize(ranges, k, end));
        copyGroup(fd, ranges, k, end, piece, 0);
        yield piece;
      }
      yield tail;
    },
    close: () => {},
  };
}

/** The whole answer made of the items at `ranges` of the list file `fd` (see ListIndex.ranges), in one allocation. */
export function answerBytes(fd: number, resource: ResourceName, ranges: readonly number[]): Buffer {
  const { head, tail } = envelope(resource, ranges.length > 0);
  let size = head.length + tail.length;
  for (const [k, end] of groups(ranges)) size += groupSize(ranges, k, end);
  const out = Buffer.allocUnsafe(size);
  let at = head.copy(out, 0);
  for (const [k, end] of groups(ranges)) at = copyGroup(fd, ranges, k, end, out, at);
  tail.copy(out, at);
  return out;
}

const FIRST = Buffer.from(ITEM_GAP.slice(1));
const GAP = Buffer.from(ITEM_GAP);
/** Where a group is read: one buffer for every answer, as the reads here are synchronous. */
const SCRATCH = Buffer.allocUnsafeSlow(PIECE_BYTES);

/**
 * The ranges in groups read with one read each: ranges closer than MERGE_GAP_BYTES whose span
 * stays within PIECE_BYTES. Each group is [k, end): ranges[k] to ranges[end - 1].
 */
function* groups(ranges: readonly number[]): Generator<[number, number]> {
  for (let k = 0; k < ranges.length; ) {
    const from = ranges[k]!;
    let end = k + 2;
    while (end < ranges.length && ranges[end]! - ranges[end - 1]! <= MERGE_GAP_BYTES && ranges[end + 1]! - from <= PIECE_BYTES) end += 2;
    yield [k, end];
    k = end;
  }
}

/** The bytes a group adds to an answer: each range led by ITEM_GAP, the very first by its newline and indent only. */
function groupSize(ranges: readonly number[], k: number, end: number): number {
  let size = k === 0 ? -1 : 0;
  for (let j = k; j < end; j += 2) size += ITEM_GAP.length + ranges[j + 1]! - ranges[j]!;
  return size;
}

/** Reads a group from the list file and copies its items, each led by its separator, into `target` at `at`; the offset after. */
function copyGroup(fd: number, ranges: readonly number[], k: number, end: number, target: Buffer, at: number): number {
  const from = ranges[k]!;
  const span = ranges[end - 1]! - from;
  // A single item larger than a piece gets a buffer of its own.
  const window = span <= SCRATCH.length ? SCRATCH : Buffer.allocUnsafe(span);
  if (!readFully(fd, window, 0, span, from)) throw new Error('a list file became shorter while an answer was read from it');
  for (let j = k; j < end; j += 2) {
    at += (j === 0 ? FIRST : GAP).copy(target, at);
    at += window.copy(target, at, ranges[j]! - from, ranges[j + 1]! - from);
  }
  return at;
}
