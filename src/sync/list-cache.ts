/**
 * The list summaries a sync keeps in its run metadata (`_meta/http-cache.json`, member `lists`):
 * for each list it published, the ids, names, references and database types the later steps
 * use, and where each item sits in the file. A later sync whose list the service answers 304 for
 * takes its summary from here instead of reading the list again (about 200 MB at 200 000
 * servers). Kept only for lists with nothing redacted and no record left out: then every value
 * here is one the published list itself shows. Anything here that does not hold together is not
 * used: the list is read from the file instead.
 */
import { ValidationError } from '../errors.js';
import { valueFields, type RedactPolicy } from '../redact/policy.js';
import { redacts } from '../redact/redact.js';
import type { ResourceName } from '../spec/resources.js';
import { ItemPlaces, Summarizer, type ListSummary } from './list-summary.js';

/** Items encoded per piece of text: a summary of 200 000 servers is written without one long string. */
const PIECE = 4096;

/** A JSON array of `count` values, `value(n)` each (already JSON text with `raw`), in pieces. */
function* arrayPieces(count: number, value: (n: number) => unknown, raw = false): Generator<string> {
  yield '[';
  for (let from = 0; from < count; from += PIECE) {
    const part: unknown[] = [];
    for (let n = from; n < Math.min(count, from + PIECE); n++) part.push(value(n));
    yield (from === 0 ? '' : ',') + (raw ? part.join(',') : JSON.stringify(part).slice(1, -1));
  }
  yield ']';
}

/** The summary of `list` as JSON text in pieces, or undefined when it has no layout to keep. */
export function encodeListCache(list: ListSummary): Iterable<string> | undefined {
  const layout = list.layout;
  if (!layout || layout.length !== list.ids.length) return undefined;
  return listPieces(list, layout);
}

function* listPieces(list: ListSummary, layout: ItemPlaces): Generator<string> {
  const count = list.ids.length;
  // nameAt holds '' for an item without a string name; only a server's name set tells a '' name apart.
  const emptyName = list.resource === 'servers' && list.names.has('');
  yield '{"ids":';
  yield* arrayPieces(count, (n) => list.ids.at(n));
  yield ',"names":';
  yield* arrayPieces(count, (n) => {
    const name = list.nameAt.at(n);
    return name === '' && !emptyName ? null : name;
  });
  yield `,"stamped":${list.stamped},"types":${JSON.stringify([...list.types])}`;
  if (list.refs.length === count) {
    yield ',"refs":';
    yield* arrayPieces(count, (n) => list.refs.at(n), true);
  }
  yield ',"gaps":';
  yield* arrayPieces(count, (n) => layout.at(n).at - (n === 0 ? 0 : layout.at(n - 1).at + layout.at(n - 1).length));
  yield ',"lengths":';
  yield* arrayPieces(count, (n) => layout.at(n).length);
  yield '}';
}

const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

interface DecodeOptions {
  /** Names the list in messages. */
  where: string;
  maxRecords: number;
  /** The published list file's size: every item must sit inside it. */
  fileSize: number;
}

/** The summary kept in `bytes` (JSON) of the published list of `resource`, or undefined when it is not usable. */
export function decodeListCache(resource: ResourceName, bytes: Buffer, options: DecodeOptions): ListSummary | undefined {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { ids, names, stamped, types, refs, gaps, lengths } = value as Record<string, unknown>;
  const count = Array.isArray(ids) ? ids.length : -1;
  const referring = resource === 'databases' || resource === 'appservers';
  const sameLength = (v: unknown): v is unknown[] => Array.isArray(v) && v.length === count;
  if (!sameLength(ids) || count > options.maxRecords || !sameLength(names) || !sameLength(gaps) || !sameLength(lengths) || typeof stamped !== 'boolean') return undefined;
  if (!Array.isArray(types) || !types.every((t) => typeof t === 'string' && t.length > 0) || (referring && !sameLength(refs))) return undefined;
  const summary = new Summarizer(resource, options.where, options.maxRecords, new ItemPlaces());
  let end = 0;
  for (let n = 0; n < count; n++) {
    const id = ids[n];
    const name = names[n];
    const gap = gaps[n];
    const length = lengths[n];
    if (typeof id !== 'string' || id.length === 0 || !(name === null || typeof name === 'string') || !isCount(gap) || !isCount(length) || length === 0) return undefined;
    const at = end + gap;
    end = at + length;
    summary.takeCached(id, { name, updatedAt: stamped ? '' : undefined, ref: referring ? (refs as unknown[])[n] : undefined }, at, length);
  }
  if (end > options.fileSize) return undefined;
  for (const type of types as string[]) summary.types.add(type);
  try {
    return summary.finish(false);
  } catch (error) {
    // An id twice: not a list we published.
    if (error instanceof ValidationError) return undefined;
    throw error;
  }
}

/**
 * The summaries to keep of a sync's lists, as JSON text in pieces by resource: of each list mirrored with
 * nothing redacted (by field or by value) and no record left out (a list rewritten without the
 * records that answered 404 is read again next time).
 */
export function keptListSummaries(lists: Record<ResourceName, ListSummary>, resources: readonly ResourceName[], redact: RedactPolicy | undefined, gone: Record<ResourceName, readonly string[]>): Map<string, Iterable<string>> {
  const kept = new Map<string, Iterable<string>>();
  if (valueFields(redact).length > 0) return kept;
  for (const resource of resources) {
    if (redacts(resource, redact) || gone[resource].length > 0) continue;
    const text = encodeListCache(lists[resource]);
    if (text !== undefined) kept.set(resource, text);
  }
  return kept;
}
