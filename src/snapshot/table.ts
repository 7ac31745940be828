/**
 * A compact table of a snapshot's files: path → sha256 and size, plus the HTTP validators of the
 * response behind each file. A snapshot of 200 000 servers lists 360 000 files: as one object per
 * file with hex strings it cost about 200 bytes each, and a re-sync holds two such tables. Here
 * paths sit joined in a few long strings, found through an open-addressing index of their 53-bit
 * hashes; digests, sizes and the usual forms of validators are raw bytes in shared buffers.
 *
 * A table may be derived from an earlier one (`FileTable.over(previous)`): an entry that stays as
 * it was costs a bit in a bitmap instead of a copy, so the new snapshot's table of a re-sync takes
 * a few hundred kilobytes plus what changed. Indexes below `base.size` then name the base's
 * entries; the table's own come after.
 */
import { hash53, StringList, type Spans } from '../util/string-set.js';

const HASH_BYTES = 32;
/** A list item's digest (see sync/list-summary.ts itemDigest): 16 base64url characters, 12 bytes. */
const ITEM_BYTES = 12;
/** An ETag as its 16 bytes when it is a quoted 32-digit hex string, weak or strong (Rails, nginx-ish). */
const ETAG_BYTES = 16;
const HEX32_ETAG = /^(W\/)?"([0-9a-f]{32})"$/;
const EMPTY: Buffer = Buffer.alloc(0);

/** What the next sync sends to ask "changed since?", and the list item the file was checked with. */
export interface Validators {
  etag?: string | undefined;
  lastModified?: string | undefined;
  /** Digest of the list item a record was checked against (records only). */
  item?: string | undefined;
  /** The run (see http-cache.ts) that last fetched or confirmed the record: the rolling refresh takes the oldest first. */
  seen?: number | undefined;
  /** The records this record's body refers to (see index/references.ts), space-separated. */
  refs?: string | undefined;
}

/**
 * The validators of a table's entries as columns, one row per entry in some order (see
 * http-cache.ts): raw bytes where the table keeps raw bytes, so run metadata is written and read
 * without a string or an object per entry.
 */
export interface ValidatorColumns {
  /** Per row: 0 no ETag, 1 a weak and 2 a strong one of 32 hex digits (in `etags`), 3 another (in `otherEtags`). */
  kinds: Buffer;
  /** 16 bytes per row. */
  etags: Buffer;
  /** 12 bytes per row: the list item's digest, where `hasItem` is 1. */
  items: Buffer;
  hasItem: Buffer;
  /** 4 bytes per row, little-endian: the run that last fetched or confirmed the entry (0: none). */
  seen: Buffer;
  otherEtags: Map<number, string>;
  modified: Map<number, string>;
  refs: (string | null)[];
}

/** Bytes per row of each byte column of ValidatorColumns. */
export const COLUMN_WIDTHS = { kinds: 1, etags: ETAG_BYTES, items: ITEM_BYTES, hasItem: 1, seen: 4 } as const;

const enum Etag {
  None = 0,
  Weak = 1,
  Strong = 2,
  /** Kept as a string in `#otherEtags`. */
  Other = 3,
}

/** The bits of a 53-bit hash above its low 32 (a slot comes from the low ones). */
const highBits = (h: number): number => (h / 4294967296) | 0;

/** `buffer`'s bytes at the start of a new buffer of `size` bytes. */
function resized(buffer: Buffer, size: number): Buffer {
  const out = Buffer.alloc(size);
  buffer.copy(out);
  return out;
}

/** A growable byte column. */
function grow(buffer: Buffer, size: number): Buffer {
  return buffer.length >= size ? buffer : resized(buffer, Math.max(size, buffer.length * 2));
}

/** Row `k` of a column of `width` bytes into row `n` of another, byte by byte: Buffer#copy's own overhead is most of a copy this short. */
function copyRow(from: Buffer, k: number, to: Buffer, n: number, width: number): void {
  for (let b = 0; b < width; b++) to[n * width + b] = from[k * width + b]!;
}

function sameValidators(a: Validators | undefined, b: Validators | undefined): boolean {
  return a?.etag === b?.etag && a?.lastModified === b?.lastModified && a?.item === b?.item && a?.seen === b?.seen && a?.refs === b?.refs;
}

