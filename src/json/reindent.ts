/**
 * A JSON value's bytes re-encoded as encodeAt(JSON.parse(text), depth) would write them, byte for
 * byte, without parsing them into objects and strings: whitespace dropped, two-space indentation
 * put in, `\/` unescaped and numbers written as JavaScript writes them. A filtered view is a list
 * of records the mirror already judged in their list; parsing each of its items only to encode it
 * again was most of the main thread's work on them (and of the garbage it collected).
 *
 * It declines what it would have to decode to get right: a `\u` escape, a repeated key (the last
 * one wins), a key that is an array index (JavaScript puts those first), bytes that are not UTF-8,
 * nesting deeper than MAX_LEVELS, a number beyond what a double holds, and anything that is not
 * JSON. The caller then parses, which gives the same text, or the error (or the finding).
 */
import { isUtf8 } from 'node:buffer';

/** Deeper values are declined (a record is never this deep); the stacks below have this size. */
const MAX_LEVELS = 64;
/** Up to this many keys an object's keys are compared one by one; past it, looked up by hash. */
const SCAN_KEYS = 16;

const SPACE = 0x20;
const NEWLINE = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SLASH = 0x2f;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

const isDigit = (b: number): boolean => b >= ZERO && b <= NINE;

/** Whether JSON.stringify writes the escape `\\<b>` as it is. */
const isKeptEscape = (b: number): boolean => b === QUOTE || b === BACKSLASH || b === 0x62 || b === 0x66 || b === 0x6e || b === 0x72 || b === 0x74;

/** JSON's whitespace. */
const SPACES = new Uint8Array(256);
for (const b of [SPACE, NEWLINE, 0x0d, 0x09]) SPACES[b] = 1;

/** Bytes a string's copy stops at: its end, an escape, a control character (not JSON inside a string). */
const SPECIAL = new Uint8Array(256);
for (let b = 0; b < SPACE; b++) SPECIAL[b] = 1;
SPECIAL[QUOTE] = 1;
SPECIAL[BACKSLASH] = 1;

/** Declined: the caller parses. */
const DECLINED = -1;

const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const NULL = Buffer.from('null');

/** Re-encodes values one at a time into a buffer of its own, reused from one value to the next. */
export class Reindenter {
  #out: Buffer = Buffer.allocUnsafe(16 * 1024);
  /** Per open container: whether it is an object, and where its keys start in the key stacks. */
  readonly #isObject = new Uint8Array(MAX_LEVELS);
  readonly #keysFrom = new Int32Array(MAX_LEVELS);
  /** The keys of the open objects, as written: hash, start in #out, length. */
  #keyHash: Int32Array = new Int32Array(256);
  #keyAt: Int32Array = new Int32Array(256);
  #keyLength: Int32Array = new Int32Array(256);
  #keys = 0;
  /**
   * Per open object with more than SCAN_KEYS keys: its keys by hash (the latest with that hash;
   * #keyNext chains to earlier ones), so an object of a million keys is checked in linear time.
   */
  readonly #byHash: (Map<number, number> | undefined)[] = new Array(MAX_LEVELS).fill(undefined);
  #keyNext: Int32Array = new Int32Array(256);
  /** The top-level keys whose values are located, as written (`"id"`), and where each value sits in the input (-1: absent). */
  readonly #fields: Buffer[];
  readonly #starts: Int32Array;
  readonly #ends: Int32Array;

  /** `fields`: the top-level keys whose values `field` and `text` give after each value re-encoded. */
  constructor(fields: readonly string[] = []) {
    this.#fields = fields.map((name) => Buffer.from(JSON.stringify(name)));
    this.#starts = new Int32Array(fields.length);
    this.#ends = new Int32Array(fields.length);
  }

  /**
   * `bytes` (one JSON value) as encodeAt would encode it at `depth`, or undefined when declined.
   * The buffer returned is this reindenter's own: it is valid until the next call.
   */
  run(bytes: Buffer, depth: number): Buffer | undefined {
    if (!isUtf8(bytes)) return undefined;
    this.#keys = 0;
    this.#byHash.fill(undefined);
    this.#starts.fill(-1);
    const end = this.#walk(bytes, depth);
    return end === DECLINED ? undefined : this.#out.subarray(0, end);
  }

  /** The text of top-level field `n` (of the constructor's `fields`) in `bytes`, the value last re-encoded; undefined when absent. */
  field(bytes: Buffer, n: number): Buffer | undefined {
    return this.#starts[n]! < 0 ? undefined : bytes.subarray(this.#starts[n], this.#ends[n]);
  }

  /** Field `n` when it is a string without escapes; else undefined. */
  text(bytes: Buffer, n: number): string | undefined {
    const start = this.#starts[n]!;
    const end = this.#ends[n]!;
    if (start < 0 || bytes[start] !== QUOTE) return undefined;
    for (let k = start + 1; k < end - 1; k++) if (bytes[k] === BACKSLASH) return undefined;
    return bytes.toString('utf8', start + 1, end - 1);
  }

