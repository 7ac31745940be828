/**
 * The offline browser page (index.html, _browser/*) of a snapshot, written into the snapshot by
 * a sync. The lists and the by_system / by_virtual views are read one item at a time, keeping per
 * record only its id, a digest of its list item and (servers, systems) what the views say of it;
 * a table chunk (and the detail buckets inside it) is built again only when its fingerprint
 * (members, list-item digests, record-file hashes, view facts) differs from the one the previous
 * chunk file starts with, and then from its own records' files, in batches of bounded size.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import fs from 'fs-extra';
import { hasChanges, type ChangeSet } from '../diff/engine.js';
import { decodeJson } from '../json/encode.js';
import { forEachItem } from '../json/scan.js';
import { decodeSegment, FILTER_DIR, filterFile, listFile, recordFile } from '../snapshot/paths.js';
import type { NextSnapshot } from '../publish/next.js';
import { configuredFilters, RESOURCES, type ResourceName } from '../spec/resources.js';
import { isPlainObject } from '../util/json-value.js';
import type { Quality } from '../validate/quality.js';
import { APP_CSS, INDEX_HTML } from './assets.js';
import { pageScript } from './bundle.js';
import { bucketCount, bucketFile, bucketOf, bucketScript, BROWSER_DIR, DATA_FILE, dataScript, decodeBucketScript, type ResourceSummary } from './data.js';
import { databaseKeys, type DatabaseKeys } from './db-links.js';
import { backLinks, bucketLinks, decodeTableScript, LINKED_RESOURCES, LINKS_KEPT, linksFile, linksScript, type DecodedChunk, type Ref } from './links.js';
import { searchFile, searchScript } from './search-index.js';
import { addHistoryEntry, HISTORY_FILE, historyEntry, historyScript, parseHistoryScript } from './history.js';
import { chunkFingerprint, chunkOf, readChunkHeader, tableChunkCount, tableFile, tableRow, systemFacts, tableScript, toColumns, viewColumn, withViewFacts, type Cell, type ViewFacts } from './table.js';

const BROWSER_INDEX_FILE = 'index.html';
/** List items held parsed at once while chunks are built: bounds the sync's memory at any scale. */
const ROWS_PER_BATCH = 32_768;
/** Record files read at once while a chunk is built. */
const READS_AT_ONCE = 64;

interface BrowserInput {
  writer: NextSnapshot;
  /** The resources mirrored (config `resources`): the page has tables for them only. */
  resources: readonly ResourceName[];
  quality: Quality;
  /** The records added, removed and changed since the previous snapshot, with field values. */
  changes: ChangeSet;
  records: Partial<Record<ResourceName, number>>;
  initial: boolean;
  at: Date;
}

/** Puts the page's files into the new snapshot. */
export async function browserFiles({ writer, resources, quality, changes, records, initial, at }: BrowserInput): Promise<void> {
  await writer.put(BROWSER_INDEX_FILE, Buffer.from(INDEX_HTML));
  await writer.put(`${BROWSER_DIR}/app.css`, Buffer.from(APP_CSS));
  await writer.put(`${BROWSER_DIR}/app.js`, pageScript());
  const summaries: Partial<Record<ResourceName, ResourceSummary>> = {};
  const facts = await viewFacts(writer);
  for (const resource of resources) summaries[resource] = await writeTables(writer, resource, resource === 'servers' || resource === 'operating_systems' ? facts[resource] : undefined);
  await writer.put(DATA_FILE, Buffer.from(dataScript(summaries, quality)));
  await writeLinks(writer, summaries, facts.systemServers);
  await writeHistory(writer, { resources, changes, records, initial, at });
}

/** The history script: kept as it is when no record changed, else with this sync's entry in front. */
async function writeHistory(writer: NextSnapshot, input: Omit<BrowserInput, 'writer' | 'quality'>): Promise<void> {
  const quiet = !input.initial && !hasChanges(input.changes);
  if (quiet && writer.previous?.has(HISTORY_FILE) && writer.keep(HISTORY_FILE)) return;
  const previous = parseHistoryScript(await writer.read(HISTORY_FILE));
  const history = quiet ? (previous ?? { entries: [] }) : addHistoryEntry(previous, historyEntry(input.at.toISOString(), input.changes, input.records, input.initial));
  await writer.put(HISTORY_FILE, Buffer.from(historyScript(history)), { replace: true });
}