export class FileTable {
  readonly #paths = new StringList();
  /**
   * Open addressing on the paths' hashes (slot by the low bits): per slot, own index + 1 (0:
   * empty) and the hash's high 21 bits, side by side, so a probe reads one cache line.
   */
  #slots: Int32Array;
  #slotCount: number;
  #hashes: Buffer;
  /** Sizes in bytes (Float64: an archive's manifest may claim any size, and must be refused by it, not wrap). */
  #sizes: Float64Array;
  /** Validator columns, made when the first validator is set (a manifest read alone has none). */
  #etagKind = EMPTY;
  #etags = EMPTY;
  readonly #otherEtags = new Map<number, string>();
  readonly #modified = new Map<number, string>();
  #items = EMPTY;
  #hasItem = EMPTY;
  /** Per own entry, `seen` (0: none), 4 bytes little-endian. */
  #seen = EMPTY;
  /** Per own entry, the records its body refers to (null: none); an array, not a map: 320 000 of them at 200 000 servers. */
  #refs: (string | null)[] = [];
  #capacity: number;
  /** Entries stored here (own). */
  #count = 0;
  /** The table this one is derived from, and which of its entries this one holds as they are. */
  readonly #base: FileTable | undefined;
  readonly #present: Uint8Array | undefined;
  #presentCount = 0;
  /**
   * Per base entry held, the run that confirmed it in this table (0: as the base has it): an
   * incremental sync confirms a seventh of its records each run, and a copy of each cost it more
   * than the rest of keeping them.
   */
  #seenOver: Uint32Array | undefined;

  /** `expected`: about how many files the table will hold (it grows beyond as needed). */
  constructor(expected = 1024, base?: FileTable) {
    const capacity = Math.max(16, expected);
    let slots = 16;
    while (slots < capacity * 2) slots *= 2;
    this.#slotCount = slots;
    this.#slots = new Int32Array(slots * 2);
    this.#hashes = Buffer.alloc(capacity * HASH_BYTES);
    this.#sizes = new Float64Array(capacity);
    this.#capacity = capacity;
    this.#base = base;
    this.#present = base ? new Uint8Array(base.size) : undefined;
  }

  /** An empty table whose entries may be taken from `base` at the cost of a bit each. */
  static over(base: FileTable): FileTable {
    return new FileTable(1024, base);
  }

  get size(): number {
    return this.#presentCount + this.#count;
  }