  /** #out with its first `used` bytes, grown to hold at least `size`. */
  #grow(used: number, size: number): Buffer {
    const grown = Buffer.allocUnsafe(Math.max(this.#out.length * 2, size));
    this.#out.copy(grown, 0, 0, used);
    this.#out = grown;
    return grown;
  }

  /**
   * The walk over one value, token by token; returns the end of the output, or DECLINED. One
   * function with the output in locals: a call per string cost more than copying its bytes.
   */
  #walk(src: Buffer, depth: number): number {
    const n = src.length;
    let out = this.#out;
    let o = 0;
    let i = 0;
    let level = 0;
    // What comes next: a value, a key, or what follows a value inside a container.
    let want: 'value' | 'key' | 'next' = 'value';
    // The field whose value comes next (an index into #fields, or -1), and the one being read and where it started.
    let fieldNext = -1;
    let field = -1;
    let fieldStart = 0;
    for (;;) {
      while (i < n && SPACES[src[i]!] === 1) i++;
      if (i === n) return DECLINED;
      // Room for what one step writes: a string (never longer than the rest of the input) and
      // its ": ", a number (at most 24 characters), a bracket and a line's indentation.
      const need = o + (n - i) + 2 * (depth + level) + 32;
      if (need > out.length) out = this.#grow(o, need);
      const b = src[i]!;
      if (want === 'value' && level === 1) {
        field = fieldNext;
        fieldStart = i;
        fieldNext = -1;
      }
      if (want === 'next') {
        const object = this.#isObject[level - 1] === 1;
        if (b === COMMA) {
          out[o++] = COMMA;
          o = newline(out, o, depth + level);
          i++;
          want = object ? 'key' : 'value';
          continue;
        }
        if (b !== (object ? CLOSE_OBJECT : CLOSE_ARRAY)) return DECLINED;
        level--;
        this.#keys = this.#keysFrom[level]!;
        this.#byHash[level] = undefined;
        o = newline(out, o, depth + level);
        out[o++] = b;
        i++;
      } else if (b === QUOTE) {
        const key = want === 'key';
        // An array index as a key would be put first by JavaScript.
        if (key && isDigit(src[i + 1] ?? 0)) return DECLINED;
        const at = o;
        out[o++] = QUOTE;
        let j = i + 1;
        for (; j < n; j++) {
          let c = src[j]!;
          if (SPECIAL[c] === 0) {
            out[o++] = c;
            continue;
          }
          if (c === QUOTE) break;
          // A raw control character is not JSON; JSON.parse says so.
          if (c !== BACKSLASH) return DECLINED;
          c = src[++j] ?? 0;
          if (c !== SLASH) {
            if (!isKeptEscape(c)) return DECLINED;
            out[o++] = BACKSLASH;
          }
          out[o++] = c;
        }
        if (j >= n) return DECLINED;
        out[o++] = QUOTE;
        i = j + 1;
        if (key) {
          if (!this.#newKey(out, at, o - at, level)) return DECLINED;
          if (level === 1) fieldNext = this.#fieldAt(out, at, o);
          while (i < n && SPACES[src[i]!] === 1) i++;
          if (src[i] !== COLON) return DECLINED;
          i++;
          out[o++] = COLON;
          out[o++] = SPACE;
          want = 'value';
          continue;
        }
      } else if (want === 'key') {
        return DECLINED;
      } else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
        let j = i + 1;
        while (j < n && SPACES[src[j]!] === 1) j++;
        if (src[j] === b + 2) {
          // Empty: `{}` or `[]`, as JSON.stringify writes them.
          out[o++] = b;
          out[o++] = b + 2;
          i = j + 1;
        } else {
          if (level === MAX_LEVELS) return DECLINED;
          const object = b === OPEN_OBJECT;
          this.#isObject[level] = object ? 1 : 0;
          this.#keysFrom[level] = this.#keys;
          level++;
          out[o++] = b;
          o = newline(out, o, depth + level);
          i++;
          want = object ? 'key' : 'value';
          continue;
        }
      } else if (b === MINUS || isDigit(b)) {
        const scanned = scanNumber(src, i);
        if (scanned === DECLINED) return DECLINED;
        const end = scanned >> 1;
        if (scanned & 1) {
          for (let j = i; j < end; j++) out[o++] = src[j]!;
        } else {
          const value = Number(src.toString('latin1', i, end));
          // Beyond what a double holds: published as null, which the parse reports (out_of_range).
          if (!Number.isFinite(value)) return DECLINED;
          o += out.write(String(value), o, 'latin1');
        }
        i = end;
      } else {
        const word = b === 0x74 ? TRUE : b === 0x66 ? FALSE : b === 0x6e ? NULL : undefined;
        if (!word || i + word.length > n) return DECLINED;
        for (let k = 0; k < word.length; k++) if (src[i + k] !== word[k]) return DECLINED;
        for (let k = 0; k < word.length; k++) out[o++] = word[k]!;
        i += word.length;
      }
      // A value is complete: the next one in its container, or the end.
      if (level === 1 && field >= 0) {
        this.#starts[field] = fieldStart;
        this.#ends[field] = i;
        field = -1;
      }
      if (level === 0) {
        while (i < n && SPACES[src[i]!] === 1) i++;
        return i === n ? o : DECLINED;
      }
      want = 'next';
    }
  }

