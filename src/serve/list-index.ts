/**
 * A compact index of one published list-shaped file (`{"servers": [ ... ]}`), built by streaming
 * it once: per item its id, byte offset and length in the file, and the values of the substring
 * filter fields, in flat and typed arrays rather than an object per record. 200 000 servers cost a
 * few MB here, against the 150 MB of the file and several times that parsed.
 *
 * It reads the published form (encodeJson: two-space indent, list items at depth 2). There a
 * string holds no raw newline and nesting shows in the indent, so an item opens on a line `    {`,
 * closes on the first line `    }` after it, and its own keys are the lines indented by six spaces:
 * `\n      "name": `. Items follow one another with `,\n    ` between them, so the bytes from one
 * item to a later one are what encodeJson writes for the items in between. A file not in that form
 * is refused (ListFormatError), never guessed at.
 */
import { intersect, type Selectable } from '../index/query.js';
import { closingQuote, stringBetween } from '../json/scan.js';
import { Carry } from '../util/carry.js';

/** The file is not in the published form of a list. */
export class ListFormatError extends Error {}

const COMMA = 0x2c;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;

/** What separates two items in the file: the comma, a newline and the item indent. */
export const ITEM_GAP = ',\n    ';
const ITEM_OPEN = Buffer.from('\n    {\n      "');
const ITEM_CLOSE = Buffer.from('\n    }');
const LIST_CLOSE = Buffer.from('\n  ]');
/** Separates the values of one field in FieldIndex.text; a term holding it is checked value by value. */
const SEPARATOR = '\u0000';

/**
 * Strings joined as they come, a batch at a time: the many small strings die young and only the
 * batches live until the end, so building a 200 000-value text leaves little garbage behind.
 */
class TextBuilder {
  #batch: string[] = [];
  readonly #parts: string[] = [];
  #length = 0;

  constructor(readonly separator = '') {}

  /** Text length so far (what the next string's start will be, once its separator is counted). */
  get length(): number {
    return this.#length;
  }

  push(text: string): void {
    this.#length += text.length + (this.#length > 0 || this.#batch.length > 0 || this.#parts.length > 0 ? this.separator.length : 0);
    this.#batch.push(text);
    if (this.#batch.length === 256) {
      this.#parts.push(this.#batch.join(this.separator));
      this.#batch = [];
    }
  }

  finish(): string {
    if (this.#batch.length > 0) this.#parts.push(this.#batch.join(this.separator));
    this.#batch = [];
    return this.#parts.splice(0).join(this.separator);
  }
}

/** A typed array that grows by doubling: typed storage without knowing the count in advance. */
class Grow<T extends Float64Array | Uint32Array | Uint8Array> {
  length = 0;
  constructor(
    public array: T,
    private readonly make: (size: number) => T,
  ) {}

  push(value: number): void {
    if (this.length === this.array.length) {
      const grown = this.make(this.array.length * 2);
      grown.set(this.array);
      this.array = grown;
    }
    this.array[this.length++] = value;
  }

  done(): T {
    return this.array.slice(0, this.length) as T;
  }
}

/** One substring-filter field of every item: values joined in one string, so a term is found with indexOf. */
export class FieldIndex {
  constructor(
    /** The values (lowercased unless case-sensitive) joined by SEPARATOR; a non-string value is empty. */
    readonly text: string,
    /** Where value i starts in `text`; `starts[count]` is `text.length + 1`. */
    readonly starts: Uint32Array,
    /** 1 where the item's value is a string (only strings match, even the empty term). */
    readonly strings: Uint8Array,
  ) {}

  get count(): number {
    return this.strings.length;
  }

  /** Whether item i's value holds `term` (already lowercased when the index is). */
  holds(i: number, term: string): boolean {
    return this.strings[i] === 1 && this.text.slice(this.starts[i]!, this.starts[i + 1]! - 1).includes(term);
  }