  /**
   * Makes room for `count` own entries at once. A first sync knows its count from the lists: grown
   * by doubling, up to half of every column went unused (11 MB at 200 000 servers), and each
   * doubling held the old columns and the new at once.
   */
  reserve(count: number): void {
    if (count <= this.#capacity) return;
    const sizes = new Float64Array(count);
    sizes.set(this.#sizes.subarray(0, this.#count));
    this.#sizes = sizes;
    this.#hashes = resized(this.#hashes, count * HASH_BYTES);
    this.#capacity = count;
    if (this.#etagKind !== EMPTY) this.#sizeValidators(count);
    let slots = this.#slotCount;
    while (slots < count * 2) slots *= 2;
    if (slots > this.#slotCount) this.#rehash(slots);
  }

  /** Adds or replaces a file; returns its index. `sha256` is hex or 32 raw bytes. */
  set(path: string, sha256: string | Buffer, size: number, validators?: Validators): number {
    const base = this.#base;
    if (base) {
      const j = base.indexOf(path);
      if (j !== undefined) {
        // As the base has it: a bit, no copy.
        if (this.#ownIndexOf(path) === undefined && base.#holds(j, sha256, size) && sameValidators(base.validators(j), validators)) return this.#hold(j);
        this.#drop(j);
      }
    }
    // Hashed once for the lookup and the insertion: a manifest of 360 000 paths is read on every run.
    const h = hash53(path);
    const k = this.#ownIndexOf(path, h) ?? this.#add(path, h);
    this.#write(k, sha256, size);
    this.#setOwnValidators(k, validators);
    return this.#offset + k;
  }

  /**
   * Adds a file the caller knows the table does not hold (a path read after a greater one, say),
   * without the lookup set() makes: reading a manifest of 360 000 files, that lookup cost 60 ms.
   */
  add(path: string, sha256: Buffer, size: number): number {
    if (this.#base) return this.set(path, sha256, size);
    const k = this.#add(path, hash53(path));
    this.#write(k, sha256, size);
    return k;
  }

  #write(k: number, sha256: string | Buffer, size: number): void {
    if (typeof sha256 === 'string') this.#hashes.write(sha256, k * HASH_BYTES, HASH_BYTES, 'hex');
    else {
      // By hand: Buffer#copy's own overhead was most of a 32-byte copy, 0.1 s over a 200 000-server manifest.
      const hashes = this.#hashes;
      const at = k * HASH_BYTES;
      for (let b = 0; b < HASH_BYTES; b++) hashes[at + b] = sha256[b]!;
    }
    this.#sizes[k] = size;
  }

  /**
   * Copies entry `i` of `other` (an earlier snapshot's table), whose path the caller may know.
   * An entry of the base is held as it is, without comparing what set() would compare: a re-sync
   * keeps most of its files so, and decoding their validators again cost it more than the keeping.
   */
  copyFrom(other: FileTable, i: number, path = other.path(i)): number {
    if (other === this.#base && this.#ownIndexOf(path) === undefined) return this.#hold(i);
    return this.set(path, other.#rawHash(i), other.fileSize(i), other.validators(i));
  }

  /**
   * Holds entry `j` of the base as it is, validators included, when the table has nothing under
   * its path yet (`path`: the base's path of `j`); false when it has.
   */
  holdBase(j: number, path: string): boolean {
    if (this.#present![j] || this.#ownIndexOf(path) !== undefined) return false;
    this.#hold(j);
    return true;
  }

  /** Records that entry `i` was fetched or confirmed in run `seen`; its other validators stay. */
  confirm(i: number, seen: number): void {
    if (i >= this.#offset) return this.#setOwnValidators(i - this.#offset, { ...this.validators(i), seen });
    this.#seenOver ??= new Uint32Array(this.#base!.size);
    this.#seenOver[i] = seen;
  }

  /** Replaces the validators of entry `i`. */
  setValidators(i: number, validators: Validators | undefined): void {
    if (i >= this.#offset) return this.#setOwnValidators(i - this.#offset, validators);
    if (sameValidators(this.validators(i), validators)) return;
    this.set(this.#base!.path(i), this.#base!.#rawHash(i), this.#base!.fileSize(i), validators);
  }

  /** The validators of entries `order` (indexes), row n for `order[n]`. */
  validatorColumns(order: readonly number[]): ValidatorColumns {
    const count = order.length;
    const columns: ValidatorColumns = {
      kinds: Buffer.alloc(count * COLUMN_WIDTHS.kinds),
      etags: Buffer.alloc(count * COLUMN_WIDTHS.etags),
      items: Buffer.alloc(count * COLUMN_WIDTHS.items),
      hasItem: Buffer.alloc(count * COLUMN_WIDTHS.hasItem),
      seen: Buffer.alloc(count * COLUMN_WIDTHS.seen),
      otherEtags: new Map(),
      modified: new Map(),
      refs: new Array<string | null>(count).fill(null),
    };
    const base = this.#base;
    // Base entries in their own rows (all of them, when nothing changed) are copied as blocks.
    const blocks = base !== undefined && base.#etagKind !== EMPTY;
    const inBlock = (n: number): boolean => blocks && n < base!.size && order[n] === n;
    for (let n = 0; n < count; ) {
      if (!inBlock(n)) {
        this.#rowInto(order[n]!, columns, n++);
        continue;
      }
      let end = n;
      while (end < count && inBlock(end)) end++;
      for (const [name, width] of Object.entries(COLUMN_WIDTHS)) base!.#column(name as keyof typeof COLUMN_WIDTHS).copy(columns[name as keyof typeof COLUMN_WIDTHS], n * width, n * width, end * width);
      for (let j = n; j < end; j++) {
        const seen = this.#seenOver?.[j];
        if (seen) columns.seen.writeUInt32LE(seen, j * 4);
      }
      n = end;
    }
    if (blocks) {
      for (const [k, etag] of base!.#otherEtags) if (inBlock(k)) columns.otherEtags.set(k, etag);
      for (const [k, modified] of base!.#modified) if (inBlock(k)) columns.modified.set(k, modified);
      base!.#refs.forEach((refs, k) => {
        if (refs !== null && inBlock(k)) columns.refs[k] = refs;
      });
    }
    return columns;
  }

  /** One of the own validator columns, by its name in ValidatorColumns. */
  #column(name: keyof typeof COLUMN_WIDTHS): Buffer {
    return { kinds: this.#etagKind, etags: this.#etags, items: this.#items, hasItem: this.#hasItem, seen: this.#seen }[name];
  }

  /**
   * Takes the validators of every entry from `columns`, row k for entry k: for a table read from
   * a manifest, whose rows are in its order. False, with nothing taken, when the columns do not
   * fit the table (a row count or width off, an unknown kind).
   */
  loadValidatorColumns(columns: ValidatorColumns): boolean {
    const count = this.#count;
    if (this.#base || this.#etagKind !== EMPTY) return false;
    for (const [name, width] of Object.entries(COLUMN_WIDTHS)) if (columns[name as keyof typeof COLUMN_WIDTHS].length !== count * width) return false;
    if (columns.refs.length !== count) return false;
    // Every Other kind has its ETag and every ETag its Other kind: counted, not looked up row by row.
    let others = 0;
    for (let k = 0; k < count; k++) {
      const kind = columns.kinds[k]!;
      if (kind > Etag.Other || columns.hasItem[k]! > 1) return false;
      if (kind === Etag.Other) others++;
    }
    if (others !== columns.otherEtags.size) return false;
    for (const k of columns.otherEtags.keys()) if (!(Number.isSafeInteger(k) && k >= 0 && k < count && columns.kinds[k] === Etag.Other)) return false;
    for (const k of columns.modified.keys()) if (!(Number.isSafeInteger(k) && k >= 0 && k < count)) return false;
    this.#etagKind = columns.kinds;
    this.#etags = columns.etags;
    this.#items = columns.items;
    this.#hasItem = columns.hasItem;
    // Adopted as they are, not grown to the capacity: a table read from a manifest rarely gains an
    // entry, and growing doubled these columns (12 MB at 200 000 servers). An entry beyond them
    // makes the room when it gets validators.
    this.#seen = columns.seen;
    for (const [k, etag] of columns.otherEtags) this.#otherEtags.set(k, etag);
    for (const [k, date] of columns.modified) this.#modified.set(k, date);
    // Adopted as it is: an empty string is no reference, as set() has it.
    this.#refs = columns.refs.map((refs) => refs || null);
    return true;
  }

  indexOf(path: string): number | undefined {
    const k = this.#ownIndexOf(path);
    if (k !== undefined) return this.#offset + k;
    const j = this.#base?.indexOf(path);
    return j !== undefined && this.#present![j] ? j : undefined;
  }

  has(path: string): boolean {
    return this.indexOf(path) !== undefined;
  }

  path(i: number): string {
    return i < this.#offset ? this.#base!.path(i) : this.#paths.at(i - this.#offset);
  }

  sha256(i: number): string {
    return this.#rawHash(i).toString('hex');
  }

  fileSize(i: number): number {
    return i < this.#offset ? this.#base!.fileSize(i) : this.#sizes[i - this.#offset]!;
  }

  validators(i: number): Validators | undefined {
    if (i < this.#offset) {
      const seen = this.#seenOver?.[i];
      return seen ? { ...this.#base!.validators(i), seen } : this.#base!.validators(i);
    }
    const k = i - this.#offset;
    if (this.#etagKind === EMPTY) return undefined;
    const kind = this.#etagKind[k]!;
    let etag: string | undefined;
    if (kind === Etag.Weak || kind === Etag.Strong) etag = `${kind === Etag.Weak ? 'W/' : ''}"${this.#etags.toString('hex', k * ETAG_BYTES, (k + 1) * ETAG_BYTES)}"`;
    else if (kind === Etag.Other) etag = this.#otherEtags.get(k);
    const lastModified = this.#modified.get(k);
    const item = this.#hasItem[k] ? this.#items.toString('base64url', k * ITEM_BYTES, (k + 1) * ITEM_BYTES) : undefined;
    const seen = this.#seen.readUInt32LE(k * 4) || undefined;
    const refs = this.#refs[k] ?? undefined;
    if (etag === undefined && lastModified === undefined && item === undefined && seen === undefined) return undefined;
    return { etag, lastModified, item, seen, refs };
  }

  /**
   * Whether entry `i` was checked against the list item whose digest is `digest` (its 12 raw bytes,
   * see sync/plan.ts): compared in place, since a re-sync asks it of every record.
   */
  checkedWith(i: number, digest: Buffer): boolean {
    if (i < this.#offset) return this.#base!.checkedWith(i, digest);
    const k = i - this.#offset;
    if (this.#hasItem === EMPTY || !this.#hasItem[k]) return false;
    return this.#items.compare(digest, 0, ITEM_BYTES, k * ITEM_BYTES, (k + 1) * ITEM_BYTES) === 0;
  }

  /** Whether entry `i` records the digest of the list item it was checked against. */
  hasItem(i: number): boolean {
    if (i < this.#offset) return this.#base!.hasItem(i);
    const k = i - this.#offset;
    return this.#hasItem !== EMPTY && this.#hasItem[k] === 1;
  }

  /** The run that last fetched or confirmed entry `i` (0: unknown), without decoding the rest. */
  seen(i: number): number {
    if (i < this.#offset) return this.#seenOver?.[i] || this.#base!.seen(i);
    return this.#seen === EMPTY ? 0 : this.#seen.readUInt32LE((i - this.#offset) * 4);
  }

  /** The references of entry `i` (see Validators.refs). */
  refs(i: number): string | undefined {
    return i < this.#offset ? this.#base!.refs(i) : (this.#refs[i - this.#offset] ?? undefined);
  }

  /** Whether entry `i` has validators to ask "changed since?" with (an ETag or a Last-Modified). */
  askable(i: number): boolean {
    if (i < this.#offset) return this.#base!.askable(i);
    const k = i - this.#offset;
    return this.#etagKind !== EMPTY && (this.#etagKind[k] !== Etag.None || this.#modified.has(k));
  }

  /** Whether entry `i` here holds the same bytes as entry `j` of `other`. */
  sameBytes(i: number, other: FileTable, j: number): boolean {
    return this.fileSize(i) === other.fileSize(j) && this.#rawHash(i).equals(other.#rawHash(j));
  }

  /** Whether entry `i` has this digest (hex, or 32 raw bytes) and size. */
  hasBytes(i: number, sha256: string | Buffer, size: number): boolean {
    return this.#holds(i, sha256, size);
  }

  /** Whether the file at `path` has this digest (hex) and size. */
  matches(path: string, sha256: string, size: number): boolean {
    const i = this.indexOf(path);
    return i !== undefined && this.fileSize(i) === size && this.sha256(i) === sha256;
  }

  /**
   * What this table, derived from `base`, holds otherwise than the base: its own entries (added,
   * or replacing one of the base's) and the base's entries it neither holds nor replaces, each in
   * order. What it holds as the base had it is not visited (a re-sync keeps most files so).
   * Undefined when `base` is not the table's base.
   */
  changesFrom(base: FileTable): { own: number[]; dropped: number[] } | undefined {
    if (base !== this.#base) return undefined;
    const own = Array.from({ length: this.#count }, (_, k) => this.#offset + k);
    const dropped: number[] = [];
    for (let j = 0; j < base.size; j++) if (!this.#present![j] && this.#ownIndexOf(base.path(j)) === undefined) dropped.push(j);
    return { own, dropped };
  }

  /** Every path: the base's held ones, then the table's own, each in insertion order. */
  *paths(): Generator<string> {
    const base = this.#base;
    if (base) for (let j = 0; j < base.size; j++) if (this.#present![j]) yield base.path(j);
    yield* this.#paths;
  }

  /** Every path as a span, in the order `paths` gives, without making the strings. */
  pathSpans(): Spans {
    return (visit) => {
      if (this.#base) this.#base.#paths.forEachSpan(visit, this.#present);
      this.#paths.forEachSpan(visit);
    };
  }

  /** Every entry as [index, path], in the order `paths` gives. */
  *entries(): Generator<[number, string]> {
    for (const i of this.#indexes()) yield [i, this.path(i)];
  }

  /** Every index, in the order `paths` gives. */
  *#indexes(): Generator<number> {
    if (this.#base) for (let j = 0; j < this.#base.size; j++) if (this.#present![j]) yield j;
    for (let k = 0; k < this.#count; k++) yield this.#offset + k;
  }

  /** Indexes in code-unit order of their paths: the manifest's order. */
  sortedIndexes(): number[] {
    const base = this.#base;
    if (!base) return this.#ownSorted();
    // The base part is in order already (read from a manifest): merge the own entries into it.
    const own = this.#ownSorted().map((k) => this.#offset + k);
    const out: number[] = [];
    let next = 0;
    let nextPath = next < own.length ? this.path(own[next]!) : undefined;
    let previous = '';
    for (let j = 0; j < base.size; j++) {
      if (!this.#present![j]) continue;
      const path = base.path(j);
      if (path < previous) return this.#sortAll();
      previous = path;
      while (nextPath !== undefined && nextPath < path) {
        out.push(own[next++]!);
        nextPath = next < own.length ? this.path(own[next]!) : undefined;
      }
      out.push(j);
    }
    while (next < own.length) out.push(own[next++]!);
    return out;
  }

  /** Own entries (local indexes) by path: as they are when already in order (a table read from a manifest). */
  #ownSorted(): number[] {
    const order = Array.from({ length: this.#count }, (_, k) => k);
    let previous = '';
    for (let k = 0; k < this.#count; k++) {
      const path = this.#paths.at(k);
      if (k > 0 && !(previous < path)) {
        const paths = Array.from(this.#paths);
        return order.sort((a, b) => (paths[a]! < paths[b]! ? -1 : paths[a]! > paths[b]! ? 1 : 0));
      }
      previous = path;
    }
    return order;
  }

  /** Every index by path, the slow way (a base out of order). */
  #sortAll(): number[] {
    const order = [...this.#indexes()];
    const paths = order.map((i) => this.path(i));
    const positions = order.map((_, n) => n).sort((a, b) => (paths[a]! < paths[b]! ? -1 : paths[a]! > paths[b]! ? 1 : 0));
    return positions.map((n) => order[n]!);
  }

  get #offset(): number {
    return this.#base?.size ?? 0;
  }

  #rawHash(i: number): Buffer {
    return i < this.#offset ? this.#base!.#rawHash(i) : this.#hashes.subarray((i - this.#offset) * HASH_BYTES, (i - this.#offset + 1) * HASH_BYTES);
  }

  /** Whether own-or-base entry `i` holds this digest and size. */
  #holds(i: number, sha256: string | Buffer, size: number): boolean {
    if (this.fileSize(i) !== size) return false;
    return typeof sha256 === 'string' ? this.sha256(i) === sha256 : this.#rawHash(i).equals(sha256.subarray(0, HASH_BYTES));
  }

  /** Copies entry `i`'s validators into row `n` of `columns`. */
  #rowInto(i: number, columns: ValidatorColumns, n: number): void {
    if (i < this.#offset) {
      this.#base!.#rowInto(i, columns, n);
      const seen = this.#seenOver?.[i];
      if (seen) columns.seen.writeUInt32LE(seen, n * 4);
      return;
    }
    const k = i - this.#offset;
    if (this.#etagKind === EMPTY) return;
    const kind = this.#etagKind[k]!;
    columns.kinds[n] = kind;
    if (kind === Etag.Weak || kind === Etag.Strong) copyRow(this.#etags, k, columns.etags, n, ETAG_BYTES);
    else if (kind === Etag.Other) columns.otherEtags.set(n, this.#otherEtags.get(k)!);
    if (this.#hasItem[k]) {
      columns.hasItem[n] = 1;
      copyRow(this.#items, k, columns.items, n, ITEM_BYTES);
    }
    copyRow(this.#seen, k, columns.seen, n, 4);
    const modified = this.#modified.get(k);
    if (modified !== undefined) columns.modified.set(n, modified);
    const refs = this.#refs[k] ?? undefined;
    if (refs !== undefined) columns.refs[n] = refs;
  }

  /** Holds base entry `j` as it is. */
  #hold(j: number): number {
    if (this.#seenOver) this.#seenOver[j] = 0;
    if (!this.#present![j]) {
      this.#present![j] = 1;
      this.#presentCount++;
    }
    return j;
  }

  /** Lets go of base entry `j` (it is replaced by one of the table's own). */
  #drop(j: number): void {
    if (this.#seenOver) this.#seenOver[j] = 0;
    if (!this.#present![j]) return;
    this.#present![j] = 0;
    this.#presentCount--;
  }

  #ownIndexOf(path: string, h = hash53(path)): number | undefined {
    if (this.#count === 0) return undefined;
    const slots = this.#slots;
    const mask = this.#slotCount - 1;
    const high = highBits(h);
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const entry = slots[2 * slot]!;
      if (entry === 0) return undefined;
      if (slots[2 * slot + 1] === high && this.#paths.equals(entry - 1, path)) return entry - 1;
    }
  }

  #setOwnValidators(k: number, validators: Validators | undefined): void {
    if (this.#etagKind.length <= k) {
      if (this.#etagKind === EMPTY && validators === undefined) return;
      this.#sizeValidators(this.#capacity);
    }
    this.#otherEtags.delete(k);
    this.#modified.delete(k);
    this.#refs[k] = validators?.refs || null;
    this.#seen.writeUInt32LE(validators?.seen ?? 0, k * 4);
    const etag = validators?.etag;
    const hex = etag === undefined ? undefined : HEX32_ETAG.exec(etag);
    if (etag === undefined) this.#etagKind[k] = Etag.None;
    else if (hex) {
      this.#etagKind[k] = hex[1] ? Etag.Weak : Etag.Strong;
      this.#etags.write(hex[2]!, k * ETAG_BYTES, ETAG_BYTES, 'hex');
    } else {
      this.#etagKind[k] = Etag.Other;
      this.#otherEtags.set(k, etag);
    }
    if (validators?.lastModified !== undefined) this.#modified.set(k, validators.lastModified);
    const item = validators?.item;
    this.#hasItem[k] = item !== undefined && item.length === 16 && this.#items.write(item, k * ITEM_BYTES, ITEM_BYTES, 'base64url') === ITEM_BYTES ? 1 : 0;
  }

  #add(path: string, h: number): number {
    const k = this.#count++;
    this.#paths.push(path);
    if (this.#sizes.length < this.#count) {
      const sizes = new Float64Array(this.#sizes.length * 2);
      sizes.set(this.#sizes);
      this.#sizes = sizes;
    }
    this.#hashes = grow(this.#hashes, this.#count * HASH_BYTES);
    if (this.#count > this.#capacity) {
      this.#capacity = this.#sizes.length;
      if (this.#etagKind !== EMPTY) this.#sizeValidators(this.#capacity);
    }
    if (this.#count * 2 > this.#slotCount) this.#rehash(this.#slotCount * 2);
    this.#place(h, k);
    return k;
  }

  #sizeValidators(capacity: number): void {
    this.#etagKind = grow(this.#etagKind, capacity);
    this.#etags = grow(this.#etags, capacity * ETAG_BYTES);
    this.#items = grow(this.#items, capacity * ITEM_BYTES);
    this.#hasItem = grow(this.#hasItem, capacity);
    this.#seen = grow(this.#seen, capacity * 4);
  }

  #place(h: number, k: number): void {
    const slots = this.#slots;
    const mask = this.#slotCount - 1;
    let slot = h & mask;
    while (slots[2 * slot] !== 0) slot = (slot + 1) & mask;
    slots[2 * slot] = k + 1;
    slots[2 * slot + 1] = highBits(h);
  }

  #rehash(size: number): void {
    const old = this.#slots;
    this.#slotCount = size;
    this.#slots = new Int32Array(size * 2);
    // The full hash is not kept per slot; it comes again from the path.
    for (let at = 0; at < old.length; at += 2) if (old[at] !== 0) this.#place(hash53(this.#paths.at(old[at]! - 1)), old[at]! - 1);
  }
}
