/**
 * `_meta/http-cache.json`: the validators (ETag, Last-Modified) of the responses behind each file
 * of the snapshot, so the next sync can ask "changed since?" and keep the published file on 304;
 * for a record also the digest of the list item it was checked against. Run metadata, outside the
 * manifest and git-ignored, but published in the same journal as the manifest and bound to it by
 * the manifest's sha256: a cache that does not belong to the manifest on disk is never used (a
 * 304 would otherwise keep bytes the service never sent for that ETag).
 *
 * Entries are in the manifest's order, one per file (null where the file has no validators), so
 * the file carries no paths: about 70 bytes per record.
 */
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { EnvelopeScanner, ScanError } from '../json/scan.js';
import { HTTP_CACHE_FILE } from '../snapshot/paths.js';
import type { FileTable } from '../snapshot/table.js';

const FORMAT = 3;
const CHUNK_CHARS = 64 * 1024;

type Entry = [string | null, string | null, string | null] | null;

function isEntry(value: unknown): value is Entry {
  return value === null || (Array.isArray(value) && value.length === 3 && value.every((v) => v === null || typeof v === 'string'));
}

/** The cache's text for `table` (the new snapshot's files, in `order`), bound to the manifest with `manifestSha256`. */
export function* httpCacheChunks(table: FileTable, order: readonly number[], manifestSha256: string): Generator<string> {
  let text = `{"format":${FORMAT},"manifest":"${manifestSha256}","entries":[`;
  for (let n = 0; n < order.length; n++) {
    const v = table.validators(order[n]!);
    text += (n === 0 ? '' : ',') + (v ? JSON.stringify([v.etag ?? null, v.lastModified ?? null, v.item ?? null]) : 'null');
    if (text.length >= CHUNK_CHARS) {
      yield text;
      text = '';
    }
  }
  yield `${text}]}\n`;
}

/**
 * Reads the folder's cache into `table` (the previous manifest's files, in manifest order), when
 * it belongs to the manifest whose sha256 is `manifestSha256`. Returns whether it did; a missing,
 * damaged or foreign cache is simply not used (the sync then fetches everything).
 */
export async function readHttpCache(dir: string, table: FileTable, manifestSha256: string): Promise<boolean> {
  const scanner = new EnvelopeScanner('entries');
  let i = 0;
  try {
    for await (const chunk of createReadStream(join(dir, HTTP_CACHE_FILE), { highWaterMark: 1024 * 1024 })) {
      for (const element of scanner.push(chunk as Buffer)) {
        const entry: unknown = JSON.parse(element.bytes.toString('utf8'));
        if (!isEntry(entry) || i >= table.size) return clear(table, i);
        if (entry) table.setValidators(i, { etag: entry[0] ?? undefined, lastModified: entry[1] ?? undefined, item: entry[2] ?? undefined });
        i++;
      }
    }
    scanner.end();
  } catch (error) {
    if (error instanceof ScanError || error instanceof SyntaxError || (error as NodeJS.ErrnoException).code === 'ENOENT') return clear(table, i);
    throw error;
  }
  const members = new Map(scanner.members.map((m) => [m.key, m.bytes.toString('utf8')]));
  if (i !== table.size || members.get('format') !== String(FORMAT) || members.get('manifest') !== JSON.stringify(manifestSha256)) return clear(table, i);
  return true;
}

function clear(table: FileTable, upTo: number): false {
  for (let j = 0; j < upTo; j++) table.setValidators(j, undefined);
  return false;
}