  /** The items, in order, whose value holds `term`; among `among` only, when given. */
  matching(term: string, among?: Int32Array): Int32Array {
    const n = this.count;
    if (among && among.length * 8 < n) return among.filter((i) => this.holds(i, term));
    let found: Int32Array;
    if (term === '' || term.includes(SEPARATOR)) {
      const out: number[] = [];
      for (let i = 0; i < n; i++) if (this.holds(i, term)) out.push(i);
      found = Int32Array.from(out);
    } else {
      // One indexOf over all values; after a hit, go on from the next value, so each item counts once.
      const out = new Grow(new Uint32Array(64), (size) => new Uint32Array(size));
      const { text, starts } = this;
      let at = text.indexOf(term);
      let item = 0;
      while (at !== -1) {
        item = valueAt(starts, at, item);
        out.push(item);
        if (item + 1 >= n) break;
        at = text.indexOf(term, starts[item + 1]!);
      }
      found = new Int32Array(out.done());
    }
    return among ? intersect(among, found) : found;
  }
}

/** The value holding text position `at`: the last start at or before it, searched from `from`. */
function valueAt(starts: Uint32Array, at: number, from: number): number {
  let lo = from;
  let hi = starts.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The index of one list file. */
export class ListIndex implements Selectable {
  #positions: Map<string, number> | undefined;

  constructor(
    /** The envelope key (the resource). */
    readonly key: string,
    /** Item ids in list order, joined: id i is `idText.slice(idStarts[i], idStarts[i + 1])`. */
    readonly idText: string,
    readonly idStarts: Uint32Array,
    /** Byte offset of each item in the file (at its `{`). */
    readonly offsets: Float64Array,
    /** Byte length of each item (to its `}` included). */
    readonly lengths: Uint32Array,
    readonly fields: ReadonlyMap<string, FieldIndex>,
  ) {}

  get count(): number {
    return this.lengths.length;
  }

  id(i: number): string {
    return this.idText.slice(this.idStarts[i]!, this.idStarts[i + 1]!);
  }

  /**
   * The positions in this list of the items of `other` (a view: a list-shaped file whose items are
   * some of this list's), ascending; ids this list does not hold are left out. A view lists its
   * records in list order, so one walk along both finds them without a map of 200 000 ids; a view
   * in any other order falls back to the map.
   */
  positionsOf(other: ListIndex): Int32Array {
    const out = new Int32Array(other.count);
    let n = 0;
    let at = 0;
    for (let k = 0; k < other.count; k++) {
      const from = other.idStarts[k]!;
      const length = other.idStarts[k + 1]! - from;
      while (at < this.count && !(this.idStarts[at + 1]! - this.idStarts[at]! === length && sameText(this.idText, this.idStarts[at]!, other.idText, from, length))) at++;
      if (at === this.count) return this.#positionsByMap(other);
      out[n++] = at++;
    }
    return out.slice(0, n);
  }

  #positionsByMap(other: ListIndex): Int32Array {
    const positions = this.#positionMap();
    const out: number[] = [];
    for (let k = 0; k < other.count; k++) {
      const at = positions.get(other.id(k));
      if (at !== undefined) out.push(at);
    }
    return Int32Array.from(out).sort();
  }

  /** Whether `id` is one of the items. */
  has(id: string): boolean {
    return this.#positionMap().has(id);
  }

  #positionMap(): Map<string, number> {
    if (!this.#positions) {
      this.#positions = new Map();
      for (let i = 0; i < this.count; i++) this.#positions.set(this.id(i), i);
    }
    return this.#positions;
  }

  /** Items whose `field` holds `term` (lowercased by the caller unless case-sensitive), within `among`. */
  matching(field: string, term: string, among?: Int32Array): Int32Array {
    const index = this.fields.get(field);
    // A field the index was not built for: no item holds a string there that it knows of.
    return index ? index.matching(term, among) : new Int32Array(0);
  }

  /**
   * The byte ranges of the items at `positions` (ascending), adjacent items joined into one range
   * (the gap between them is ITEM_GAP, as encodeJson writes it). Flat: [start, end, start, end, ...].
   */
  ranges(positions: Int32Array | 'all'): number[] {
    const out: number[] = [];
    const n = positions === 'all' ? this.count : positions.length;
    let last = -2;
    for (let k = 0; k < n; k++) {
      const i = positions === 'all' ? k : positions[k]!;
      const start = this.offsets[i]!;
      const end = start + this.lengths[i]!;
      if (i === last + 1 && out.length > 0) out[out.length - 1] = end;
      else out.push(start, end);
      last = i;
    }
    return out;
  }
}

