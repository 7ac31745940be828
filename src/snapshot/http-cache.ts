/**
 * `_meta/http-cache.json`: the validators (ETag, Last-Modified) of the responses behind each file
 * of the snapshot, so the next sync can ask "changed since?" and keep the published file on 304;
 * for a record also the digest of the list item it was checked against. Run metadata, outside the
 * manifest and git-ignored, but published in the same journal as the manifest and bound to it by
 * the manifest's sha256: a cache that does not belong to the manifest on disk is never used (a
 * 304 would otherwise keep bytes the service never sent for that ETag).
 *
 * Entries are in the manifest's order, one per file (null where the file has no validators), so
 * the file carries no paths: about 70 bytes per record, plus what an incremental sync needs (the
 * run that last fetched or confirmed it, and the records its body refers to). The head names the
 * run (counted by incremental syncs), the last run every record was verified in, and the
 * service the snapshot came from. After the entries, a member `list <resource>` for each list whose
 * summary the sync keeps (see sync/list-cache.ts), so a list kept on a 304 need not be read again;
 * each is parsed only by the sync that uses it.
 */
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { EnvelopeScanner, ScanError } from '../json/scan.js';
import { HTTP_CACHE_FILE } from './paths.js';
import type { FileTable } from './table.js';

/** Bumped whenever what the cache holds changes: a cache of another format is not used (the sync then fetches everything once). */
const FORMAT = 4;
const CHUNK_CHARS = 64 * 1024;

type Entry = [string | null, string | null, string | null, number, string | null] | null;

const isText = (v: unknown): boolean => v === null || typeof v === 'string';

function isEntry(value: unknown): value is Entry {
  return value === null || (Array.isArray(value) && value.length === 5 && isText(value[0]) && isText(value[1]) && isText(value[2]) && Number.isSafeInteger(value[3]) && (value[3] as number) >= 0 && isText(value[4]));
}

/** Which run of the folder a cache belongs to, and the service it was synced from. */
export interface CacheHead {
  /** 1 for a folder's first sync, one more for each incremental sync after (a full sync confirms every record in the run it follows). */
  run: number;
  /** The service's base URL as displayed (no credentials). */
  service: string;
  /** The last run that fetched or confirmed every record (a full sync): no record was seen before it. */
  verified: number;
}

/** What a cache holds besides the validators: its head, and the list summaries by resource (JSON text, checked by their user). */
export interface CacheRead extends CacheHead {
  lists: Map<string, Buffer>;
}

const LIST_MEMBER = 'list ';

/**
 * The cache's text for `table` (the new snapshot's files, in `order`), bound to the manifest with
 * `manifestSha256`; `lists`: list summaries as JSON text in pieces, by resource.
 */
export function* httpCacheChunks(table: FileTable, order: readonly number[], manifestSha256: string, head: CacheHead, lists: ReadonlyMap<string, Iterable<string>> = new Map()): Generator<string> {
  let text = `{"format":${FORMAT},"manifest":"${manifestSha256}","run":${head.run},"verified":${head.verified},"service":${JSON.stringify(head.service)},"entries":[`;
  for (let n = 0; n < order.length; n++) {
    const v = table.validators(order[n]!);
    text += (n === 0 ? '' : ',') + (v ? JSON.stringify([v.etag ?? null, v.lastModified ?? null, v.item ?? null, v.seen ?? 0, v.refs ?? null]) : 'null');
    if (text.length >= CHUNK_CHARS) {
      yield text;
      text = '';
    }
  }
  yield `${text}]`;
  for (const [resource, summary] of lists) {
    yield `,${JSON.stringify(LIST_MEMBER + resource)}:`;
    yield* summary;
  }
  yield '}\n';
}

/**
 * Reads the folder's cache into `table` (the previous manifest's files, in manifest order), when
 * it belongs to the manifest whose sha256 is `manifestSha256`. Returns its head when it did; a
 * missing, damaged or foreign cache is simply not used (the sync then fetches everything).
 */
export async function readHttpCache(dir: string, table: FileTable, manifestSha256: string): Promise<CacheRead | false> {
  const scanner = new EnvelopeScanner('entries');
  let i = 0;
  try {
    for await (const chunk of createReadStream(join(dir, HTTP_CACHE_FILE), { highWaterMark: 1024 * 1024 })) {
      for (const element of scanner.push(chunk as Buffer)) {
        const entry: unknown = JSON.parse(element.bytes.toString('utf8'));
        if (!isEntry(entry) || i >= table.size) return clear(table, i);
        if (entry) table.setValidators(i, { etag: entry[0] ?? undefined, lastModified: entry[1] ?? undefined, item: entry[2] ?? undefined, seen: entry[3] || undefined, refs: entry[4] ?? undefined });
        i++;
      }
    }
    scanner.end();
  } catch (error) {
    if (error instanceof ScanError || error instanceof SyntaxError || (error as NodeJS.ErrnoException).code === 'ENOENT') return clear(table, i);
    throw error;
  }
  const members = new Map(scanner.members.filter((m) => !m.key.startsWith(LIST_MEMBER)).map((m) => [m.key, m.bytes.toString('utf8')]));
  if (i !== table.size || members.get('format') !== String(FORMAT) || members.get('manifest') !== JSON.stringify(manifestSha256)) return clear(table, i);
  const run = Number(members.get('run'));
  const verified = Number(members.get('verified'));
  let service: unknown;
  try {
    service = JSON.parse(members.get('service') ?? 'null');
  } catch {
    return clear(table, i);
  }
  if (!Number.isSafeInteger(run) || run < 1 || !Number.isSafeInteger(verified) || verified < 0 || verified > run || typeof service !== 'string') return clear(table, i);
  const lists = new Map(scanner.members.filter((m) => m.key.startsWith(LIST_MEMBER)).map((m) => [m.key.slice(LIST_MEMBER.length), m.bytes]));
  return { run, service, verified, lists };
}

function clear(table: FileTable, upTo: number): false {
  for (let j = 0; j < upTo; j++) table.setValidators(j, undefined);
  return false;
}
