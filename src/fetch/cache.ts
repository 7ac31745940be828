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

const warningSchema = z.strictObject({ resource: z.string(), id: z.string(), field: z.string(), message: z.string() });

const entrySchema = z.strictObject({
  etag: z.string().optional(),
  lastModified: z.string().optional(),
  /** Warnings about the body itself. */
  warnings: z.array(warningSchema).optional(),
  /** Warnings from checking it against other records (its list item, its list). */
  checks: z.array(warningSchema).optional(),
  /** Digest of the list item a single record was checked against. */
  item: z.string().optional(),
});

const cacheSchema = z.strictObject({ format: z.literal(1), responses: z.record(z.string(), entrySchema) });

export type CacheEntry = z.infer<typeof entrySchema>;
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
  const bytes = Buffer.from(JSON.stringify({ format: 1, responses }));
  const existing = await fs.readFile(path).catch(() => undefined);
  if (existing?.equals(bytes)) return;
  await fs.mkdir(join(dir, '_meta'), { recursive: true });
  await fs.writeFile(`${path}.tmp`, bytes);
  await fs.rename(`${path}.tmp`, path);
}