/** A key's next place in the chunk, not searched yet. */
const UNKNOWN = -2;

const enum State {
  Head,
  First,
  Item,
  After,
  Done,
}

/**
 * Builds a ListIndex from the bytes of a list file as they stream: `push` each chunk in order,
 * then `end`. Pure; the caller reads and hashes the file.
 */
export class ListIndexer {
  #state = State.Head;
  /** Bytes of an unfinished part, from earlier chunks. */
  readonly #carry = new Carry();
  /** File offset of the first byte of the carry (or of the next chunk when there is none). */
  #base = 0;
  readonly #open: Buffer;
  readonly #keys: { pattern: Buffer; next: number }[];
  #count = 0;
  readonly #ids = new TextBuilder();
  readonly #idStarts = new Grow(new Uint32Array(1024), (size) => new Uint32Array(size));
  readonly #offsets = new Grow(new Float64Array(1024), (size) => new Float64Array(size));
  readonly #lengths = new Grow(new Uint32Array(1024), (size) => new Uint32Array(size));
  readonly #values: { strings: Grow<Uint8Array>; texts: TextBuilder; starts: Grow<Uint32Array>; length: number }[];

  constructor(
    readonly key: string,
    /** The fields to index for substring filters. */
    readonly fields: readonly string[],
    /** Keep values as they are, rather than lowercased. */
    readonly caseSensitive = false,
  ) {
    this.#open = Buffer.from(`\n  ${JSON.stringify(key)}: [`);
    this.#keys = ['id', ...fields].map((field) => ({ pattern: keyPattern(field), next: UNKNOWN }));
    this.#values = fields.map(() => ({ strings: new Grow(new Uint8Array(1024), (size) => new Uint8Array(size)), texts: new TextBuilder(SEPARATOR), starts: new Grow(new Uint32Array(1024), (size) => new Uint32Array(size)), length: 0 }));
  }

