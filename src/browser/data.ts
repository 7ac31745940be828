/**
 * The data of the offline page, built from the snapshot's files (pure). Pages opened from disk
 * cannot fetch() local JSON in Chromium, so the data comes as scripts: `_browser/data.js` holds a
 * compact index (ids, names, links, counts, the last change), and each record's details sit in
 * one of a few buckets `_browser/records/<resource>/<n>.js`, loaded by a <script> tag on demand.
 */
import { CHANGES_FILE, listFile, recordFile } from '../publish/paths.js';
import { RESOURCE_NAMES, RESOURCES, type ResourceName } from '../spec/resources.js';
import { decodeJson } from '../publish/json.js';
import { isPlainObject } from '../util/json-value.js';

/** About this many records per detail bucket: small scripts, few files. */
const RECORDS_PER_BUCKET = 200;
export const BROWSER_DIR = '_browser';
export const DATA_FILE = `${BROWSER_DIR}/data.js`;
export const bucketFile = (resource: ResourceName, bucket: number): string => `${BROWSER_DIR}/records/${resource}/${bucket}.js`;

/** FNV-1a over UTF-16 code units; app.js computes the same to find a record's bucket. */
export function bucketOf(id: string, buckets: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % buckets;
}



function listOf(files: ReadonlyMap<string, Buffer>, resource: ResourceName): Record<string, unknown>[] {
  const body = decodeJson(files.get(listFile(resource)));
  const records = isPlainObject(body) ? body[resource] : undefined;
  return Array.isArray(records) ? records.filter(isPlainObject).filter((r) => typeof r.id === 'string') : [];
}

/** The newest entry of `_meta/changes.json`, read defensively (absent or odd: undefined). */
export function lastChange(files: ReadonlyMap<string, Buffer>): Record<string, unknown> | undefined {
  const body = decodeJson(files.get(CHANGES_FILE));
  const entries = isPlainObject(body) && Array.isArray(body.changes) ? body.changes.filter(isPlainObject) : [];
  let newest: Record<string, unknown> | undefined;
  for (const entry of entries) if (typeof entry.at === 'string' && (!newest || entry.at > (newest.at as string))) newest = entry;
  return newest;
}

/** `data.js` and the record buckets, as path → text. */
export function browserData(files: ReadonlyMap<string, Buffer>): Map<string, string> {
  const out = new Map<string, string>();
  const lists = Object.fromEntries(RESOURCE_NAMES.map((r) => [r, listOf(files, r)])) as Record<ResourceName, Record<string, unknown>[]>;
  const serverIndex = new Map(lists.servers.map((s, i) => [s.id as string, i]));
  const serverByName = new Map(lists.servers.map((s, i) => [String(s.name), i]));
  const resources: Record<string, unknown> = {};
  for (const resource of RESOURCE_NAMES) {
    const records = lists[resource];
    const buckets = Math.max(1, Math.ceil(records.length / RECORDS_PER_BUCKET));
    resources[resource] = {
      singular: RESOURCES[resource].singular,
      buckets,
      ids: records.map((r) => r.id),
      names: records.map((r) => (typeof r.name === 'string' ? r.name : String(r.id))),
    };
    // Null-prototype buckets: an id such as "__proto__" is then a key like any other.
    const grouped: Record<string, unknown>[] = Array.from({ length: buckets }, () => Object.create(null) as Record<string, unknown>);
    for (const item of records) {
      const id = item.id as string;
      const single = decodeJson(files.get(recordFile(resource, id)));
      const record = isPlainObject(single) && isPlainObject(single[RESOURCES[resource].singular]) ? single[RESOURCES[resource].singular] : item;
      grouped[bucketOf(id, buckets)]![id] = record;
    }
    // Through JSON.parse, not as an object literal, where a "__proto__" key would set the prototype.
    grouped.forEach((records, n) => out.set(bucketFile(resource, n), `IM_RECORDS(${JSON.stringify(resource)},${n},JSON.parse(${JSON.stringify(JSON.stringify(records))}));\n`));
  }
  // Links by position in the servers list: an appserver's server, a database's servers.
  const links = {
    appserverServer: lists.appservers.map((a) => serverIndex.get(String(a.server_id)) ?? -1),
    databaseServers: lists.databases.map((d) => (Array.isArray(d.server_names) ? d.server_names.map((n) => serverByName.get(String(n)) ?? -1).filter((i) => i >= 0) : [])),
  };
  const data = { format: 1, order: RESOURCE_NAMES, resources, links, lastChange: lastChange(files) ?? null };
  out.set(DATA_FILE, `window.IM_DATA=${JSON.stringify(data)};\n`);
  return out;
}
