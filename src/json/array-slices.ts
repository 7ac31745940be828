/**
 * A long JSON array parsed a slice of elements at a time. JSON.parse keeps the elements of the
 * array it is in on a vector outside the JS heap, grown by doubling: for the 360 000 references
 * of a 200 000-server snapshot's run metadata, 2 MB and then 4 MB, let go at once, and the C
 * allocator kept that much more resident for the rest of the run (see ScannedMember).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN = new Set([0x5b, 0x7b]);
const CLOSE = new Set([0x5d, 0x7d]);

/** The elements of `text` (one JSON array), parsed `slice` at a time; a SyntaxError when it is not one. */
export function parseArrayInSlices(text: string, slice = 32_768): unknown[] {
  const body = text.trim();
  if (!body.startsWith('[') || !body.endsWith(']')) throw new SyntaxError('not a JSON array');
  const out: unknown[] = [];
  /** Parses the elements in body[from, to); `some`: there must be one at least (a comma came before, or comes after). */
  const take = (from: number, to: number, some: boolean): void => {
    const elements = body.slice(from, to);
    if (some && elements.trim() === '') throw new SyntaxError('an empty element in a JSON array');
    for (const element of JSON.parse(`[${elements}]`) as unknown[]) out.push(element);
  };
  let depth = 0;
  let inString = false;
  let from = 1;
  let elements = 0;
  for (let i = 1; i < body.length - 1; i++) {
    const c = body.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (OPEN.has(c)) depth++;
    else if (CLOSE.has(c)) depth--;
    else if (c === COMMA && depth === 0 && ++elements === slice) {
      take(from, i, true);
      from = i + 1;
      elements = 0;
    }
  }
  take(from, body.length - 1, from > 1);
  return out;
}
