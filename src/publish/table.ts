/**
 * A compact table of a snapshot's files: path → sha256 and size, plus the HTTP validators of the
 * response behind each file. A snapshot of 200 000 servers lists 360 000 files: as one object per
 * file with hex strings it cost about 200 bytes each, and a re-sync holds two such tables. Here
 * paths sit joined in a few long strings, found through an open-addressing index of their 53-bit
 * hashes; digests, sizes and the usual forms of validators are raw bytes in shared buffers.
 */
import { hash53, StringList } from '../util/string-set.js';

const HASH_BYTES = 32;
/** A list item's digest (see sync/plan.ts itemDigest): 16 base64url characters, 12 bytes. */
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
}

const enum Etag {
  None = 0,
  Weak = 1,
  Strong = 2,
  /** Kept as a string in `#otherEtags`. */
  Other = 3,
}

/** A growable byte column. */
function grow(buffer: Buffer, size: number): Buffer {
  if (buffer.length >= size) return buffer;
  const grown = Buffer.alloc(Math.max(size, buffer.length * 2));
  buffer.copy(grown);
  return grown;
}

export class FileTable {
  readonly #paths = new StringList();
  /** Open addressing on the paths' hashes: slot → index + 1 (0: empty), and the hash's low 32 bits. */
  #slots: Int32Array;
  #slotHashes: Uint32Array;
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
  #capacity: number;
  #count = 0;

  /** `expected`: about how many files the table will hold (it grows beyond as needed). */
  constructor(expected = 1024) {
    const capacity = Math.max(16, expected);
    let slots = 16;
    while (slots < capacity * 2) slots *= 2;
    this.#slots = new Int32Array(slots);
    this.#slotHashes = new Uint32Array(slots);
    this.#hashes = Buffer.alloc(capacity * HASH_BYTES);
    this.#sizes = new Float64Array(capacity);
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#count;
  }

