/**
 * The manifest and the ETag cache check their many entries with plain predicates instead of zod
 * (for speed); each must give the same verdict as the entry's zod schema, which gives the type.
 */
import { describe, expect, it } from 'vitest';
import { cacheEntrySchema, isCacheEntry } from '../../src/fetch/cache.js';
import { isManifestEntry, manifestEntrySchema, parseManifest } from '../../src/publish/manifest.js';

const HASH = 'a'.repeat(64);
const WARNING = { resource: 'servers', id: '1', field: 'os', message: 'expected string' };

const manifestSamples: unknown[] = [
  { sha256: HASH, size: 0 },
  { sha256: HASH, size: 123 },
  { sha256: HASH, size: -1 },
  { sha256: HASH, size: 1.5 },
  { sha256: HASH, size: 2 ** 53 },
  { sha256: HASH, size: '12' },
  { sha256: 'A'.repeat(64), size: 1 },
  { sha256: 'a'.repeat(63), size: 1 },
  { sha256: `${HASH}\n`, size: 1 },
  { sha256: HASH },
  { size: 1 },
  { sha256: HASH, size: 1, extra: true },
  { sha256: 42, size: 1 },
  {},
  [],
  null,
  'x',
  7,
];

const cacheSamples: unknown[] = [
  {},
  { etag: 'W/"1"' },
  { etag: 'W/"1"', lastModified: 'Sat, 21 Nov 2026 06:00:00 GMT' },
  { etag: 'W/"1"', item: 'abc' },
  { etag: 'W/"1"', warnings: [WARNING], checks: [WARNING, WARNING] },
  { warnings: [] },
  { etag: 1 },
  { item: null },
  { warnings: WARNING },
  { warnings: [{ ...WARNING, extra: 'x' }] },
  { checks: [{ resource: 'servers', id: '1', field: 'os' }] },
  { checks: [{ ...WARNING, id: 1 }] },
  { checks: [null] },
  { etag: 'W/"1"', other: 'x' },
  [],
  null,
  'x',
];

describe('entry predicates agree with their zod schemas', () => {
  it.each(manifestSamples.map((sample) => [JSON.stringify(sample), sample]))('manifest entry %s', (_, sample) => {
    expect(isManifestEntry(sample)).toBe(manifestEntrySchema.safeParse(sample).success);
  });

  it.each(cacheSamples.map((sample) => [JSON.stringify(sample), sample]))('cache entry %s', (_, sample) => {
    expect(isCacheEntry(sample)).toBe(cacheEntrySchema.safeParse(sample).success);
  });

  it('a manifest with one bad entry among good ones is not a manifest', () => {
    const files = { 'a.json': { sha256: HASH, size: 1 }, 'b.json': { sha256: HASH, size: -1 } };
    expect(parseManifest(Buffer.from(JSON.stringify({ format: 1, generator: 'inventory-mirror', files })))).toBeUndefined();
    files['b.json'].size = 2;
    expect(parseManifest(Buffer.from(JSON.stringify({ format: 1, generator: 'inventory-mirror', files })))?.files['b.json']).toEqual({ sha256: HASH, size: 2 });
  });
});
