/**
 * Hot bodies and their compressed forms, least recently used first out, bounded by bytes (each
 * entry counted with its overhead): the memory serve spends on speed is this and nothing else
 * that grows with traffic. Keys name
 * content (an ETag, with the coding for a compressed form), so an entry stays right across
 * snapshots for as long as some snapshot has that content.
 */
/** What an entry costs besides its bytes: the key, the Buffer object, the map slot (roughly). */
const ENTRY_OVERHEAD_BYTES = 320;

export class BodyCache {
  readonly #entries = new Map<string, Buffer>();
  #bytes = 0;

  constructor(
    readonly maxBytes: number,
    /** Larger bodies are not kept: one of them would push out thousands of records. */
    readonly maxEntryBytes: number,
  ) {}

  get bytes(): number {
    return this.#bytes;
  }

  get(key: string): Buffer | undefined {
    const hit = this.#entries.get(key);
    if (hit) {
      // Most recently used last.
      this.#entries.delete(key);
      this.#entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, bytes: Buffer): void {
    if (bytes.length > this.maxEntryBytes || bytes.length > this.maxBytes) return;
    const old = this.#entries.get(key);
    if (old) {
      this.#entries.delete(key);
      this.#bytes -= old.length + ENTRY_OVERHEAD_BYTES;
    }
    // A small Buffer is often a slice of Node's shared 8 KiB pool: kept, it would keep the
    // whole slab alive. A copy of its own costs only its size.
    let own = bytes;
    if (bytes.buffer.byteLength !== bytes.length) {
      own = Buffer.allocUnsafeSlow(bytes.length);
      bytes.copy(own);
    }
    this.#entries.set(key, own);
    this.#bytes += own.length + ENTRY_OVERHEAD_BYTES;
    for (const [oldKey, oldBytes] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldKey);
      this.#bytes -= oldBytes.length + ENTRY_OVERHEAD_BYTES;
    }
  }
}
