/**
 * The list summaries kept in the run metadata (`list <resource>` in `_meta/http-cache.json`): what a later
 * sync takes instead of reading a list the service answered 304 for. They must describe the
 * published list exactly (ids, names, references, where each item sits), be refused when they do
 * not hold together, and never stand in for a list altered on disk.
 */
import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forEachItem } from '../../src/json/scan.js';
import { CachedList } from '../../src/snapshot/http-cache.js';
import { decodeListCache, encodeListCache } from '../../src/sync/list-cache.js';
import { ItemPlaces, Summarizer, type ListSummary } from '../../src/sync/list-summary.js';
import { RESOURCE_NAMES } from '../../src/spec/resources.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { snapshotData } from '../helpers/tree.js';
import { useUpstream } from '../helpers/upstream.js';

type Chunk = { ids: unknown; idLengths: unknown[]; names: unknown; nameLengths: unknown[]; gaps: unknown[]; lengths: unknown[]; refs?: unknown[] };
type Kept = { stamped: boolean; types: string[]; chunks: Chunk[] };

/** The summary of `resource`'s list in the folder's run metadata. */
const keptOf = (out: string, resource: string): Kept => (JSON.parse(readFileSync(join(out, '_meta/http-cache.json'), 'utf8')) as Record<string, Kept>)[`list ${resource}`]!;

/** JSON text in pieces of 7 bytes, as the run metadata's reader hands a summary over: cut anywhere, even inside a character (never read again from its file here). */
const inPieces = (bytes: Buffer): CachedList => new CachedList(Array.from({ length: Math.ceil(bytes.length / 7) }, (_, n) => bytes.subarray(n * 7, n * 7 + 7)), '/nonexistent', 0);
const json = (value: unknown): CachedList => inPieces(Buffer.from(JSON.stringify(value)));

/** Each item of a published list as it sits in the file: id, start, length. */
async function itemsOf(out: string, resource: string): Promise<[string, number, number][]> {
  const items: [string, number, number][] = [];
  await forEachItem(createReadStream(join(out, `${resource}.json`)) as AsyncIterable<Buffer>, resource, (element) => {
    items.push([(JSON.parse(element.bytes.toString('utf8')) as { id: string }).id, element.at, element.bytes.length]);
  });
  return items;
}

/** The items a kept summary describes: id, start, length. */
function described(kept: Kept): [string, number, number][] {
  let end = 0;
  return kept.chunks.flatMap((chunk) => {
    let idAt = 0;
    return chunk.idLengths.map((idLength, n): [string, number, number] => {
      const at = end + (chunk.gaps[n] as number);
      end = at + (chunk.lengths[n] as number);
      return [(chunk.ids as string).slice(idAt, (idAt += idLength as number)), at, chunk.lengths[n] as number];
    });
  });
}

/** A summary of items `[id, name (null: none), ref, at, length]`, built as a list cache's reader builds one. */
function summaryOf(resource: 'servers' | 'databases', items: [string, string | null, unknown, number, number][], stamped = true): ListSummary {
  const summary = new Summarizer(resource, 'test', 10_000, new ItemPlaces());
  let end = 0;
  for (let from = 0; from < items.length; from += 4096) {
    const chunk = items.slice(from, from + 4096);
    const start = end;
    const gaps = chunk.map(([, , , at, length]) => {
      const gap = at - end;
      end = at + length;
      return gap;
    });
    summary.takeCachedChunk({
      ids: chunk.map(([id]) => id).join(''),
      idLengths: chunk.map(([id]) => id.length),
      names: chunk.map(([, name]) => name ?? '').join(''),
      nameLengths: chunk.map(([, name]) => (name === null ? -1 : name.length)),
      refs: chunk.map(([, , ref]) => ref),
      gaps,
      lengths: chunk.map(([, , , , length]) => length),
      from: start,
      stamped,
    });
  }
  return summary.finish(false);
}