const digest = (bytes: Buffer): string => createHash('sha1').update(bytes).digest('base64');

/** The fingerprint a published chunk file starts with, if any. */
async function publishedFingerprint(writer: NextSnapshot, file: string): Promise<string | undefined> {
  if (!writer.previous?.has(file)) return undefined;
  const handle = await fs.open(join(writer.dir, file), 'r').catch(() => undefined);
  if (handle === undefined) return undefined;
  try {
    const head = Buffer.alloc(64);
    const { bytesRead } = await fs.read(handle, head, 0, head.length, 0);
    return readChunkHeader(head.subarray(0, bytesRead));
  } finally {
    await fs.close(handle);
  }
}

/** One resource's table chunks and detail buckets: each chunk kept when its fingerprint matches, else built again. */
async function writeTables(writer: NextSnapshot, resource: ResourceName, facts: Map<string, ViewFacts> | undefined): Promise<ResourceSummary> {
  const ids: string[] = [];
  const digests: string[] = [];
  await forEachItem(writer.readStream(listFile(resource))!, resource, (element) => {
    const item = JSON.parse(element.bytes.toString('utf8')) as Record<string, unknown>;
    ids.push(String(item.id));
    digests.push(digest(element.bytes));
  });
  const factKey = (id: string): string => {
    const f = facts?.get(id);
    return f ? `${f.os?.id ?? ''}|${f.virtual ?? ''}|${f.parent?.id ?? ''}|${JSON.stringify(f.columns ?? [])}` : '';
  };
  const chunks = tableChunkCount(ids.length);
  const buckets = Math.max(bucketCount(ids.length), chunks);
  const members: number[][] = Array.from({ length: chunks }, () => []);
  ids.forEach((id, i) => members[chunkOf(id, chunks)]!.push(i));
  const recordHash = (id: string): string => {
    const i = writer.entries.indexOf(recordFile(resource, id));
    return i === undefined ? '' : writer.entries.sha256(i);
  };
  // A chunk holds the buckets b with b % chunks === c: both counts are powers of two over the same hash.
  const bucketsOf = (chunk: number): number[] => Array.from({ length: buckets / chunks }, (_, k) => chunk + k * chunks);

  const dirty: { chunk: number; fingerprint: string }[] = [];
  for (let c = 0; c < chunks; c++) {
    const fingerprint = chunkFingerprint([chunks, buckets], members[c]!.map((i) => [ids[i]!, digests[i]!, recordHash(ids[i]!), factKey(ids[i]!)]));
    const files = [tableFile(resource, c), searchFile(resource, c), ...bucketsOf(c).map((b) => bucketFile(resource, b))];
    const same = (await publishedFingerprint(writer, files[0]!)) === fingerprint && files.every((f) => writer.previous!.has(f));
    if (same && files.every((f) => writer.keep(f))) continue;
    dirty.push({ chunk: c, fingerprint });
  }

  // Built in batches: each batch reads the list once more and holds only its own items.
  for (let start = 0; start < dirty.length; ) {
    let rows = 0;
    let end = start;
    while (end < dirty.length && (end === start || rows + members[dirty[end]!.chunk]!.length <= ROWS_PER_BATCH)) rows += members[dirty[end++]!.chunk]!.length;
    const batch = dirty.slice(start, end);
    const wanted = new Set(batch.flatMap((d) => members[d.chunk]!));
    const items = new Map<number, Record<string, unknown>>();
    let index = 0;
    await forEachItem(writer.readStream(listFile(resource))!, resource, (element) => {
      if (wanted.has(index)) items.set(index, JSON.parse(element.bytes.toString('utf8')) as Record<string, unknown>);
      index++;
    });
    for (const { chunk, fingerprint } of batch) await writeChunk(writer, resource, { chunk, fingerprint, buckets, bucketList: bucketsOf(chunk), members: members[chunk]!.map((i) => [ids[i]!, items.get(i), facts?.get(ids[i]!)] as const) });
    start = end;
  }
  return { count: ids.length, chunks, buckets };
}

interface ChunkInput {
  chunk: number;
  fingerprint: string;
  buckets: number;
  bucketList: number[];
  /** The chunk's records in list order: id, list item, what the filtered views say of it. */
  members: readonly (readonly [string, Record<string, unknown> | undefined, ViewFacts | undefined])[];
}