  /** Which of #fields the key written at out[at, end) is, or -1. */
  #fieldAt(out: Buffer, at: number, end: number): number {
    const length = end - at;
    for (let f = 0; f < this.#fields.length; f++) {
      const name = this.#fields[f]!;
      if (name.length !== length) continue;
      let k = 1;
      while (k < length && out[at + k] === name[k]) k++;
      if (k === length) return f;
    }
    return -1;
  }

  /** Notes the key of `length` bytes written at `at`, in the object at `level`; false when that object holds it already. */
  #newKey(out: Buffer, at: number, length: number, level: number): boolean {
    let hash = 0x811c9dc5;
    for (let k = at; k < at + length; k++) hash = Math.imul(hash ^ out[k]!, 0x01000193);
    const from = this.#keysFrom[level - 1]!;
    let byHash = this.#byHash[level - 1];
    if (byHash === undefined && this.#keys - from > SCAN_KEYS) {
      byHash = new Map();
      for (let k = from; k < this.#keys; k++) {
        this.#keyNext[k] = byHash.get(this.#keyHash[k]!) ?? -1;
        byHash.set(this.#keyHash[k]!, k);
      }
      this.#byHash[level - 1] = byHash;
    }
    if (byHash === undefined) {
      for (let k = from; k < this.#keys; k++) if (this.#sameKey(out, k, hash, at, length)) return false;
    } else {
      for (let k = byHash.get(hash) ?? -1; k >= 0; k = this.#keyNext[k]!) if (this.#sameKey(out, k, hash, at, length)) return false;
    }
    if (this.#keys === this.#keyHash.length) {
      this.#keyHash = grown(this.#keyHash);
      this.#keyAt = grown(this.#keyAt);
      this.#keyLength = grown(this.#keyLength);
      this.#keyNext = grown(this.#keyNext);
    }
    if (byHash !== undefined) {
      this.#keyNext[this.#keys] = byHash.get(hash) ?? -1;
      byHash.set(hash, this.#keys);
    }
    this.#keyHash[this.#keys] = hash;
    this.#keyAt[this.#keys] = at;
    this.#keyLength[this.#keys++] = length;
    return true;
  }

  /** Whether key `k` is the key of `length` bytes at `at` with this hash. A method, not a closure per key: those were a seventh of what a first sync's main thread allocated. */
  #sameKey(out: Buffer, k: number, hash: number, at: number, length: number): boolean {
    return this.#keyHash[k] === hash && this.#keyLength[k] === length && out.compare(out, at, at + length, this.#keyAt[k]!, this.#keyAt[k]! + length) === 0;
  }
}

/** Writes a line break and `indent` levels of indentation at `o`; returns where they end. */
function newline(out: Buffer, o: number, indent: number): number {
  out[o++] = NEWLINE;
  for (let k = 2 * indent; k > 0; k--) out[o++] = SPACE;
  return o;
}

/**
 * The number at `i`: twice where it ends, plus 1 when JavaScript writes it as it is (JSON.stringify
 * of JSON.parse), not otherwise (`-0`, `1.50`, `1e3`); DECLINED when it is not a JSON number.
 */
function scanNumber(src: Buffer, i: number): number {
  const n = src.length;
  const start = i;
  if (src[i] === MINUS) i++;
  const intStart = i;
  if (src[i] === ZERO) i++;
  else if (isDigit(src[i] ?? 0)) while (i < n && isDigit(src[i]!)) i++;
  else return DECLINED;
  const intZero = src[intStart] === ZERO;
  let digits = intZero ? 0 : i - intStart;
  let same = !(intZero && src[start] === MINUS);
  if (src[i] === DOT) {
    i++;
    const fracStart = i;
    while (i < n && isDigit(src[i]!)) i++;
    if (i === fracStart) return DECLINED;
    let leading = 0;
    if (intZero) while (src[fracStart + leading] === ZERO) leading++;
    digits += i - fracStart - leading;
    // 0.000001 is written as it is, 0.0000001 as 1e-7; a last 0 is dropped.
    same &&= src[i - 1] !== ZERO && leading <= 5;
  }
  if (src[i] === 0x65 || src[i] === 0x45) {
    same = false;
    i++;
    if (src[i] === 0x2b || src[i] === MINUS) i++;
    if (!isDigit(src[i] ?? 0)) return DECLINED;
    while (i < n && isDigit(src[i]!)) i++;
  }
  // Up to 15 significant digits a double holds the number as written, and gives it back so.
  return 2 * i + (same && digits <= 15 ? 1 : 0);
}

function grown(old: Int32Array): Int32Array {
  const next = new Int32Array(old.length * 2);
  next.set(old);
  return next;
}
