/**
 * Splits a JSON body shaped `{ ..., "<key>": [ item, item, ... ], ... }` into its parts as the
 * bytes arrive, without parsing it whole: each element of the streamed member comes out as its
 * own bytes (parsed one at a time by the caller), the other top-level members as theirs. A list
 * of 200 000 servers is then never one string or one object graph in memory.
 *
 * With `kind: 'object'` the streamed member is an object and its members come out one by one
 * (our manifest's `files`). The scanner checks the structure between elements (brackets, commas,
 * colons, what follows the end); what is inside an element is JSON.parse's to judge.
 */
import { StringDecoder } from 'node:string_decoder';

/** What the scanner cannot accept: the body is not (or not yet) the envelope it expects. */
export class ScanError extends Error {
  constructor(
    message: string,
    /** The body ended before its envelope closed: a truncated transfer, worth another attempt. */
    readonly truncated = false,
  ) {
    super(message);
  }
}

/** JSON nested deeper than any inventory record is: refused, not retried. */
/** Deeper JSON would overflow the recursive walks of validation and encoding. */
export const MAX_DEPTH = 100;

export class TooDeepError extends ScanError {
  constructor(readonly limit: number) {
    super(`JSON nested deeper than ${limit} levels`);
  }
}

/** One element of the streamed member. */
export interface ScannedElement {
  bytes: Buffer;
  /** The member's key, for `kind: 'object'`. */
  key: string | undefined;
  /** Colons outside strings inside the element: the number of object keys it holds, duplicates included. */
  keys: number;
  /** Where the element starts in the body, in bytes. */
  at: number;
}

