/** The global search over one index chunk (pure): how many rows hold the term, and the first few, with the fields that matched. */
import type { SearchChunk } from './types.js';

const SEPARATOR = '\u0001';

export interface Hit {
  id: string;
  name: string;
  /** The fields other than the name that hold the term, with their values: `ip 10.0.0.1`. */
  extra: string;
}

/** Lower-case texts per chunk, made on its first search and kept for the next ones. */
const lowered = new WeakMap<SearchChunk, string[]>();

/** A chunk's lower-case texts, made once: on its first search, or ahead of it while the person types. */
export function lowerTexts(chunk: SearchChunk): string[] {
  let lower = lowered.get(chunk);
  if (!lower) lowered.set(chunk, (lower = chunk.texts.map((t) => t.toLowerCase())));
  return lower;
}

/** The rows of `chunk` whose searched fields hold `term` (lower case): their count, and the first `keep` of them in detail. */
export function searchHits(chunk: SearchChunk, term: string, keep: number): { count: number; hits: Hit[] } {
  const lower = lowerTexts(chunk);
  const hits: Hit[] = [];
  let count = 0;
  for (let i = 0; i < lower.length; i++) {
    if (!lower[i]!.includes(term)) continue;
    if (count++ >= keep) continue;
    const values = chunk.texts[i]!.split(SEPARATOR);
    const extra = chunk.fields.flatMap((f, k) => (k > 0 && values[k]!.toLowerCase().includes(term) ? [`${f} ${values[k]}`] : []));
    hits.push({ id: chunk.ids[i]!, name: values[0] || chunk.ids[i]!, extra: extra.join(' · ') });
  }
  return { count, hits };
}