  /** Feeds the next bytes of the file. */
  push(chunk: Buffer): void {
    if (this.#state === State.Done) return;
    const buf = this.#carry.join(chunk);
    const base = this.#base;
    for (const key of this.#keys) key.next = UNKNOWN;
    let i = 0;
    let keep = -1;
    for (;;) {
      if (this.#state === State.Head) {
        if (buf.length >= 2 && (buf[0] !== 0x7b || buf[1] !== 0x0a)) this.#fail(0, 'does not start with "{" and a newline');
        const at = buf.indexOf(this.#open);
        if (at === -1) {
          keep = 0;
          break;
        }
        i = at + this.#open.length;
        this.#state = State.First;
      } else if (this.#state === State.First) {
        if (buf[i] === CLOSE_ARRAY) {
          this.#state = State.Done;
          break;
        }
        if (buf.length - i < ITEM_OPEN.length) {
          keep = i;
          break;
        }
        if (!startsWith(buf, i, ITEM_OPEN)) this.#fail(base + i, 'the first item is not an object indented at depth 2');
        i += 5;
        this.#state = State.Item;
      } else if (this.#state === State.Item) {
        const close = buf.indexOf(ITEM_CLOSE, i);
        if (close === -1) {
          keep = i;
          break;
        }
        const end = close + ITEM_CLOSE.length;
        this.#item(buf, i, end, base);
        i = end;
        this.#state = State.After;
      } else if (this.#state === State.After) {
        if (buf.length - i < 1 + ITEM_OPEN.length) {
          // Enough for the end of the list, or wait for more.
          if (buf.length - i >= LIST_CLOSE.length && startsWith(buf, i, LIST_CLOSE)) {
            this.#state = State.Done;
            break;
          }
          keep = i;
          break;
        }
        if (buf[i] === COMMA && startsWith(buf, i + 1, ITEM_OPEN)) {
          i += 1 + 5;
          this.#state = State.Item;
        } else if (startsWith(buf, i, LIST_CLOSE)) {
          this.#state = State.Done;
          break;
        } else this.#fail(base + i, 'an item is not followed by "," and the next item, nor by the end of the list');
      } else break;
    }
    if (keep === -1) {
      this.#base = base + buf.length;
    } else {
      // A copy: the caller may reuse the chunk's memory for the next read.
      this.#carry.keep(buf, keep);
      this.#base = base + keep;
    }
  }

  /** The index, once every byte was pushed; throws when the list did not close. */
  end(): ListIndex {
    if (this.#state !== State.Done) this.#fail(this.#base, `the list "${this.key}" does not close`);
    const fields = new Map<string, FieldIndex>();
    this.fields.forEach((field, f) => {
      const values = this.#values[f]!;
      values.starts.push(values.length);
      fields.set(field, new FieldIndex(values.texts.finish(), values.starts.done(), values.strings.done()));
    });
    this.#idStarts.push(this.#ids.length);
    const idText = this.#ids.finish();
    return new ListIndex(this.key, idText, this.#idStarts.done(), this.#offsets.done(), this.#lengths.done(), fields);
  }

  #fail(at: number, what: string): never {
    throw new ListFormatError(`the list file ${what} (byte ${at}); it is not in the form inventory-mirror publishes`);
  }

  /** One item, `buf[start, end)`, from its `{` to its `}`. */
  #item(buf: Buffer, start: number, end: number, base: number): void {
    const keys = this.#keys;
    // Where the next key's line would start if it follows the one just read (the keys are most
    // often in the records' own order: id first, then name): checked in place, no search.
    let cursor = start + 1;
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      let at = -1;
      if (cursor !== -1 && startsWith(buf, cursor, key.pattern)) at = cursor;
      else {
        // The next place the key's line occurs, found once per stretch of the chunk: a key that
        // items lack is not searched for again from each item to the end of the chunk.
        if (key.next === UNKNOWN || (key.next !== -1 && key.next < start)) key.next = buf.indexOf(key.pattern, start);
        if (key.next !== -1 && key.next < end) at = key.next;
      }
      const value = at === -1 ? undefined : stringAt(buf, at + key.pattern.length);
      // After `"value"` comes `,` and the next key's line.
      cursor = value !== undefined && buf[stringEnd + 1] === COMMA ? stringEnd + 2 : -1;
      if (k === 0) {
        if (value === undefined) this.#fail(base + start, `item ${this.#count + 1} has no string "id"`);
        this.#idStarts.push(this.#ids.length);
        this.#ids.push(value);
        this.#count++;
        continue;
      }
      const values = this.#values[k - 1]!;
      values.starts.push(values.length);
      if (value === undefined) {
        values.strings.push(0);
        values.texts.push('');
        values.length += 1;
        continue;
      }
      const text = this.caseSensitive ? value : value.toLowerCase();
      values.strings.push(1);
      values.texts.push(text);
      values.length += text.length + 1;
    }
    this.#offsets.push(base + start);
    this.#lengths.push(end - start);
  }
}

/** Whether `a[from, from + length)` equals `b[at, at + length)`. */
function sameText(a: string, from: number, b: string, at: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (a.charCodeAt(from + k) !== b.charCodeAt(at + k)) return false;
  return true;
}

/** How a top-level key of an item is written: on its own line, six spaces in. */
function keyPattern(field: string): Buffer {
  return Buffer.from(`\n      ${JSON.stringify(field)}: `);
}

function startsWith(buf: Buffer, at: number, prefix: Buffer): boolean {
  if (buf.length - at < prefix.length) return false;
  for (let k = 0; k < prefix.length; k++) if (buf[at + k] !== prefix[k]) return false;
  return true;
}

/** Where the string stringAt read last ends (its closing quote). */
let stringEnd = -1;

/** The JSON string starting at `at` (its opening quote), or undefined when the value there is no string. */
function stringAt(buf: Buffer, at: number): string | undefined {
  if (buf[at] !== QUOTE) return undefined;
  const end = closingQuote(buf, at + 1, false);
  if (end < 0) return undefined;
  stringEnd = end;
  return stringBetween(buf, at, end);
}
