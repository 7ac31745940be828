/** Which detail bucket holds a record (pure). */

/** FNV-1a over UTF-16 code units, as the sync's bucketOf (src/browser/data.ts) computes it. */
export function bucketOf(id: string, buckets: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % buckets;
}
