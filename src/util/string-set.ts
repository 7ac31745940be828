/**
 * Compact sets and lists of strings for hundreds of thousands of ids and paths: a JS Set of
 * 360 000 path strings costs ~40 MB, these a few. `HashSet` keeps 53-bit hashes sorted in a typed
 * array (membership by binary search; a false "present" needs two different strings with one
 * 53-bit hash, about one chance in 10^5 at 360 000 entries, and only a caller that checks sameness
 * some other way may rely on it for more than a shortcut); `StringList` keeps strings joined in one.
 */

/** A string handed over as `text.slice(start, end)`, without making it: a part of a joined chunk (see StringList.forEachSpan). */
export type SpanVisitor = (text: string, start: number, end: number) => void;
/** Strings visited one at a time as spans; at 360 000 paths, making each string cost a sync 25 MB of garbage per walk. */
export type Spans = (visit: SpanVisitor) => void;

/** `values` as spans. */
export function spansOf(values: Iterable<string>): Spans {
  return (visit) => {
    for (const value of values) visit(value, 0, value.length);
  };
}

/** cyrb53: a fast 53-bit string hash (public domain), good enough to tell ids apart. */
export function hash53(text: string, seed = 0): number {
  return hash53Of(text, 0, text.length, seed);
}

/** hash53 of `text.slice(start, end)`, without making that string. */
function hash53Of(text: string, start: number, end: number, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** A set of strings held as sorted 53-bit hashes. */
export class HashSet {
  readonly #hashes: Float64Array;

  private constructor(hashes: Float64Array) {
    this.#hashes = hashes;
  }

  static of(values: Iterable<string>): HashSet {
    const builder = HashSet.builder();
    for (const value of values) builder.add(value);
    return builder.build();
  }

  /** Collects values one at a time (keeping only their hashes); `build` makes the set. */
  static builder(): { add(value: string): void; addSlice(text: string, start: number, end: number): void; build(): HashSet } {
    let hashes = new Float64Array(1024);
    let n = 0;
    /** Adds `text.slice(start, end)` (one value of a joined chunk). */
    const addSlice = (text: string, start: number, end: number): void => {
      if (n === hashes.length) {
        const grown = new Float64Array(n * 2);
        grown.set(hashes);
        hashes = grown;
      }
      hashes[n++] = hash53Of(text, start, end);
    };
    return {
      add: (value) => addSlice(value, 0, value.length),
      addSlice,
      build: () => new HashSet(hashes.slice(0, n).sort()),
    };
  }

  get size(): number {
    return this.#hashes.length;
  }

  has(value: string): boolean {
    return this.hasHash(hash53(value));
  }

  /** Whether a value with this hash (see hash53) is in. */
  hasHash(target: number): boolean {
    const hashes = this.#hashes;
    let lo = 0;
    let hi = hashes.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const h = hashes[mid]!;
      if (h === target) return true;
      if (h < target) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  /** Whether two of the values hashed alike (equal values, or, rarely, a collision). */
  hasRepeats(): boolean {
    const hashes = this.#hashes;
    for (let i = 1; i < hashes.length; i++) if (hashes[i] === hashes[i - 1]) return true;
    return false;
  }
}

/** Values per chunk of a StringList. */
const CHUNK = 4096;

/** A growing list of strings kept as a few long strings and offsets: a few bytes each instead of a string object. */
export class StringList {
  /** Chunks of CHUNK values each, joined; the last one still open in `#open`. */
  readonly #chunks: string[] = [];
  #open: string[] = [];
  #ends = new Uint32Array(CHUNK);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  /**
   * Appends the values joined in `text`, value k `lengths[k]` characters long: a whole chunk is
   * kept as the one string it is.
   */
  pushJoined(text: string, lengths: readonly number[]): void {
    // Indexed loops: called once per chunk, this never gets optimized, and for-of in unoptimized
    // code makes an object per step (20 MB as a re-sync at 200 000 servers read its list summaries).
    if (this.#length % CHUNK !== 0 || lengths.length !== CHUNK) {
      let at = 0;
      for (let k = 0; k < lengths.length; k++) this.push(text.slice(at, (at += lengths[k]!)));
      return;
    }
    while (this.#length + CHUNK > this.#ends.length) {
      const grown = new Uint32Array(this.#ends.length * 2);
      grown.set(this.#ends);
      this.#ends = grown;
    }
    let end = 0;
    for (let k = 0; k < lengths.length; k++) this.#ends[this.#length++] = end += lengths[k]!;
    this.#chunks.push(text);
  }

  push(value: string): void {
    if (this.#length === this.#ends.length) {
      const grown = new Uint32Array(this.#ends.length * 2);
      grown.set(this.#ends);
      this.#ends = grown;
    }
    const first = this.#length % CHUNK === 0;
    this.#ends[this.#length++] = (first ? 0 : this.#ends[this.#length - 2]!) + value.length;
    this.#open.push(value);
    if (this.#open.length === CHUNK) {
      this.#chunks.push(this.#open.join(''));
      this.#open = [];
    }
  }

  /** The length of value `n`, without building it. */
  lengthAt(n: number): number {
    const chunk = Math.floor(n / CHUNK);
    if (chunk >= this.#chunks.length) return this.#open[n % CHUNK]!.length;
    return this.#ends[n]! - (n % CHUNK === 0 ? 0 : this.#ends[n - 1]!);
  }

  at(n: number): string {
    const chunk = Math.floor(n / CHUNK);
    const start = n % CHUNK === 0 ? 0 : this.#ends[n - 1]!;
    if (chunk < this.#chunks.length) return this.#chunks[chunk]!.slice(start, this.#ends[n]!);
    return this.#open[n % CHUNK]!;
  }

  /** Visits each value in order as a span of its chunk; `only`: just the values whose byte is 1. */
  forEachSpan(visit: SpanVisitor, only?: Uint8Array): void {
    for (let n = 0; n < this.#length; n++) {
      if (only && !only[n]) continue;
      const chunk = Math.floor(n / CHUNK);
      if (chunk < this.#chunks.length) visit(this.#chunks[chunk]!, n % CHUNK === 0 ? 0 : this.#ends[n - 1]!, this.#ends[n]!);
      else {
        const value = this.#open[n % CHUNK]!;
        visit(value, 0, value.length);
      }
    }
  }

  /** hash53 of value `n`, without building a string. */
  hashAt(n: number): number {
    const chunk = Math.floor(n / CHUNK);
    const start = n % CHUNK === 0 ? 0 : this.#ends[n - 1]!;
    return chunk < this.#chunks.length ? hash53Of(this.#chunks[chunk]!, start, this.#ends[n]!) : hash53(this.#open[n % CHUNK]!);
  }

  /** Whether value `n` is `value`, without building a string. */
  equals(n: number, value: string): boolean {
    const chunk = Math.floor(n / CHUNK);
    const start = n % CHUNK === 0 ? 0 : this.#ends[n - 1]!;
    if (this.#ends[n]! - start !== value.length) return false;
    return chunk < this.#chunks.length ? this.#chunks[chunk]!.startsWith(value, start) : this.#open[n % CHUNK] === value;
  }

  *[Symbol.iterator](): Generator<string> {
    for (let n = 0; n < this.#length; n++) yield this.at(n);
  }
}

/**
 * Rows of a StringList found by their value, one row per value: open addressing on their hashes,
 * at most half full, a row number per slot. Finds a value among a few hundred thousand without a
 * Map holding each as a string.
 */
export class RowIndex {
  /** Slot → row + 1 (0: empty). */
  #slots: Int32Array;
  #count = 0;

  /** `expected`: about how many rows will be added (the index grows beyond as needed; each growth hashes every row again). */
  constructor(readonly list: StringList, expected = 8) {
    let slots = 16;
    while (slots < expected * 2) slots *= 2;
    this.#slots = new Int32Array(slots);
  }

  get size(): number {
    return this.#count;
  }

  /** The row holding `value`, if one was added. */
  find(value: string): number | undefined {
    const mask = this.#slots.length - 1;
    for (let slot = hash53(value) & mask; ; slot = (slot + 1) & mask) {
      const row = this.#slots[slot]!;
      if (row === 0) return undefined;
      if (this.list.equals(row - 1, value)) return row - 1;
    }
  }

  /** Adds the row `row()` gives for `value` (asked only then), unless a row holding `value` is in already: false then. */
  add(value: string, row: () => number): boolean {
    if (2 * (this.#count + 1) > this.#slots.length) this.#grow();
    const mask = this.#slots.length - 1;
    let slot = hash53(value) & mask;
    for (let k = this.#slots[slot]!; k !== 0; k = this.#slots[slot]!) {
      if (this.list.equals(k - 1, value)) return false;
      slot = (slot + 1) & mask;
    }
    this.#slots[slot] = row() + 1;
    this.#count++;
    return true;
  }

  /** Adds row `row` of the list, whose hash53 is `hash`, without comparing it with the rows in: for a list whose values differ. */
  addRow(row: number, hash: number): void {
    if (2 * (this.#count + 1) > this.#slots.length) this.#grow();
    const mask = this.#slots.length - 1;
    let slot = hash & mask;
    while (this.#slots[slot] !== 0) slot = (slot + 1) & mask;
    this.#slots[slot] = row + 1;
    this.#count++;
  }

  #grow(): void {
    const old = this.#slots;
    this.#slots = new Int32Array(old.length * 2);
    const mask = this.#slots.length - 1;
    for (const row of old) {
      if (row === 0) continue;
      let slot = this.list.hashAt(row - 1) & mask;
      while (this.#slots[slot] !== 0) slot = (slot + 1) & mask;
      this.#slots[slot] = row;
    }
  }
}
