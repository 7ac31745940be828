/**
 * Redaction by value (config `redact.values.fields`): every value seen in the named fields is
 * masked wherever it appears, whole or inside a longer string (an IP inside a connection URL or a
 * database's `listen_address`). Pure: records in, records out, copy-on-write.
 */
import { isPlainObject } from '../util/json-value.js';
import { MASK } from './redact.js';

/**
 * Values shorter than this are masked in their own fields only: "-", "n/a" or "0" masked inside
 * every string would wreck the data and protect nothing (an IPv4 address has 7 characters at least).
 */
export const MIN_VALUE_LENGTH = 4;

const WORD = /[A-Za-z0-9]/;

/** Whether a match may begin or end between `a` and `b`: not inside a run of letters and digits ("10.0.0.1" is not in "10.0.0.12"). */
function boundary(a: string | undefined, b: string | undefined): boolean {
  return a === undefined || b === undefined || !WORD.test(a) || !WORD.test(b);
}

/** The values to mask, found by their first character and then their length, longest first. */
export class ValueSet {
  readonly #values = new Set<string>();
  readonly #lengths = new Map<string, number[]>();

  get size(): number {
    return this.#values.size;
  }

  add(value: string): void {
    if (value.length < MIN_VALUE_LENGTH || value === MASK || this.#values.has(value)) return;
    this.#values.add(value);
    const lengths = this.#lengths.get(value[0]!) ?? [];
    if (!lengths.includes(value.length)) this.#lengths.set(value[0]!, [...lengths, value.length].sort((a, b) => b - a));
  }

  /** `text` with every occurrence of a value replaced by the mask; `text` itself when it holds none. */
  mask(text: string): string {
    let out = '';
    let last = 0;
    for (let i = 0; i < text.length; ) {
      const length = boundary(text[i - 1], text[i]) ? this.#match(text, i) : 0;
      if (length === 0) {
        i++;
        continue;
      }
      out += text.slice(last, i) + MASK;
      i += length;
      last = i;
    }
    return last === 0 ? text : out + text.slice(last);
  }

  #match(text: string, at: number): number {
    for (const length of this.#lengths.get(text[at]!) ?? []) {
      const end = at + length;
      if (end <= text.length && boundary(text[end - 1], text[end]) && this.#values.has(text.slice(at, end))) return length;
    }
    return 0;
  }
}

/** Adds to `into` every string value of a field named in `fields`, at any depth of `value`. */
export function collectValues(value: unknown, fields: ReadonlySet<string>, into: ValueSet): void {
  if (Array.isArray(value)) {
    for (const item of value) collectValues(item, fields, into);
  } else if (isPlainObject(value)) {
    for (const [key, inner] of Object.entries(value)) {
      if (fields.has(key) && typeof inner === 'string') into.add(inner);
      else collectValues(inner, fields, into);
    }
  }
}

/**
 * `value` with the named fields masked whole (whatever their length) and every value of `values`
 * masked inside every other string but ids; `value` itself when nothing changed.
 */
export function maskValues(value: unknown, fields: ReadonlySet<string>, values: ValueSet): unknown {
  if (typeof value === 'string') return values.mask(value);
  if (Array.isArray(value)) {
    const out = value.map((item) => maskValues(item, fields, values));
    return out.some((item, i) => item !== value[i]) ? out : value;
  }
  if (!isPlainObject(value)) return value;
  let out: Record<string, unknown> | undefined;
  for (const [key, inner] of Object.entries(value)) {
    // An id names its record's file and is what references point at: it stays, whatever it holds.
    if (key === 'id') continue;
    const masked = fields.has(key) && inner !== null && typeof inner !== 'object' ? MASK : maskValues(inner, fields, values);
    if (masked === inner) continue;
    out ??= { ...value };
    // A key `__proto__` (JSON.parse makes it an own key) must stay a key, not set the prototype.
    Object.defineProperty(out, key, { value: masked, enumerable: true, writable: true, configurable: true });
  }
  return out ?? value;
}
