/**
 * The manifest as serve looks files up in it: path → sha256 and size, read-only, in a few flat
 * arrays. At 200 000 servers the manifest lists 360 000 files; a FileTable (one string per path,
 * a Map over them, validator columns) costs about 60 MB of heap for them, this about half: the
 * paths are one string, found through an open-addressing table of positions.
 */
import type { ManifestSink } from '../publish/manifest-fast.js';
import { TextBuilder } from './list-index.js';

const HASH_BYTES = 32;

/** FNV-1a over the UTF-16 code units of `text[from, to)`. */
function hashOf(text: string, from: number, to: number): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export class ManifestIndex {
  readonly #mask: number;

  constructor(
    /** Every path, joined: path i is `text.slice(starts[i], starts[i + 1])`. */
    readonly text: string,
    readonly starts: Uint32Array,
    /** sha256 of file i at `32 * i`. */
    readonly hashes: Buffer,
    readonly sizes: Float64Array,
    /** Open addressing: 1 + the index of a path at its hash's slot or after it; 0 is empty. */
    readonly slots: Int32Array,
    /** One path in each folder that holds files: enough to check every folder on the way. */
    readonly folderSamples: readonly string[],
  ) {
    this.#mask = slots.length - 1;
  }

  get size(): number {
    return this.sizes.length;
  }

  /** The index of `path`, or undefined when the manifest does not list it. */
  indexOf(path: string): number | undefined {
    const { text, starts, slots } = this;
    let slot = hashOf(path, 0, path.length) & this.#mask;
    for (;;) {
      const at = slots[slot]!;
      if (at === 0) return undefined;
      const i = at - 1;
      if (starts[i + 1]! - starts[i]! === path.length && text.startsWith(path, starts[i])) return i;
      slot = (slot + 1) & this.#mask;
    }
  }

  has(path: string): boolean {
    return this.indexOf(path) !== undefined;
  }

  path(i: number): string {
    return this.text.slice(this.starts[i]!, this.starts[i + 1]!);
  }

  sha256(i: number): string {
    return this.hashes.toString('hex', i * HASH_BYTES, (i + 1) * HASH_BYTES);
  }

  fileSize(i: number): number {
    return this.sizes[i]!;
  }
}

/** Builds a ManifestIndex from a manifest's entries (see readManifestInto). */
export function manifestIndexSink(): ManifestSink<ManifestIndex> {
  const paths = new TextBuilder();
  let starts = new Uint32Array(4096 + 1);
  let n = 0;
  let hashes = Buffer.alloc(HASH_BYTES * 4096);
  let sizes = new Float64Array(4096);
  const folders = new Map<string, string>();
  let lastFolder = '';
  // A path listed twice is found once the table is built (done gives undefined).
  return {
    add(path, sha256, size) {
      if (n === sizes.length) {
        const grown = new Float64Array(n * 2);
        grown.set(sizes);
        sizes = grown;
        const more = Buffer.alloc(hashes.length * 2);
        hashes.copy(more);
        hashes = more;
        const moreStarts = new Uint32Array(n * 2 + 1);
        moreStarts.set(starts);
        starts = moreStarts;
      }
      starts[n] = paths.length;
      paths.push(path);
      sha256.copy(hashes, n * HASH_BYTES, 0, HASH_BYTES);
      sizes[n] = size;
      n++;
      const cut = path.lastIndexOf('/');
      // The manifest is sorted, so a folder's files mostly come in a run.
      if (cut !== -1 && !(lastFolder.length === cut && path.startsWith(lastFolder))) {
        lastFolder = path.slice(0, cut);
        if (!folders.has(lastFolder)) folders.set(lastFolder, path);
      }
      return true;
    },
    done() {
      starts[n] = paths.length;
      starts = starts.slice(0, n + 1);
      const text = paths.finish();
      let capacity = 1024;
      while (capacity < n * 2) capacity *= 2;
      const slots = new Int32Array(capacity);
      const mask = capacity - 1;
      for (let i = 0; i < n; i++) {
        const from = starts[i]!;
        const to = starts[i + 1]!;
        let slot = hashOf(text, from, to) & mask;
        for (let at = slots[slot]!; at !== 0; at = slots[slot]!) {
          // A path listed twice: not a manifest of ours.
          if (sameText(text, starts[at - 1]!, starts[at]!, from, to)) return undefined;
          slot = (slot + 1) & mask;
        }
        slots[slot] = i + 1;
      }
      return new ManifestIndex(text, starts, Buffer.from(hashes.subarray(0, n * HASH_BYTES)), sizes.slice(0, n), slots, [...folders.values()]);
    },
  };
}

/** Whether `text[a, b)` and `text[c, d)` are the same. */
function sameText(text: string, a: number, b: number, c: number, d: number): boolean {
  if (b - a !== d - c) return false;
  for (let k = 0; k < b - a; k++) if (text.charCodeAt(a + k) !== text.charCodeAt(c + k)) return false;
  return true;
}