describe('list summaries in the run metadata', () => {
  it('describe every published list exactly, after a first sync and after lists changed, and a re-sync with them equals a full sync', { timeout: 120_000 }, async () => {
    const upstream = await useUpstream({ scale: 80, profile: 'realistic' });
    const out = tempDir();
    await syncInto(upstream, out);
    for (const resource of RESOURCE_NAMES) expect(described(keptOf(out, resource))).toEqual(await itemsOf(out, resource));

    upstream.mutate({ seed: 3, share: 0.1 });
    const changed = await syncInto(upstream, out, { settings: { incremental: true } });
    expect(changed.status).toBe('published');
    for (const resource of RESOURCE_NAMES) expect(described(keptOf(out, resource))).toEqual(await itemsOf(out, resource));

    // Nothing changed since: every list is a 304 and comes from the summaries, which are kept as they were read.
    const before = RESOURCE_NAMES.map((resource) => JSON.stringify(keptOf(out, resource)));
    const again = await syncInto(upstream, out, { settings: { incremental: true } });
    expect(again.notModified).toBe(again.requests);
    expect(RESOURCE_NAMES.map((resource) => JSON.stringify(keptOf(out, resource)))).toEqual(before);
    upstream.mutate({ seed: 4, share: 0.1 });
    await syncInto(upstream, out, { settings: { incremental: true } });
    const fresh = tempDir();
    await syncInto(upstream, fresh);
    expect(await snapshotData(out)).toEqual(await snapshotData(fresh));
  });

  it('never stand in for a list altered on disk: the next sync fetches and restores it', { timeout: 120_000 }, async () => {
    const upstream = await useUpstream({ scale: 40, profile: 'realistic' });
    const out = tempDir();
    await syncInto(upstream, out);
    const file = join(out, 'servers.json');
    const published = readFileSync(file, 'utf8');
    // Same size, other bytes: only reading it shows the change.
    const [first] = await itemsOf(out, 'servers');
    writeFileSync(file, published.replace(`"id": "${first![0]}"`, `"id": "${'9'.repeat(first![0].length)}"`));
    expect(readFileSync(file, 'utf8')).not.toBe(published);

    const result = await syncInto(upstream, out, { settings: { incremental: true } });
    expect(result.files.written).toBeGreaterThan(0);
    expect(readFileSync(file, 'utf8')).toBe(published);
  });

  it('hold a list longer than one chunk, item for item', () => {
    const list = summaryOf('servers', Array.from({ length: 5000 }, (_, n): [string, string | null, unknown, number, number] => [String(n), n === 7 ? '' : `s${n}`, undefined, 10 + 20 * n, 14]), false);
    const decoded = decodeListCache('servers', inPieces(Buffer.from([...encodeListCache(list)!].join(''))), { where: 'test', maxRecords: 10_000, fileSize: 100_010 })!;
    expect(Array.from(decoded.ids)).toEqual(Array.from(list.ids));
    expect(Array.from(decoded.nameAt)).toEqual(Array.from(list.nameAt));
    expect([decoded.names.has(''), decoded.names.has('s4999'), decoded.names.has('s7'), decoded.stamped]).toEqual([true, true, false, false]);
    expect(Array.from(list.ids).every((id) => decoded.members.has(id))).toBe(true);
    expect([decoded.members.has('5000'), decoded.members.size]).toEqual([false, 5000]);
    expect([decoded.places!.at(4095), decoded.places!.at(4096), decoded.places!.at(4999)]).toEqual([list.places!.at(4095), list.places!.at(4096), list.places!.at(4999)]);
  });

  it('are refused, not trusted, when they do not hold together', () => {
    const list = summaryOf('databases', [
      ['1', 'a', ['s1'], 20, 30],
      ['2', null, null, 56, 40],
    ]);
    list.types.add('postgres');
    const kept = JSON.parse([...encodeListCache(list)!].join('')) as Kept;
    const options = { where: 'test', maxRecords: 100, fileSize: 200 };
    const decoded = decodeListCache('databases', json(kept), options)!;
    expect([Array.from(decoded.ids), Array.from(decoded.nameAt), Array.from(decoded.refs), [...decoded.types], decoded.stamped]).toEqual([['1', '2'], ['a', ''], ['["s1"]', 'null'], ['postgres'], true]);
    expect([decoded.places!.at(0), decoded.places!.at(1)]).toEqual([{ at: 20, length: 30 }, { at: 56, length: 40 }]);

    const chunk = kept.chunks[0]!;
    const withChunk = (change: Partial<Chunk>): Kept => ({ ...kept, chunks: [{ ...chunk, ...change }] });
    const broken: [string, unknown][] = [
      ['an item past the end of the file', withChunk({ lengths: [30, 400] })],
      ['an id twice', withChunk({ ids: '11' })],
      ['arrays of other lengths', withChunk({ nameLengths: [1] })],
      ['lengths that do not add up to the ids', withChunk({ idLengths: [1, 2] })],
      ['an empty id', withChunk({ ids: '2', idLengths: [0, 1] })],
      ['ids that are not a string', withChunk({ ids: ['1', '2'] })],
      ['a name length below -1', withChunk({ nameLengths: [1, -2] })],
      ['the form of an earlier version (arrays of ids and names)', withChunk({ ids: ['1', '2'], idLengths: undefined, names: ['a', null], nameLengths: undefined } as unknown as Partial<Chunk>)],
      ['no references for databases', withChunk({ refs: undefined })],
      ['no types', { ...kept, types: undefined }],
      ['not an object', 'lists'],
    ];
    for (const [what, value] of broken) expect(decodeListCache('databases', json(value), options), what).toBeUndefined();
    expect(decodeListCache('databases', json(kept), { ...options, maxRecords: 1 }), 'more records than sync.maxRecords').toBeUndefined();
    expect(decodeListCache('databases', inPieces(Buffer.from('{"chunks":[{"ids":[')), options), 'not JSON').toBeUndefined();
  });
});
