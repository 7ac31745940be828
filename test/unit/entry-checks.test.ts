/**
 * The manifest checks its many entries with a plain predicate instead of zod (for speed); it must
 * give the same verdict as the entry's zod schema, which gives the type.
 */
import { describe, expect, it } from 'vitest';
import { isManifestEntry, manifestEntrySchema, parseManifest } from '../../src/snapshot/manifest.js';

const HASH = 'a'.repeat(64);

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

describe('the manifest entry predicate agrees with its zod schema', () => {
  it.each(manifestSamples.map((sample) => [JSON.stringify(sample), sample]))('manifest entry %s', (_, sample) => {
    expect(isManifestEntry(sample)).toBe(manifestEntrySchema.safeParse(sample).success);
  });

  it('a manifest with one bad entry among good ones is not a manifest', () => {
    const files = { 'a.json': { sha256: HASH, size: 1 }, 'b.json': { sha256: HASH, size: -1 } };
    expect(parseManifest(Buffer.from(JSON.stringify({ format: 1, generator: 'inventory-mirror', files })))).toBeUndefined();
    files['b.json'].size = 2;
    const table = parseManifest(Buffer.from(JSON.stringify({ format: 1, generator: 'inventory-mirror', files })))!.table;
    expect(table.matches('b.json', HASH, 2)).toBe(true);
  });
});
