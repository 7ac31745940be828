/**
 * The one JSON encoding of every published file: two-space indent, UTF-8, final newline. A list
 * body is also written piece by piece (EnvelopeEncoder), byte for byte as encodeJson would write
 * it whole, so a list of any length is never one string in memory.
 */

export function encodeJson(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value, null, 2)}\n`, 'utf8');
}

/**
 * encodeJson's bytes of an object holding a long array under `key`, in pieces: one per element,
 * and what comes before and after, encoded each time the pieces are iterated. The whole text as
 * one string, joined with its newline and then encoded, held three copies of a 200 000-server
 * quality report (two of them UTF-16) at once, at the moment the sync peaks in memory; a writer
 * hashes the pieces, and writes them only if they changed (NextSnapshot.put).
 */
export function encodeJsonPieces(value: Readonly<Record<string, unknown>>, key: string): Iterable<Buffer> {
  const members = Object.entries(value).filter(([, member]) => member !== undefined);
  const at = members.findIndex(([name]) => name === key);
  const items = at === -1 ? undefined : members[at]![1];
  if (!Array.isArray(items)) return [encodeJson(value)];
  return {
    *[Symbol.iterator]() {
      const encoder = new EnvelopeEncoder(key, members.slice(0, at));
      yield Buffer.from(encoder.head(), 'utf8');
      for (const item of items) yield Buffer.from(encoder.separator() + encoder.element(item), 'utf8');
      yield Buffer.from(encoder.tail(members.slice(at + 1)), 'utf8');
    },
  };
}

/** Parses a published file's bytes (or its text); undefined when absent or not JSON. */
export function decodeJson(bytes: Buffer | string | undefined): unknown {
  if (bytes === undefined) return undefined;
  try {
    return JSON.parse(typeof bytes === 'string' ? bytes : bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Parses bytes as JSON checked by `schema`; undefined when they are not JSON or do not match. */
export function decodeJsonAs<T>(bytes: Buffer | string, schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } }): T | undefined {
  const value = decodeJson(bytes);
  if (value === undefined) return undefined;
  const result = schema.safeParse(value);
  return result.success ? result.data : undefined;
}

/**
 * `value` as encodeJson writes it at nesting level `depth` (its lines indented by 2 × depth
 * spaces). Encoded inside `depth` arrays, where JSON.stringify indents it so itself, and cut out:
 * a slice of the text, not the copy (or two) that re-indenting every line would make. Lists and
 * views encode every item this way.
 */
export function encodeAt(value: unknown, depth: number): string {
  let wrapped = value;
  for (let level = 0; level < depth; level++) wrapped = [wrapped];
  const text = JSON.stringify(wrapped, null, 2);
  // Level k (from 1) opens with "[\n" and 2k spaces, and closes with "\n", 2(k - 1) spaces and "]".
  return depth === 0 ? text : text.slice(2 * depth + depth * (depth + 1), text.length - (2 * depth + depth * (depth - 1)));
}

/**
 * Writes `{ ...before, [key]: [ items ], ...after }` in pieces: `head()`, then per element its
 * `separator()` and its text (`element()`, or one already encoded at depth 2), then `tail()`. The
 * concatenation equals encodeJson of the whole body. Separator and element stay two strings, so
 * a caller writing them into a buffer never has a joined copy of the element made.
 */
export class EnvelopeEncoder {
  #items = 0;

  constructor(
    readonly key: string,
    readonly before: readonly (readonly [string, unknown])[] = [],
  ) {}

  head(): string {
    let text = '{';
    for (const [name, value] of this.before) text += `\n  ${JSON.stringify(name)}: ${encodeAt(value, 1)},`;
    return `${text}\n  ${JSON.stringify(this.key)}: [`;
  }

  /** What comes before the next element. */
  separator(): string {
    return this.#items++ === 0 ? '\n    ' : ',\n    ';
  }

  /** `value` as an element. An element taken from a list file this encoder's form wrote is already this text. */
  element(value: unknown): string {
    return encodeAt(value, 2);
  }

  tail(after: readonly (readonly [string, unknown])[] = []): string {
    let text = this.#items === 0 ? ']' : '\n  ]';
    for (const [name, value] of after) text += `,\n  ${JSON.stringify(name)}: ${encodeAt(value, 1)}`;
    return `${text}\n}\n`;
  }
}
