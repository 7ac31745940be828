/**
 * The validators (ETag, Last-Modified) of every response behind the snapshot, so the next sync can
 * ask "changed since?" and keep the published file on 304. Each entry also keeps the warnings
 * that body raised, so a 304 reports them again rather than going quiet. A cache, not snapshot
 * data: outside the manifest and git-ignored.
 */
import { join } from 'node:path';
import { z } from 'zod';
import fs from 'fs-extra';
import { decodeJsonAs } from '../publish/json.js';
import { HTTP_CACHE_FILE } from '../publish/paths.js';
import { isPlainObject } from '../util/json-value.js';
import { recordOf } from '../util/record-of.js';

const warningSchema = z.strictObject({ resource: z.string(), id: z.string(), field: z.string(), message: z.string() });
const WARNING_KEYS = Object.keys(warningSchema.shape);

export const cacheEntrySchema = z.strictObject({
  etag: z.string().optional(),
  lastModified: z.string().optional(),
  /** Warnings about the body itself. */
  warnings: z.array(warningSchema).optional(),
  /** Warnings from checking it against other records (its list item, its list). */
  checks: z.array(warningSchema).optional(),
});

export type CacheEntry = z.infer<typeof cacheEntrySchema>;

function isWarning(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  let keys = 0;
  for (const key in value) {
    if (!WARNING_KEYS.includes(key) || typeof value[key] !== 'string') return false;
    keys++;
  }
  return keys === WARNING_KEYS.length;
}

/** `cacheEntrySchema` as a predicate, for the thousands of entries of a cache (see recordOf). */
export function isCacheEntry(value: unknown): value is CacheEntry {
  if (!isPlainObject(value)) return false;
  for (const key in value) {
    const field = value[key];
    if (key === 'etag' || key === 'lastModified') {
      if (typeof field !== 'string') return false;
    } else if (key === 'warnings' || key === 'checks') {
      if (!Array.isArray(field) || !field.every(isWarning)) return false;
    } else return false;
  }
  return true;
}

/** Format 2: entries no longer carry a digest of their list item (format 1 did). */
const cacheSchema = z.strictObject({ format: z.literal(2), responses: recordOf(isCacheEntry) });
export type HttpCache = Map<string, CacheEntry>;

/** The folder's cache; empty when absent or unreadable (the sync then fetches everything). */
export async function readHttpCache(dir: string): Promise<HttpCache> {
  const bytes = await fs.readFile(join(dir, HTTP_CACHE_FILE)).catch(() => undefined);
  const cache = bytes ? decodeJsonAs(bytes, cacheSchema) : undefined;
  return new Map(cache ? Object.entries(cache.responses) : []);
}

/** Whether two caches hold the same entries (then the file need not be rewritten, nor even encoded). */
export function sameCache(a: HttpCache, b: HttpCache): boolean {
  if (a.size !== b.size) return false;
  for (const [path, entry] of a) {
    const other = b.get(path);
    // A 304 carries its entry over as the same object, so most are settled without encoding.
    if (other === entry) continue;
    if (!other || JSON.stringify(entry) !== JSON.stringify(other)) return false;
  }
  return true;
}

/** Replaces the folder's cache (temp file, then rename), unless it holds the same already. */
export async function writeHttpCache(dir: string, cache: HttpCache, previous?: HttpCache): Promise<void> {
  if (previous && sameCache(cache, previous)) return;
  const path = join(dir, HTTP_CACHE_FILE);
  const responses = Object.fromEntries([...cache].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const bytes = Buffer.from(JSON.stringify({ format: 2, responses }));
  const existing = await fs.readFile(path).catch(() => undefined);
  if (existing?.equals(bytes)) return;
  await fs.mkdir(join(dir, '_meta'), { recursive: true });
  await fs.writeFile(`${path}.tmp`, bytes);
  await fs.rename(`${path}.tmp`, path);
}