/** Builds one table chunk and its detail buckets from the list items and the records' files. */
async function writeChunk(writer: NextSnapshot, resource: ResourceName, input: ChunkInput): Promise<void> {
  const singular = RESOURCES[resource].singular;
  const details = new Map<number, Map<string, unknown>>(input.bucketList.map((b) => [b, new Map()]));
  const ids: string[] = [];
  const rows: Record<string, Cell>[] = [];
  // Read a slice of files at once: one by one, the sync would mostly wait on the disk.
  const bodies: (Buffer | undefined)[] = [];
  for (let start = 0; start < input.members.length; start += READS_AT_ONCE) {
    bodies.push(...(await Promise.all(input.members.slice(start, start + READS_AT_ONCE).map(([id]) => writer.read(recordFile(resource, id))))));
  }
  for (const [k, [id, item, facts]] of input.members.entries()) {
    const body = decodeJson(bodies[k]);
    const single = isPlainObject(body) && isPlainObject(body[singular]) ? body[singular] : undefined;
    if (single) details.get(bucketOf(id, input.buckets))!.set(id, single);
    ids.push(id);
    rows.push(withViewFacts(tableRow(item, single), facts));
  }
  await writer.put(tableFile(resource, input.chunk), Buffer.from(tableScript(resource, input.chunk, input.fingerprint, toColumns(ids, rows))), { replace: true });
  await writer.put(searchFile(resource, input.chunk), Buffer.from(searchScript(resource, input.chunk, ids, rows)), { replace: true });
  for (const [b, records] of details) await writer.put(bucketFile(resource, b), Buffer.from(bucketScript(resource, b, records)), { replace: true });
}

/** A resource's table chunks as this snapshot holds them (just written or kept). */
async function readChunks(writer: NextSnapshot, resource: ResourceName, chunks: number): Promise<DecodedChunk[]> {
  const out: DecodedChunk[] = [];
  for (let c = 0; c < chunks; c++) {
    const chunk = decodeTableScript((await writer.read(tableFile(resource, c)))?.toString('utf8') ?? '');
    if (chunk) out.push(chunk);
  }
  return out;
}

/** What each database answers to, from its detail buckets (the schemas are in no table column). */
async function readDatabaseKeys(writer: NextSnapshot, summary: ResourceSummary | undefined): Promise<Map<string, DatabaseKeys>> {
  const out = new Map<string, DatabaseKeys>();
  for (let b = 0; b < (summary?.buckets ?? 0); b++) {
    for (const [id, record] of decodeBucketScript((await writer.read(bucketFile('databases', b)))?.toString('utf8') ?? '')) {
      if (isPlainObject(record)) out.set(id, databaseKeys(record));
    }
  }
  return out;
}

/**
 * The record pages' links, one file per detail bucket of every resource: from the servers list,
 * the `by_system` views, the other tables' chunks and the databases' buckets, never the whole
 * servers table. Every bucket is put, empty or not, so the page finds each one; unchanged ones are
 * not rewritten.
 */
async function writeLinks(writer: NextSnapshot, summaries: Partial<Record<ResourceName, ResourceSummary>>, systemServers: ReadonlyMap<string, { first: readonly string[]; count: number }>): Promise<void> {
  const servers: Ref[] = [];
  // A resource not mirrored (config `resources`) has no list and no tables: nothing links to it.
  const list = summaries.servers ? writer.readStream(listFile('servers')) : undefined;
  if (list) {
    await forEachItem(list, 'servers', (element) => {
      const item = JSON.parse(element.bytes.toString('utf8')) as Record<string, unknown>;
      servers.push([String(item.id), typeof item.name === 'string' ? item.name : String(item.id)]);
    });
  }
  const rows = async (resource: 'applications' | 'appservers' | 'databases' | 'operating_systems') => {
    const summary = summaries[resource];
    return summary ? readChunks(writer, resource, summary.chunks) : [];
  };
  const links = backLinks({
    servers,
    applications: await rows('applications'),
    appservers: await rows('appservers'),
    databases: await rows('databases'),
    operatingSystems: await rows('operating_systems'),
    databaseKeys: await readDatabaseKeys(writer, summaries.databases),
    systemServers,
  });
  for (const resource of LINKED_RESOURCES) {
    const summary = summaries[resource];
    if (!summary) continue;
    for (const [b, bucket] of bucketLinks(links[resource], summary.buckets).entries()) await writer.put(linksFile(resource, b), Buffer.from(linksScript(resource, b, bucket)), { replace: true });
  }
}

