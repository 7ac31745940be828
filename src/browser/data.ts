/**
 * The data of the offline page (pure). Pages opened from disk cannot fetch() local JSON in
 * Chromium, so the data comes as scripts: `_browser/data.js` holds a compact index (ids, names,
 * links, counts, the last change, the data-quality findings), and each record's details sit in
 * one of a number of buckets `_browser/records/<resource>/<n>.js`, loaded by a <script> tag on
 * demand. The number of buckets is a power of two, so it changes rarely: a changed record rewrites
 * its own bucket, not every bucket.
 */
import type { ResourceName } from '../spec/resources.js';
import { RESOURCE_NAMES, RESOURCES } from '../spec/resources.js';
import { CODE_MEANINGS } from '../validate/findings.js';
import type { Quality } from '../validate/quality.js';
import { decodeJson } from '../json/encode.js';
import { isPlainObject } from '../util/json-value.js';

/** About at most this many records per detail bucket: small scripts, few files. */
const RECORDS_PER_BUCKET = 200;
/** Record ids a finding of the quality view lists (the count says how many there are). */
const IDS_PER_FINDING = 1000;
export const BROWSER_DIR = '_browser';
export const DATA_FILE = `${BROWSER_DIR}/data.js`;
export const bucketFile = (resource: ResourceName, bucket: number): string => `${BROWSER_DIR}/records/${resource}/${bucket}.js`;

/** Buckets for `count` records: the smallest power of two that keeps them at most RECORDS_PER_BUCKET each. */
export function bucketCount(count: number): number {
  let buckets = 1;
  while (buckets * RECORDS_PER_BUCKET < count) buckets *= 2;
  return buckets;
}

/** FNV-1a over UTF-16 code units; app.js computes the same to find a record's bucket. */
export function bucketOf(id: string, buckets: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % buckets;
}

/** What the page lists of a resource: ids and names in list order, and the fields links follow. */
export interface PageList {
  ids: string[];
  names: string[];
  /** appservers: server_id per record; databases: server_names per record. */
  refs: unknown[];
}

/** One list item's contribution to its PageList. */
export function addItem(list: PageList, resource: ResourceName, item: Record<string, unknown>): void {
  const id = String(item.id);
  list.ids.push(id);
  list.names.push(typeof item.name === 'string' ? item.name : id);
  if (resource === 'appservers') list.refs.push(item.server_id);
  if (resource === 'databases') list.refs.push(item.server_names);
}

/** The newest entry of `_meta/changes.json`, read defensively (absent or odd: undefined). */
export function lastChange(bytes: Buffer | undefined): Record<string, unknown> | undefined {
  const body = decodeJson(bytes);
  const entries = isPlainObject(body) && Array.isArray(body.changes) ? body.changes.filter(isPlainObject) : [];
  let newest: Record<string, unknown> | undefined;
  for (const entry of entries) if (typeof entry.at === 'string' && (!newest || entry.at > (newest.at as string))) newest = entry;
  return newest;
}

/** `data.js`: the index of every record, the links between them, the last change and the findings. */
export function dataScript(lists: Record<ResourceName, PageList>, change: Record<string, unknown> | undefined, quality: Quality): string {
  const serverIndex = new Map(lists.servers.ids.map((id, i) => [id, i]));
  const serverByName = new Map<string, number>();
  lists.servers.names.forEach((name, i) => {
    if (!serverByName.has(name)) serverByName.set(name, i);
  });
  const resources = Object.fromEntries(
    RESOURCE_NAMES.map((r) => [r, { singular: RESOURCES[r].singular, buckets: bucketCount(lists[r].ids.length), ids: lists[r].ids, names: lists[r].names }]),
  );
  // Links by position in the servers list: an appserver's server, a database's servers.
  const links = {
    appserverServer: lists.appservers.refs.map((id) => serverIndex.get(String(id)) ?? -1),
    databaseServers: lists.databases.refs.map((names) => (Array.isArray(names) ? names.map((n) => serverByName.get(String(n)) ?? -1).filter((i) => i >= 0) : [])),
  };
  const findings = [...quality.findings]
    .sort((a, b) => b.count - a.count)
    .map((g) => ({ resource: g.resource, field: g.field, code: g.code, meaning: CODE_MEANINGS[g.code], count: g.count, share: g.share, ids: g.ids.slice(0, IDS_PER_FINDING) }));
  const data = { format: 2, order: RESOURCE_NAMES, resources, links, lastChange: change ?? null, quality: { findings, shape: quality.shape } };
  return `window.IM_DATA=${JSON.stringify(data)};\n`;
}

/** One bucket's script: its records' details by id (a record missing from the folder is left out). */
export function bucketScript(resource: ResourceName, bucket: number, records: ReadonlyMap<string, unknown>): string {
  // Through JSON.parse, not as an object literal, where a "__proto__" key would set the prototype.
  return `IM_RECORDS(${JSON.stringify(resource)},${bucket},JSON.parse(${JSON.stringify(JSON.stringify(Object.fromEntries(records)))}));\n`;
}
