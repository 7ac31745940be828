/**
 * The data of the offline page (pure). Pages opened from disk cannot fetch() local JSON in
 * Chromium, so the data comes as scripts loaded by <script> tags on demand: `_browser/data.js`
 * holds what the first screen needs (counts, file layout, data-quality findings), each resource's
 * table sits in chunks (table.ts), the change history in one script (history.ts), and each
 * record's details in one of a number of buckets `_browser/records/<resource>/<n>.js`. The number
 * of buckets is a power of two, so it changes rarely: a changed record rewrites its own bucket,
 * not every bucket.
 */
import type { ResourceName } from '../spec/resources.js';
import { RESOURCE_NAMES, RESOURCES } from '../spec/resources.js';
import { CODE_MEANINGS } from '../validate/findings.js';
import type { Quality } from '../validate/quality.js';

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

/** What data.js says of one resource: how many records, and into how many files its table and details are split. */
export interface ResourceSummary {
  count: number;
  chunks: number;
  buckets: number;
}

/** `data.js`: what the first screen needs (record counts, file layout, the data-quality findings); tables come later. */
export function dataScript(summaries: Partial<Record<ResourceName, ResourceSummary>>, quality: Quality): string {
  // The resources mirrored (config `resources`), in the service's order.
  const order = RESOURCE_NAMES.filter((r) => summaries[r] !== undefined);
  const resources = Object.fromEntries(order.map((r) => [r, { singular: RESOURCES[r].singular, ...summaries[r] }]));
  const findings = [...quality.findings]
    .sort((a, b) => b.count - a.count)
    .map((g) => ({ resource: g.resource, field: g.field, code: g.code, meaning: CODE_MEANINGS[g.code], count: g.count, share: g.share, ids: g.ids.slice(0, IDS_PER_FINDING) }));
  const data = { format: 3, order, resources, quality: { findings, shape: quality.shape } };
  return `window.IM_DATA=${JSON.stringify(data)};\n`;
}

/** One bucket's script: its records' details by id (a record missing from the folder is left out). */
export function bucketScript(resource: ResourceName, bucket: number, records: ReadonlyMap<string, unknown>): string {
  // Through JSON.parse, not as an object literal, where a "__proto__" key would set the prototype.
  return `IM_RECORDS(${JSON.stringify(resource)},${bucket},JSON.parse(${JSON.stringify(JSON.stringify(Object.fromEntries(records)))}));\n`;
}

/** A bucket script read back: its records by id (empty when it is not one). */
export function decodeBucketScript(text: string): Map<string, unknown> {
  const start = text.indexOf('JSON.parse(');
  const end = text.lastIndexOf('));');
  if (start < 0 || end < start) return new Map();
  const records = JSON.parse(JSON.parse(text.slice(start + 'JSON.parse('.length, end)) as string) as unknown;
  return records !== null && typeof records === 'object' ? new Map(Object.entries(records)) : new Map();
}