  /** Adds or replaces a file; returns its index. `sha256` is hex or 32 raw bytes. */
  set(path: string, sha256: string | Buffer, size: number, validators?: Validators): number {
    let i = this.indexOf(path);
    if (i === undefined) i = this.#add(path);
    if (typeof sha256 === 'string') this.#hashes.write(sha256, i * HASH_BYTES, HASH_BYTES, 'hex');
    else sha256.copy(this.#hashes, i * HASH_BYTES, 0, HASH_BYTES);
    this.#sizes[i] = size;
    this.setValidators(i, validators);
    return i;
  }

  /** Copies entry `i` of `other` (an earlier snapshot's table). */
  copyFrom(other: FileTable, i: number): number {
    return this.set(other.path(i), other.#hashes.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES), other.#sizes[i]!, other.validators(i));
  }

  setValidators(i: number, validators: Validators | undefined): void {
    if (this.#etagKind === EMPTY) {
      if (validators === undefined) return;
      this.#sizeValidators(this.#capacity);
    }
    this.#otherEtags.delete(i);
    this.#modified.delete(i);
    const etag = validators?.etag;
    const hex = etag === undefined ? undefined : HEX32_ETAG.exec(etag);
    if (etag === undefined) this.#etagKind[i] = Etag.None;
    else if (hex) {
      this.#etagKind[i] = hex[1] ? Etag.Weak : Etag.Strong;
      this.#etags.write(hex[2]!, i * ETAG_BYTES, ETAG_BYTES, 'hex');
    } else {
      this.#etagKind[i] = Etag.Other;
      this.#otherEtags.set(i, etag);
    }
    if (validators?.lastModified !== undefined) this.#modified.set(i, validators.lastModified);
    const item = validators?.item;
    this.#hasItem[i] = item !== undefined && item.length === 16 && this.#items.write(item, i * ITEM_BYTES, ITEM_BYTES, 'base64url') === ITEM_BYTES ? 1 : 0;
  }

  indexOf(path: string): number | undefined {
    const mask = this.#slots.length - 1;
    const h = hash53(path);
    const low = h >>> 0;
    for (let slot = h % (mask + 1); ; slot = (slot + 1) & mask) {
      const entry = this.#slots[slot]!;
      if (entry === 0) return undefined;
      if (this.#slotHashes[slot] === low && this.#paths.equals(entry - 1, path)) return entry - 1;
    }
  }

  has(path: string): boolean {
    return this.indexOf(path) !== undefined;
  }

  path(i: number): string {
    return this.#paths.at(i);
  }

  sha256(i: number): string {
    return this.#hashes.toString('hex', i * HASH_BYTES, (i + 1) * HASH_BYTES);
  }

  fileSize(i: number): number {
    return this.#sizes[i]!;
  }

  validators(i: number): Validators | undefined {
    if (this.#etagKind === EMPTY) return undefined;
    const kind = this.#etagKind[i]!;
    let etag: string | undefined;
    if (kind === Etag.Weak || kind === Etag.Strong) etag = `${kind === Etag.Weak ? 'W/' : ''}"${this.#etags.toString('hex', i * ETAG_BYTES, (i + 1) * ETAG_BYTES)}"`;
    else if (kind === Etag.Other) etag = this.#otherEtags.get(i);
    const lastModified = this.#modified.get(i);
    const item = this.#hasItem[i] ? this.#items.toString('base64url', i * ITEM_BYTES, (i + 1) * ITEM_BYTES) : undefined;
    if (etag === undefined && lastModified === undefined && item === undefined) return undefined;
    return { etag, lastModified, item };
  }

  /** Whether entry `i` here holds the same bytes as entry `j` of `other`. */
  sameBytes(i: number, other: FileTable, j: number): boolean {
    return this.#sizes[i] === other.#sizes[j] && this.#hashes.compare(other.#hashes, j * HASH_BYTES, (j + 1) * HASH_BYTES, i * HASH_BYTES, (i + 1) * HASH_BYTES) === 0;
  }

  /** Whether the file at `path` has this digest (hex) and size. */
  matches(path: string, sha256: string, size: number): boolean {
    const i = this.indexOf(path);
    return i !== undefined && this.#sizes[i] === size && this.sha256(i) === sha256;
  }

  /** Every path, in insertion order. */
  paths(): Iterable<string> {
    return this.#paths;
  }

  /** Indexes in code-unit order of their paths: the manifest's order. */
  sortedIndexes(): number[] {
    const order = Array.from({ length: this.#count }, (_, i) => i);
    // A table read from a manifest is in this order already: no need to sort (or to build 360 000 strings).
    let sorted = true;
    let previous = '';
    for (let i = 0; i < this.#count && sorted; i++) {
      const path = this.#paths.at(i);
      if (i > 0 && !(previous < path)) sorted = false;
      previous = path;
    }
    if (sorted) return order;
    const paths = Array.from(this.#paths);
    return order.sort((a, b) => (paths[a]! < paths[b]! ? -1 : paths[a]! > paths[b]! ? 1 : 0));
  }

  #add(path: string): number {
    const i = this.#count++;
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
    if (this.#count * 2 > this.#slots.length) this.#rehash(this.#slots.length * 2);
    this.#place(hash53(path), i);
    return i;
  }

  #sizeValidators(capacity: number): void {
    this.#etagKind = grow(this.#etagKind, capacity);
    this.#etags = grow(this.#etags, capacity * ETAG_BYTES);
    this.#items = grow(this.#items, capacity * ITEM_BYTES);
    this.#hasItem = grow(this.#hasItem, capacity);
  }

  #place(h: number, i: number): void {
    const mask = this.#slots.length - 1;
    let slot = h % (mask + 1);
    while (this.#slots[slot] !== 0) slot = (slot + 1) & mask;
    this.#slots[slot] = i + 1;
    this.#slotHashes[slot] = h >>> 0;
  }

  #rehash(size: number): void {
    const oldSlots = this.#slots;
    this.#slots = new Int32Array(size);
    this.#slotHashes = new Uint32Array(size);
    // The full hash is not kept per slot; it comes again from the path.
    for (let slot = 0; slot < oldSlots.length; slot++) if (oldSlots[slot] !== 0) this.#place(hash53(this.#paths.at(oldSlots[slot]! - 1)), oldSlots[slot]! - 1);
  }
}
