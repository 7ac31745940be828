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
import type { CachedList } from '../snapshot/http-cache.js';
import { EnvelopeScanner, ScanError } from '../json/scan.js';
import { valueFields, type RedactPolicy } from '../redact/policy.js';
import { redacts } from '../redact/redact.js';
import type { ResourceName } from '../spec/resources.js';
import { ItemPlaces, Summarizer, type ListSummary } from './list-summary.js';

/**
 * Items per chunk (a StringList's, so a chunk's ids and names are kept as the one string each they
 * are read as): the summary is an array of chunks, each parsed on its own, so neither writing nor
 * reading a summary of 200 000 servers holds it whole as strings (about 25 MB). In a chunk the ids
 * are one string and their lengths an array, the names too (-1: no name), so reading 360 000 items
 * makes a few strings per chunk rather than two per item.
 */
const CHUNK_ITEMS = 4096;

/** The summary of `list` as JSON text in pieces (a chunk each), or undefined when it has no layout to keep. */
export function encodeListCache(list: ListSummary): Iterable<string | Buffer> | undefined {
  // Re-encoding a summary read from the run metadata would make the same text again, at the cost of 80 MB of garbage at 200 000 servers.
  if (list.cachedText) return list.cachedText;
  const layout = list.layout;
  if (!layout || layout.length !== list.ids.length) return undefined;
  return listPieces(list, layout);
}

function* listPieces(list: ListSummary, layout: ItemPlaces): Generator<string> {
  const count = list.ids.length;
  // nameAt holds '' for an item without a string name; only a server's name set tells a '' name apart.
  const emptyName = list.resource === 'servers' && list.names.has('');
  const refs = list.refs.length === count;
  yield `{"stamped":${list.stamped},"types":${JSON.stringify([...list.types])},"chunks":[`;
  for (let from = 0; from < count; from += CHUNK_ITEMS) {
    const ids: string[] = [];
    const names: string[] = [];
    const chunk = { ids: '', idLengths: [] as number[], names: '', nameLengths: [] as number[], gaps: [] as number[], lengths: [] as number[] };
    const refTexts: string[] = [];
    let end = from === 0 ? 0 : layout.at(from - 1).at + layout.at(from - 1).length;
    for (let n = from; n < Math.min(count, from + CHUNK_ITEMS); n++) {
      const id = list.ids.at(n);
      ids.push(id);
      chunk.idLengths.push(id.length);
      const name = list.nameAt.at(n);
      names.push(name);
      chunk.nameLengths.push(name === '' && !emptyName ? -1 : name.length);
      const { at, length } = layout.at(n);
      chunk.gaps.push(at - end);
      chunk.lengths.push(length);
      end = at + length;
      if (refs) refTexts.push(list.refs.at(n));
    }
    chunk.ids = ids.join('');
    chunk.names = names.join('');
    // The references are JSON texts already: put in as they are.
    const text = JSON.stringify(chunk);
    yield `${from === 0 ? '' : ','}${refs ? `${text.slice(0, -1)},"refs":[${refTexts.join(',')}]}` : text}`;
  }
  yield ']}';
}

const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

interface DecodeOptions {
  /** Names the list in messages. */
  where: string;
  maxRecords: number;
  /** The published list file's size: every item must sit inside it. */
  fileSize: number;
}

/** Lengths of values joined in `text`, each at least `least` (-1 counts as none); whether they add up to it. */
function lengthsFit(text: unknown, lengths: unknown, count: number, least: number): lengths is number[] {
  if (typeof text !== 'string' || !Array.isArray(lengths) || lengths.length !== count) return false;
  let total = 0;
  // Indexed: a for-of here, run once per chunk and never optimized, made an object per item.
  for (let k = 0; k < lengths.length; k++) {
    const length: unknown = lengths[k];
    if (!Number.isSafeInteger(length) || (length as number) < least) return false;
    total += Math.max(0, length as number);
  }
  return total === text.length;
}

/** Reads the items of one chunk into `summary`; the end of the last item, or undefined when the chunk does not hold together. */
function takeChunk(summary: Summarizer, chunk: unknown, stamped: boolean, referring: boolean, end: number): number | undefined {
  if (typeof chunk !== 'object' || chunk === null) return undefined;
  const { ids, idLengths, names, nameLengths, refs, gaps, lengths } = chunk as Record<string, unknown>;
  const count = Array.isArray(idLengths) ? idLengths.length : -1;
  const sameLength = (v: unknown): v is unknown[] => Array.isArray(v) && v.length === count;
  if (!lengthsFit(ids, idLengths, count, 1) || !lengthsFit(names, nameLengths, count, -1) || !sameLength(gaps) || !sameLength(lengths) || (referring && !sameLength(refs))) return undefined;
  const from = end;
  for (let n = 0; n < count; n++) {
    const gap = gaps[n];
    const length = lengths[n];
    if (!isCount(gap) || !isCount(length) || length === 0) return undefined;
    end += gap + length;
  }
  summary.takeCachedChunk({ ids: ids as string, idLengths, names: names as string, nameLengths, refs: referring ? (refs as unknown[]) : [], gaps: gaps as number[], lengths: lengths as number[], from, stamped });
  return end;
}

/** The summary kept in `cached` of the published list of `resource`, or undefined when it is not usable. */
export function decodeListCache(resource: ResourceName, cached: CachedList, options: DecodeOptions): ListSummary | undefined {
  const { pieces } = cached;
  const scanner = new EnvelopeScanner('chunks');
  const summary = new Summarizer(resource, options.where, options.maxRecords, new ItemPlaces());
  const referring = resource === 'databases' || resource === 'appservers';
  let end = 0;
  try {
    const chunks = pieces.flatMap((piece) => scanner.push(piece));
    scanner.end();
    const head = new Map(scanner.members.map((m) => [m.key, JSON.parse(m.bytes.toString('utf8')) as unknown]));
    const stamped = head.get('stamped');
    const types = head.get('types');
    if (typeof stamped !== 'boolean' || !Array.isArray(types) || !types.every((t) => typeof t === 'string' && t.length > 0)) return undefined;
    for (const chunk of chunks) {
      const reached = takeChunk(summary, JSON.parse(chunk.bytes.toString('utf8')), stamped, referring, end);
      if (reached === undefined) return undefined;
      end = reached;
    }
    if (end > options.fileSize) return undefined;
    for (const type of types as string[]) summary.types.add(type);
    return { ...summary.finish(false), cachedText: cached.again() };
  } catch (error) {
    // Not JSON, more records than sync.maxRecords, an id twice: not a summary of a list we published.
    if (error instanceof ScanError || error instanceof SyntaxError || error instanceof ValidationError) return undefined;
    throw error;
  }
}

/**
 * The summaries to keep of a sync's lists, as JSON text in pieces by resource: of each list mirrored with
 * nothing redacted (by field or by value) and no record left out (a list rewritten without the
 * records that answered 404 is read again next time).
 */
export function keptListSummaries(lists: Record<ResourceName, ListSummary>, resources: readonly ResourceName[], redact: RedactPolicy | undefined, gone: Record<ResourceName, readonly string[]>): Map<string, Iterable<string | Buffer>> {
  const kept = new Map<string, Iterable<string | Buffer>>();
  if (valueFields(redact).length > 0) return kept;
  for (const resource of resources) {
    if (redacts(resource, redact) || gone[resource].length > 0) continue;
    const text = encodeListCache(lists[resource]);
    if (text !== undefined) kept.set(resource, text);
  }
  return kept;
}
