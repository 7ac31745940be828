/**
 * A compact table of a snapshot's files: path → sha256 and size, plus the HTTP validators of the
 * response behind each file. A snapshot of 200 000 servers lists 360 000 files; as one object per
 * file with a hex digest string it cost about 180 bytes each, here the digest is 32 raw bytes in
 * a shared buffer and the rest sits in flat arrays.
 */

const HASH_BYTES = 32;

/** What the next sync sends to ask "changed since?", and the list item the file was checked with. */
export interface Validators {
  etag?: string | undefined;
  lastModified?: string | undefined;
  /** Digest of the list item a record was checked against (records only). */
  item?: string | undefined;
}

export class FileTable {
  readonly #index = new Map<string, number>();
  readonly #paths: string[] = [];
  #hashes = Buffer.alloc(HASH_BYTES * 1024);
  readonly #sizes: number[] = [];
  readonly #etags: (string | undefined)[] = [];
  readonly #modified: (string | undefined)[] = [];
  readonly #items: (string | undefined)[] = [];

  get size(): number {
    return this.#paths.length;
  }

  /** Adds or replaces a file; returns its index. `sha256` is hex or 32 raw bytes. */
  set(path: string, sha256: string | Buffer, size: number, validators?: Validators): number {
    let i = this.#index.get(path);
    if (i === undefined) {
      i = this.#paths.length;
      this.#index.set(path, i);
      this.#paths.push(path);
      if (this.#hashes.length < (i + 1) * HASH_BYTES) {
        const grown = Buffer.alloc(this.#hashes.length * 2);
        this.#hashes.copy(grown);
        this.#hashes = grown;
      }
    }
    if (typeof sha256 === 'string') this.#hashes.write(sha256, i * HASH_BYTES, HASH_BYTES, 'hex');
    else sha256.copy(this.#hashes, i * HASH_BYTES, 0, HASH_BYTES);
    this.#sizes[i] = size;
    this.setValidators(i, validators);
    return i;
  }

  /** Copies entry `i` of `other` (an earlier snapshot's table) under the same path string. */
  copyFrom(other: FileTable, i: number): number {
    return this.set(other.path(i), other.#hashes.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES), other.#sizes[i]!, other.validators(i));
  }

  setValidators(i: number, validators: Validators | undefined): void {
    this.#etags[i] = validators?.etag;
    this.#modified[i] = validators?.lastModified;
    this.#items[i] = validators?.item;
  }

  indexOf(path: string): number | undefined {
    return this.#index.get(path);
  }

  has(path: string): boolean {
    return this.#index.has(path);
  }

  path(i: number): string {
    return this.#paths[i]!;
  }

  sha256(i: number): string {
    return this.#hashes.toString('hex', i * HASH_BYTES, (i + 1) * HASH_BYTES);
  }

  fileSize(i: number): number {
    return this.#sizes[i]!;
  }

  validators(i: number): Validators | undefined {
    const etag = this.#etags[i];
    const lastModified = this.#modified[i];
    const item = this.#items[i];
    if (etag === undefined && lastModified === undefined && item === undefined) return undefined;
    return { etag, lastModified, item };
  }

  /** Whether entry `i` here holds the same bytes as entry `j` of `other`. */
  sameBytes(i: number, other: FileTable, j: number): boolean {
    return this.#sizes[i] === other.#sizes[j] && this.#hashes.compare(other.#hashes, j * HASH_BYTES, (j + 1) * HASH_BYTES, i * HASH_BYTES, (i + 1) * HASH_BYTES) === 0;
  }

  /** Whether the file at `path` has this digest (hex) and size. */
  matches(path: string, sha256: string, size: number): boolean {
    const i = this.#index.get(path);
    return i !== undefined && this.#sizes[i] === size && this.sha256(i) === sha256;
  }

  /** Every path, in insertion order. */
  paths(): readonly string[] {
    return this.#paths;
  }

  /** Indexes in code-unit order of their paths: the manifest's order. */
  sortedIndexes(): number[] {
    const order = this.#paths.map((_, i) => i);
    const paths = this.#paths;
    return order.sort((a, b) => (paths[a]! < paths[b]! ? -1 : paths[a]! > paths[b]! ? 1 : 0));
  }
}
