/** A least-recently-used map bounded by the total size of its values, so big inventories cannot fill the memory. */
export class ByteLru<V> {
  private readonly entries = new Map<string, V>();
  private bytes = 0;

  constructor(
    private readonly limit: number,
    private readonly sizeOf: (value: V) => number,
  ) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Map keeps insertion order: re-inserting marks the entry as most recently used.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  /** Keeps the value unless it alone exceeds the limit; drops the least recently used entries beyond it. */
  set(key: string, value: V): void {
    this.delete(key);
    const size = this.sizeOf(value);
    if (size > this.limit) return;
    this.entries.set(key, value);
    this.bytes += size;
    for (const [oldKey, old] of this.entries) {
      if (this.bytes <= this.limit) break;
      this.entries.delete(oldKey);
      this.bytes -= this.sizeOf(old);
    }
  }

  delete(key: string): void {
    const old = this.entries.get(key);
    if (old === undefined) return;
    this.entries.delete(key);
    this.bytes -= this.sizeOf(old);
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}
