/**
 * The page's tables (pure): one row per record, column-oriented, split into chunks
 * `_browser/tables/<resource>/<n>.js` by a hash of the id, so a changed record rewrites its own
 * chunk and the page loads a resource's table only when it is opened. A row merges the record's
 * list item with its single view (the service renders the two differently: `ip` only in the
 * single view, `virtual` only in the list), nested values flattened into cells.
 */
import { createHash } from 'node:crypto';
import type { ResourceName } from '../spec/resources.js';
import { isPlainObject } from '../util/json-value.js';
import { BROWSER_DIR, bucketOf } from './data.js';

/** About at most this many rows per table chunk: few scripts to load, each small enough to rewrite. */
const ROWS_PER_CHUNK = 4096;
/** Bumped when what a chunk holds changes shape, so every chunk is built again. */
const TABLE_FORMAT = 1;

export const tableFile = (resource: ResourceName, chunk: number): string => `${BROWSER_DIR}/tables/${resource}/${chunk}.js`;

/** A cell: a scalar, or for a column of links the ids it points to. */
export type Cell = string | number | boolean | null | string[];

/** Chunks for `count` rows: a power of two (it changes rarely), at most ROWS_PER_CHUNK rows each. */
export function tableChunkCount(count: number): number {
  let chunks = 1;
  while (chunks * ROWS_PER_CHUNK < count) chunks *= 2;
  return chunks;
}

/** The chunk of a record: the same hash as the detail buckets, so a chunk holds whole buckets. */
export const chunkOf = (id: string, chunks: number): number => bucketOf(id, chunks);

const isScalar = (v: unknown): v is string | number | boolean | null => v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
/** A reference to another record as the service renders it: `{id, name, …}`. */
const isReference = (v: unknown): v is Record<string, unknown> & { id: string } => isPlainObject(v) && typeof v.id === 'string';

/**
 * One record's cells, keyed by column: the single view's values, the list item's where the single
 * view lacks them or holds null. A reference `{id, name}` gives a column of its name and one of its
 * id (`<field>.id`, which the page turns into a link); an object of values gives a column per key
 * (`location.site`); a list of references gives their names and ids; a list of strings is joined;
 * any other list counts its entries (a database's `instances`).
 */
export function tableRow(item: Record<string, unknown> | undefined, single: Record<string, unknown> | undefined): Record<string, Cell> {
  const row: Record<string, Cell> = {};
  const keys = new Set([...Object.keys(single ?? {}), ...Object.keys(item ?? {})]);
  for (const key of keys) {
    if (key === 'id') continue;
    const value = single?.[key] ?? item?.[key] ?? null;
    if (isScalar(value)) row[key] = value;
    else if (isReference(value)) {
      row[key] = typeof value.name === 'string' ? value.name : value.id;
      row[`${key}.id`] = [value.id];
    } else if (isPlainObject(value)) {
      for (const [sub, v] of Object.entries(value)) row[`${key}.${sub}`] = isScalar(v) ? v : JSON.stringify(v);
    } else if (Array.isArray(value)) {
      if (value.length > 0 && value.every(isReference)) {
        row[key] = value.map((v) => (typeof v.name === 'string' ? v.name : v.id)).join(', ');
        row[`${key}.id`] = value.map((v) => v.id);
      } else if (value.every((v) => typeof v === 'string')) row[key] = value.join(', ');
      else row[key] = value.length;
    }
  }
  return row;
}

/** A chunk's rows in column form: ids, and per column (in order of first appearance) one cell per row. */
export interface TableChunk {
  ids: string[];
  columns: Record<string, Cell[]>;
}

/** Turns rows into columns; a row without a column holds null there. */
export function toColumns(ids: readonly string[], rows: readonly Record<string, Cell>[]): TableChunk {
  const columns: Record<string, Cell[]> = {};
  rows.forEach((row, i) => {
    for (const [key, cell] of Object.entries(row)) {
      const column = Object.hasOwn(columns, key) ? columns[key]! : (columns[key] = new Array<Cell>(rows.length).fill(null));
      column[i] = cell;
    }
  });
  return { ids: [...ids], columns };
}

/**
 * What a chunk is built from, as a short hash: its layout, and per member its id, its list item's
 * digest and its record file's hash. The same fingerprint means the same chunk, so the sync keeps
 * the file without reading a record.
 */
export function chunkFingerprint(layout: readonly number[], members: readonly (readonly [string, string, string])[]): string {
  const hash = createHash('sha256').update(JSON.stringify([TABLE_FORMAT, layout]));
  for (const member of members) hash.update(JSON.stringify(member));
  return hash.digest('base64url').slice(0, 22);
}

/** The first line of a chunk: its fingerprint, read back by the next sync. */
export const chunkHeader = (fingerprint: string): string => `/*im:${fingerprint}*/\n`;

/** The fingerprint in the first bytes of a chunk file, if it has one. */
export function readChunkHeader(head: Buffer): string | undefined {
  return /^\/\*im:([A-Za-z0-9_-]+)\*\/\n/.exec(head.toString('latin1'))?.[1];
}

/** One chunk's script. */
export function tableScript(resource: ResourceName, chunk: number, fingerprint: string, table: TableChunk): string {
  // Through JSON.parse, not as an object literal, where a "__proto__" column would set the prototype.
  return `${chunkHeader(fingerprint)}IM_TABLE(${JSON.stringify(resource)},${chunk},JSON.parse(${JSON.stringify(JSON.stringify(table))}));\n`;
}
