/**
 * The offline browser page (index.html, _browser/*) of a snapshot, written into the snapshot by
 * a sync. The lists are read one item at a time; only the buckets that hold a record added,
 * removed or changed since the previous snapshot are built again (each from its own records'
 * files), the others are kept as they are.
 */
import type { PathChanges } from '../diff/engine.js';
import { decodeJson } from '../json/encode.js';
import { forEachItem } from '../json/scan.js';
import { decodeSegment, listFile, parseRecordFile, recordFile } from '../publish/paths.js';
import type { SnapshotWriter } from '../publish/writer.js';
import { RESOURCE_NAMES, RESOURCES, type ResourceName } from '../spec/resources.js';
import { isPlainObject } from '../util/json-value.js';
import type { Quality } from '../validate/quality.js';
import { APP_CSS, APP_JS, INDEX_HTML } from './assets.js';
import { addItem, bucketCount, bucketFile, bucketOf, bucketScript, BROWSER_DIR, DATA_FILE, dataScript, lastChange, type PageList } from './data.js';

const BROWSER_INDEX_FILE = 'index.html';

interface BrowserInput {
  writer: SnapshotWriter;
  /** The record files added, removed and changed since the previous snapshot. */
  paths: PathChanges;
  quality: Quality;
  /** The bytes of the new snapshot's `_meta/changes.json`. */
  lastChange: Buffer | undefined;
}

/** Puts the page's files into the new snapshot. */
export async function browserFiles({ writer, paths, quality, lastChange: changes }: BrowserInput): Promise<void> {
  await writer.put(BROWSER_INDEX_FILE, Buffer.from(INDEX_HTML));
  await writer.put(`${BROWSER_DIR}/app.css`, Buffer.from(APP_CSS));
  await writer.put(`${BROWSER_DIR}/app.js`, Buffer.from(APP_JS));
  const lists = {} as Record<ResourceName, PageList>;
  for (const resource of RESOURCE_NAMES) {
    const list: PageList = { ids: [], names: [], refs: [] };
    await forEachItem(writer.readStream(listFile(resource))!, resource, (element) => addItem(list, resource, JSON.parse(element.bytes.toString('utf8')) as Record<string, unknown>));
    lists[resource] = list;
  }
  await writer.put(DATA_FILE, Buffer.from(dataScript(lists, lastChange(changes), quality)));
  for (const resource of RESOURCE_NAMES) await writeBuckets(writer, resource, lists[resource].ids, paths);
}

/** The record buckets of one resource: kept when nothing in them changed, else built again. */
async function writeBuckets(writer: SnapshotWriter, resource: ResourceName, ids: readonly string[], paths: PathChanges): Promise<void> {
  const buckets = bucketCount(ids.length);
  const previous = writer.previous;
  // The same number of buckets as before: records stay in their buckets.
  const sameLayout = previous !== undefined && previous.has(bucketFile(resource, buckets - 1)) && !previous.has(bucketFile(resource, buckets));
  const dirty = new Set<number>();
  const touched = [...paths[resource].added, ...paths[resource].removed, ...paths[resource].changed];
  for (const path of touched) {
    const id = decodeSegment(parseRecordFile(path)!.name);
    if (id === undefined) {
      // A shortened long id: its bucket is unknown without reading it, so every bucket is built.
      for (let b = 0; b < buckets; b++) dirty.add(b);
      break;
    }
    dirty.add(bucketOf(id, buckets));
  }
  const members: string[][] = Array.from({ length: buckets }, () => []);
  for (const id of ids) members[bucketOf(id, buckets)]!.push(id);
  const singular = RESOURCES[resource].singular;
  for (let b = 0; b < buckets; b++) {
    const file = bucketFile(resource, b);
    if (sameLayout && !dirty.has(b) && writer.keep(file)) continue;
    const records = new Map<string, unknown>();
    for (const id of members[b]!) {
      const body = decodeJson(await writer.read(recordFile(resource, id)));
      if (isPlainObject(body) && isPlainObject(body[singular])) records.set(id, body[singular]);
    }
    await writer.put(file, Buffer.from(bucketScript(resource, b, records)));
  }
}
