/** The global search over one index chunk (pure): how many rows hold the term, and the first few, with the fields that matched. */
import type { SearchChunk, SearchColumn } from './types.js';

export interface Hit {
  id: string;
  name: string;
  /** The fields other than the name that hold the term, with their values: `ip 10.0.0.1`. */
  extra: string;
}

/** Per field, its texts in lower case (the distinct ones of a coded field): made once per chunk. */
const lowered = new WeakMap<SearchChunk, string[][]>();

/** A chunk's lower-case texts, made once: on its first search, or ahead of it while the person types. */
export function lowerTexts(chunk: SearchChunk): string[][] {
  let lower = lowered.get(chunk);
  if (!lower) lowered.set(chunk, (lower = chunk.columns.map((c) => (c.length === 2 ? c[1] : c[0]).map((t) => t.toLowerCase()))));
  return lower;
}

/** Row `i`'s text of a field. */
const valueAt = (column: SearchColumn, i: number): string => (column.length === 2 ? column[1][column[0][i]!]! : column[0][i]!);

/** The rows of `chunk` whose searched fields hold `term` (lower case): their count, and the first `keep` of them in detail. */
export function searchHits(chunk: SearchChunk, term: string, keep: number): { count: number; hits: Hit[] } {
  const lower = lowerTexts(chunk);
  // Per field, a test of a row: a coded field tests each of its distinct values once.
  const tests = chunk.columns.map((column, k): ((i: number) => boolean) => {
    if (column.length === 1) {
      const texts = lower[k]!;
      return (i) => texts[i]!.includes(term);
    }
    const holds = lower[k]!.map((t) => t.includes(term));
    if (!holds.includes(true)) return () => false;
    const codes = column[0];
    return (i) => holds[codes[i]!]!;
  });
  const hits: Hit[] = [];
  let count = 0;
  for (let i = 0; i < chunk.ids.length; i++) {
    if (!tests.some((test) => test(i))) continue;
    if (count++ >= keep) continue;
    const extra = chunk.fields.flatMap((f, k) => (k > 0 && tests[k]!(i) ? [`${f} ${valueAt(chunk.columns[k]!, i)}`] : []));
    hits.push({ id: chunk.ids[i]!, name: valueAt(chunk.columns[0]!, i) || chunk.ids[i]!, extra: extra.join(' · ') });
  }
  return { count, hits };
}