/** The ids of a list file, read one item at a time (undefined when the snapshot lacks the file). */
async function viewIds(writer: NextSnapshot, resource: ResourceName, file: string): Promise<string[] | undefined> {
  const stream = writer.entries.has(file) ? writer.readStream(file) : undefined;
  if (!stream) return undefined;
  const ids: string[] = [];
  await forEachItem(stream, resource, (element) => ids.push(String((JSON.parse(element.bytes.toString('utf8')) as { id: unknown }).id)));
  return ids;
}

/** The configured server views of the snapshot (`servers/_filter/by_location/site%3A4.json`): param, value and file, sorted. */
function configuredViews(writer: NextSnapshot): [string, string, string][] {
  const params = new Set<string>(configuredFilters('servers'));
  const out: [string, string, string][] = [];
  const prefix = `servers/${FILTER_DIR}/`;
  for (const path of writer.entries.paths()) {
    if (!path.startsWith(prefix) || !path.endsWith('.json')) continue;
    const [param, name, ...rest] = path.slice(prefix.length, -'.json'.length).split('/');
    const value = name === undefined ? undefined : decodeSegment(name);
    if (rest.length === 0 && param !== undefined && params.has(param) && value !== undefined) out.push([param, value, path]);
  }
  return out.sort((a, b) => (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0));
}

/** What the `by_system`, `by_virtual` and configured views say of each server and each operating system, by id. */
async function viewFacts(writer: NextSnapshot): Promise<Record<'servers' | 'operating_systems', Map<string, ViewFacts>> & { systemServers: Map<string, { first: string[]; count: number }> }> {
  const systems: { id: string; name: string; size: number }[] = [];
  await forEachItem(writer.readStream(listFile('operating_systems'))!, 'operating_systems', (element) => {
    const os = JSON.parse(element.bytes.toString('utf8')) as Record<string, unknown>;
    systems.push({ id: String(os.id), name: typeof os.name === 'string' ? os.name : String(os.id), size: 0 });
  });
  // Per server, the indexes of the systems whose view holds it: a few numbers each.
  const serverSystems = new Map<string, number[]>();
  // Per system, its view's first servers and their count: the servers on it or on a descendant, its record page's links.
  const systemServers = new Map<string, { first: string[]; count: number }>();
  for (const [s, os] of systems.entries()) {
    const ids = (await viewIds(writer, 'servers', filterFile('servers', 'by_system', os.id))) ?? [];
    systemServers.set(os.id, { first: ids.slice(0, 2 * LINKS_KEPT), count: ids.length });
    os.size = ids.length;
    for (const id of ids) {
      const list = serverSystems.get(id);
      if (list) list.push(s);
      else serverSystems.set(id, [s]);
    }
  }
  const { servers, parents } = systemFacts(systems, serverSystems);
  // One reference object per system, shared by its servers.
  const refs = systems.map((os) => ({ id: os.id, name: os.name }));
  const serverFacts = new Map<string, ViewFacts>([...servers].map(([id, s]) => [id, { os: refs[s]! }]));
  for (const [value, virtual] of [['1', true], ['0', false]] as const) {
    for (const id of (await viewIds(writer, 'servers', filterFile('servers', 'by_virtual', value))) ?? []) {
      const f = serverFacts.get(id);
      if (f) f.virtual = virtual;
      else serverFacts.set(id, { virtual });
    }
  }
  for (const [param, value, file] of configuredViews(writer)) {
    const column = viewColumn(param, value);
    if (!column) continue;
    for (const id of (await viewIds(writer, 'servers', file)) ?? []) {
      const f = serverFacts.get(id);
      if (f) (f.columns ??= []).push(column);
      else serverFacts.set(id, { columns: [column] });
    }
  }
  return { servers: serverFacts, operating_systems: new Map([...parents].map(([s, p]) => [systems[s]!.id, { parent: refs[p]! }])), systemServers };
}