const enum S {
  Start,
  Key,
  KeyOrEnd,
  KeyString,
  Colon,
  Value,
  Capture,
  CommaOrEnd,
  ElemFirst,
  Elem,
  ElemKeyString,
  ElemColon,
  ElemValue,
  ElemCommaOrEnd,
  Done,
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

const isSpace = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

function describeStart(b: number): string {
  if (b === OPEN_ARRAY) return 'an array';
  if (b === QUOTE) return 'a string';
  if (b === 0x6e) return 'null';
  if (b === 0x74 || b === 0x66) return 'a boolean';
  if (b === 0x2d || (b >= 0x30 && b <= 0x39)) return 'a number';
  return `the byte ${JSON.stringify(String.fromCharCode(b))}`;
}

/**
 * A top-level member, as the pieces of the chunks it came in: joined only when its bytes are
 * asked for. A member of several megabytes (run metadata's columns) is read from its pieces: a
 * joined copy, made and let go at once, led the C allocator to keep that much more for the rest
 * of the run (it serves blocks below the largest one freed from its heap, and cannot return them).
 */
export class ScannedMember {
  #bytes: Buffer | undefined;

  constructor(
    readonly key: string,
    readonly pieces: readonly Buffer[],
    /** Where its value starts in the body, in bytes. */
    readonly at: number,
  ) {}

  get bytes(): Buffer {
    return (this.#bytes ??= this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces));
  }
}

/** The text of bytes that came in pieces, decoded piece by piece (a character split between two pieces included). */
export function piecesText(pieces: readonly Buffer[], encoding: 'utf8' | 'latin1' = 'utf8'): string {
  const decoder = new StringDecoder(encoding);
  let text = '';
  for (const piece of pieces) text += decoder.write(piece);
  return text + decoder.end();
}

export class EnvelopeScanner {
  /** Top-level members other than the streamed one, in the order sent. */
  readonly members: ScannedMember[] = [];
  /** How many of `members` came before the streamed member (where it sits in the envelope). */
  membersBefore = 0;
  /** Whether the streamed member was found with a value of the expected kind. */
  found = false;
  /** Elements seen so far. */
  count = 0;

  /**
   * The members completed since the last call, handed over and no longer kept here: a reader of
   * an envelope whose members are long (run metadata) lets each go once decoded. Not for a
   * scanner that streams a member (membersBefore counts the members kept).
   */
  takeMembers(): ScannedMember[] {
    return this.members.splice(0);
  }

  #state = S.Start;
  #offset = 0;
  /** Bytes of the token or value being captured, from earlier chunks. */
  #pending: Buffer[] = [];
  #key: string | undefined;
  #elemKey: string | undefined;
  /** Where a capture goes once complete. */
  #into: 'member' | 'element' = 'member';
  #depth = 0;
  #inString = false;
  #escape = false;
  #scalar = false;
  #keys = 0;
  readonly #close: number;
  readonly #open: number;

  constructor(
    readonly key: string,
    readonly kind: 'array' | 'object' = 'array',
    /** Deeper elements are refused here, before JSON.parse's recursion or ours could overflow. */
    readonly maxDepth = MAX_DEPTH,
  ) {
    this.#open = kind === 'array' ? OPEN_ARRAY : OPEN_OBJECT;
    this.#close = kind === 'array' ? CLOSE_ARRAY : CLOSE_OBJECT;
  }

  /** Feeds the next bytes; returns the elements they completed. */
  push(chunk: Buffer): ScannedElement[] {
    const out: ScannedElement[] = [];
    let start = 0;
    /** Where a name that began in this chunk starts, until it is taken or carried over. */
    let carry = -1;
    let i = 0;
    const n = chunk.length;
    const fail = (message: string): never => {
      throw new ScanError(`${message} at byte ${this.#offset + i}`);
    };
    while (i < n) {
      const b = chunk[i]!;
      switch (this.#state) {
        case S.Start:
          if (isSpace(b)) break;
          if (b !== OPEN_OBJECT) fail(`expected a JSON object with key "${this.key}", got ${describeStart(b)}`);
          this.#state = S.KeyOrEnd;
          break;
        case S.KeyOrEnd:
        case S.Key:
          if (isSpace(b)) break;
          if (b === CLOSE_OBJECT && this.#state === S.KeyOrEnd) {
            this.#state = S.Done;
            break;
          }
          if (b !== QUOTE) fail('expected a member name');
          this.#state = S.KeyString;
          start = i;
          carry = i;
          this.#inString = true;
          this.#escape = false;
          break;
        case S.KeyString:
        case S.ElemKeyString: {
          const end = this.#stringEnd(chunk, i);
          if (end === -1) {
            this.#pending.push(chunk.subarray(start));
            carry = -1;
            i = n;
            continue;
          }
          carry = -1;
          const bytes = this.#take(chunk, start, end + 1);
          let name: string;
          try {
            name = JSON.parse(bytes.toString('utf8')) as string;
          } catch {
            return fail('malformed member name');
          }
          if (this.#state === S.KeyString) {
            this.#key = name;
            this.#state = S.Colon;
          } else {
            this.#elemKey = name;
            this.#state = S.ElemColon;
          }
          i = end + 1;
          continue;
        }
        case S.Colon:
        case S.ElemColon:
          if (isSpace(b)) break;
          if (b !== COLON) fail('expected ":"');
          this.#state = this.#state === S.Colon ? S.Value : S.ElemValue;
          break;
        case S.ElemValue:
          if (isSpace(b)) break;
          this.#into = 'element';
          this.#state = S.Capture;
          this.#beginValue();
          continue;
        case S.Value:
          if (isSpace(b)) break;
          if (this.#key === this.key && b === this.#open && !this.found) {
            this.found = true;
            this.membersBefore = this.members.length;
            this.#state = S.ElemFirst;
            break;
          }
          this.#into = 'member';
          this.#state = S.Capture;
          this.#beginValue();
          continue;
        case S.ElemFirst:
        case S.Elem:
          if (isSpace(b)) break;
          if (b === this.#close && this.#state === S.ElemFirst) {
            this.#state = S.CommaOrEnd;
            break;
          }
          if (this.kind === 'object') {
            if (b !== QUOTE) fail('expected a member name');
            this.#state = S.ElemKeyString;
            start = i;
            carry = i;
            this.#inString = true;
            this.#escape = false;
            break;
          }
          this.#into = 'element';
          this.#elemKey = undefined;
          this.#state = S.Capture;
          this.#beginValue();
          continue;
        case S.Capture: {
          if (this.#pending.length === 0 && this.#depth === 0 && !this.#inString && !this.#scalar) start = i;
          const end = this.#valueEnd(chunk, i, start);
          if (end === -1) {
            this.#pending.push(chunk.subarray(start));
            i = n;
            continue;
          }
          if (this.#into === 'member') {
            const pieces = this.#pieces(chunk, start, end);
            this.members.push(new ScannedMember(this.#key!, pieces, this.#offset + end - pieces.reduce((n, piece) => n + piece.length, 0)));
            this.#state = S.CommaOrEnd;
          } else {
            const bytes = this.#take(chunk, start, end);
            out.push({ bytes, key: this.#elemKey, keys: this.#keys, at: this.#offset + end - bytes.length });
            this.count++;
            this.#state = S.ElemCommaOrEnd;
          }
          i = end;
          continue;
        }
        case S.ElemCommaOrEnd:
          if (isSpace(b)) break;
          if (b === COMMA) this.#state = S.Elem;
          else if (b === this.#close) this.#state = S.CommaOrEnd;
          else fail(`expected "," or "${String.fromCharCode(this.#close)}" after an element of "${this.key}"`);
          break;
        case S.CommaOrEnd:
          if (isSpace(b)) break;
          if (b === COMMA) this.#state = S.Key;
          else if (b === CLOSE_OBJECT) this.#state = S.Done;
          else fail('expected "," or "}"');
          break;
        case S.Done:
          if (!isSpace(b)) fail('unexpected data after the end of the JSON body');
          break;
      }
      i++;
    }
    // A name whose opening quote was this chunk's last byte continues in the next one.
    if (carry !== -1) this.#pending.push(chunk.subarray(carry));
    this.#offset += n;
    return out;
  }

  /** Declares the body complete; throws when its envelope is not. */
  end(): void {
    if (this.#state === S.Done) return;
    if (this.#state === S.Start && this.#offset === 0) throw new ScanError('the body is empty', true);
    throw new ScanError(`the body ended after ${this.#offset} bytes, before its JSON closed (truncated?)`, true);
  }

  #beginValue(): void {
    this.#depth = 0;
    this.#inString = false;
    this.#escape = false;
    this.#scalar = false;
    this.#keys = 0;
    this.#pending = [];
  }

  /** The pending bytes and `chunk[from, to)`, a copy of it when it is all (so a short member holds no chunk). */
  #pieces(chunk: Buffer, from: number, to: number): Buffer[] {
    const last = chunk.subarray(from, to);
    if (this.#pending.length === 0) return [Buffer.from(last)];
    const pieces = [...this.#pending, last];
    this.#pending = [];
    return pieces;
  }

  /** Joins the pending bytes with `chunk[from, to)`. */
  #take(chunk: Buffer, from: number, to: number): Buffer {
    const last = chunk.subarray(from, to);
    if (this.#pending.length === 0) return Buffer.from(last);
    const all = Buffer.concat([...this.#pending, last]);
    this.#pending = [];
    return all;
  }

  /** Index of the closing quote of the string being read, or -1 when the chunk ends first. */
  #stringEnd(chunk: Buffer, from: number): number {
    const end = closingQuote(chunk, from, this.#escape);
    if (end >= 0) {
      this.#inString = false;
      this.#escape = false;
      return end;
    }
    this.#escape = end === ESCAPED_AT_END;
    return -1;
  }

  /**
   * Index just past the end of the value being captured, or -1 when the chunk ends first. A
   * scalar ends before the delimiter that follows it; a string or container after its last byte.
   * Kept in local variables: this loop sees every byte of every list.
   */
  #valueEnd(chunk: Buffer, from: number, start: number): number {
    let i = from;
    const n = chunk.length;
    if (this.#pending.length === 0 && i === start && this.#depth === 0 && !this.#inString && !this.#scalar) {
      const b = chunk[i]!;
      if (b === OPEN_OBJECT || b === OPEN_ARRAY) this.#depth = 1;
      else if (b === QUOTE) this.#inString = true;
      else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY || b === COMMA || b === COLON) throw new ScanError(`expected a value at byte ${this.#offset + i}`);
      else this.#scalar = true;
      i++;
    }
    if (this.#scalar) {
      while (i < n) {
        const b = chunk[i]!;
        if (b === COMMA || b === CLOSE_OBJECT || b === CLOSE_ARRAY || isSpace(b)) {
          this.#scalar = false;
          return i;
        }
        i++;
      }
      return -1;
    }
    let depth = this.#depth;
    let keys = this.#keys;
    let inString = this.#inString;
    let escape = this.#escape;
    const max = this.maxDepth;
    let result = -1;
    while (i < n) {
      if (inString) {
        const end = closingQuote(chunk, i, escape);
        if (end < 0) {
          escape = end === ESCAPED_AT_END;
          i = n;
          break;
        }
        inString = false;
        escape = false;
        i = end + 1;
        if (depth === 0) {
          result = i;
          break;
        }
        continue;
      }
      const b = chunk[i]!;
      // Indentation and digits are most of what is not inside strings: settle them first.
      if (b <= 0x39 && b !== QUOTE && b !== COMMA) {
        i++;
        continue;
      }
      if (b === QUOTE) inString = true;
      else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
        if (++depth > max) throw new TooDeepError(max);
      } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
        if (--depth === 0) {
          result = i + 1;
          break;
        }
      } else if (b === COLON) keys++;
      i++;
    }
    this.#depth = depth;
    this.#keys = keys;
    this.#inString = inString;
    this.#escape = escape;
    return result;
  }
}

/** Reads a list-shaped body or file (`{"<key>": [ ... ]}`) item by item. */
export async function forEachItem(chunks: AsyncIterable<Buffer>, key: string, onItem: (element: ScannedElement) => void): Promise<void> {
  const scanner = new EnvelopeScanner(key);
  for await (const chunk of chunks) for (const element of scanner.push(chunk)) onItem(element);
  scanner.end();
}

/** closingQuote's answer when the chunk ended inside a string right after an unescaped backslash. */
const ESCAPED_AT_END = -2;

/**
 * The index of the quote that closes a string whose bytes continue at `from` (`escaped`: the byte
 * at `from` is escaped), found with indexOf rather than byte by byte; -1 (or ESCAPED_AT_END) when
 * the chunk ends inside the string.
 */
export function closingQuote(chunk: Buffer, from: number, escaped: boolean): number {
  let q = chunk.indexOf(QUOTE, from);
  while (q !== -1) {
    let k = q - 1;
    while (k >= from && chunk[k] === BACKSLASH) k--;
    const run = q - 1 - k + (k < from && escaped ? 1 : 0);
    if (run % 2 === 0) return q;
    q = chunk.indexOf(QUOTE, q + 1);
  }
  let k = chunk.length - 1;
  while (k >= from && chunk[k] === BACKSLASH) k--;
  const run = chunk.length - 1 - k + (k < from && escaped ? 1 : 0);
  return run % 2 === 1 ? ESCAPED_AT_END : -1;
}

/**
 * The JSON string whose quotes stand at `open` and `close` (as closingQuote found it): its bytes
 * as UTF-8, or JSON.parse's answer when it holds an escape.
 */
export function stringBetween(buf: Buffer, open: number, close: number): string {
  for (let k = open + 1; k < close; k++) if (buf[k] === BACKSLASH) return JSON.parse(buf.toString('utf8', open, close + 1)) as string;
  return buf.toString('utf8', open + 1, close);
}

/** Colons outside strings in a JSON text: the number of object keys it holds, duplicates included. */
export function keyCount(bytes: Buffer): number {
  let keys = 0;
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i]!;
    if (b === QUOTE) {
      const end = closingQuote(bytes, i + 1, false);
      if (end < 0) return keys;
      i = end + 1;
      continue;
    }
    if (b === COLON) keys++;
    i++;
  }
  return keys;
}

/** Whether a JSON text nests objects and arrays deeper than `limit` levels (checked before JSON.parse's recursion). */
export function nestsDeeper(bytes: Buffer, limit: number): boolean {
  let depth = 0;
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i]!;
    if (b === QUOTE) {
      const end = closingQuote(bytes, i + 1, false);
      if (end < 0) return false;
      i = end + 1;
      continue;
    }
    if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) depth--;
    i++;
  }
  return false;
}
