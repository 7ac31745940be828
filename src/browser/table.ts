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
const TABLE_FORMAT = 6;

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
 * (`location.site`); a list of records with ids gives their names and ids (a database's servers
 * and instances) and a column per text field of theirs (`instances.listen_address`), so the page
 * can search and filter on them; a list of strings stays a list (an export keeps it one); any
 * other list counts its entries.
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
        row[key] = value.map((v) => (typeof v.name === 'string' ? v.name : v.id));
        row[`${key}.id`] = value.map((v) => v.id);
        for (const [sub, values] of subStrings(value)) row[`${key}.${sub}`] = values;
      } else if (value.every((v) => typeof v === 'string')) row[key] = [...value];
      else {
        row[key] = value.length;
        // Records without ids (an application's instances) still name things: `application_instances.servers`.
        if (value.every(isPlainObject)) for (const [sub, values] of subStrings(value)) row[`${key}.${sub}`] = values;
      }
    }
  }
  return row;
}

/** Per text field (or list of texts) of a list of records, other than id and name, its distinct values in order. */
function subStrings(records: readonly Record<string, unknown>[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of records) {
    for (const [sub, v] of Object.entries(r)) {
      if (sub === 'id' || sub === 'name') continue;
      for (const text of typeof v === 'string' ? [v] : Array.isArray(v) ? v : []) {
        if (typeof text !== 'string' || text === '') continue;
        const list = out.get(sub);
        if (!list) out.set(sub, [text]);
        else if (!list.includes(text)) list.push(text);
      }
    }
  }
  return out;
}

/**
 * What the mirror's filtered views say of a record: of a server, its most specific operating
 * system (by_system) and whether it is virtual (by_virtual); of an operating system, its parent.
 */
export interface ViewFacts {
  os?: { id: string; name: string };
  virtual?: boolean;
  parent?: { id: string; name: string };
  /** Columns from the configured views that hold the server (`by_location=site:4` gives `site` 4), in view order. */
  columns?: [string, string][];
}

/**
 * The column and value a configured server view gives the servers it holds: `by_location`
 * `site:<id>`, `room:<id>` or `rack:<id>` give `site`, `room` or `rack`; `by_maintainer` gives
 * `maintainer`, `by_serial_number` `serial_number`, `by_arch` `arch`, `by_fullmodel` `model` (the
 * term the manufacturer or model includes). Undefined for any other view.
 */
export function viewColumn(param: string, value: string): [string, string] | undefined {
  if (param === 'by_location') {
    const m = /^(site|room|rack):(.+)$/.exec(value);
    return m ? [m[1]!, m[2]!] : undefined;
  }
  const column = VIEW_COLUMNS.get(param);
  return column === undefined ? undefined : [column, value];
}

const VIEW_COLUMNS = new Map([
  ['by_maintainer', 'maintainer'],
  ['by_serial_number', 'serial_number'],
  ['by_arch', 'arch'],
  ['by_fullmodel', 'model'],
]);

/**
 * A row completed from the filtered views where the record itself does not say: a service that
 * renders records as its API document lists them names no server's operating system, no virtual
 * flag, no site or maintainer and no system's parent, but the mirror holds every `by_system` and
 * `by_virtual` view and the configured ones (`by_location`, `by_maintainer`, …).
 */
export function withViewFacts(row: Record<string, Cell>, facts: ViewFacts | undefined): Record<string, Cell> {
  const fill = (key: string, ref: { id: string; name: string } | undefined): void => {
    if (!ref || row[`${key}.id`] !== undefined) return;
    row[key] = ref.name;
    row[`${key}.id`] = [ref.id];
  };
  fill('operating_system', facts?.os);
  fill('parent', facts?.parent);
  if (facts?.virtual !== undefined && (row.virtual === undefined || row.virtual === null)) row.virtual = facts.virtual;
  const byColumn = new Map<string, string[]>();
  for (const [column, value] of facts?.columns ?? []) {
    const list = byColumn.get(column);
    if (list) list.push(value);
    else byColumn.set(column, [value]);
  }
  // A server in two views of one column (two model terms it matches) gets both values.
  for (const [column, values] of byColumn) if (row[column] === undefined || row[column] === null) row[column] = values.length === 1 ? values[0]! : values;
  return row;
}

/**
 * From the `by_system` views (per server, the systems whose view holds it): each server's most
 * specific system, the one with the smallest view, and each system's parent, the system with the
 * smallest view strictly larger that holds all of its servers. A system whose view is empty or
 * equal to another's gets no parent: the views cannot tell.
 */
export function systemFacts(systems: readonly { id: string; name: string; size: number }[], serverSystems: ReadonlyMap<string, readonly number[]>): { servers: Map<string, number>; parents: Map<number, number> } {
  const servers = new Map<string, number>();
  const common = new Map<number, Set<number>>();
  for (const [server, list] of serverSystems) {
    let best = list[0]!;
    for (const s of list) if (systems[s]!.size < systems[best]!.size) best = s;
    servers.set(server, best);
    for (const s of list) {
      const seen = common.get(s);
      if (seen === undefined) common.set(s, new Set(list));
      else for (const other of seen) if (!list.includes(other)) seen.delete(other);
    }
  }
  const parents = new Map<number, number>();
  for (const [s, holders] of common) {
    let parent: number | undefined;
    for (const h of holders) if (systems[h]!.size > systems[s]!.size && (parent === undefined || systems[h]!.size < systems[parent]!.size)) parent = h;
    if (parent !== undefined) parents.set(s, parent);
  }
  return { servers, parents };
}

/**
 * A column: its name and one cell per row, or, when few values repeat (an OS name, a site, a
 * flag), its name, one code per row and the values the codes stand for: a fraction of the bytes
 * to load and parse.
 */
export type Column = [string, Cell[]] | [string, number[], Cell[]];

/** A chunk's rows in column form: ids, and its columns in order of first appearance. */
export interface TableChunk {
  ids: string[];
  columns: Column[];
}

/** Turns rows into columns (a row without a column holds null there), coding the columns whose values repeat. */
export function toColumns(ids: readonly string[], rows: readonly Record<string, Cell>[]): TableChunk {
  const cells = new Map<string, Cell[]>();
  rows.forEach((row, i) => {
    for (const [key, cell] of Object.entries(row)) {
      let column = cells.get(key);
      if (!column) cells.set(key, (column = new Array<Cell>(rows.length).fill(null)));
      column[i] = cell;
    }
  });
  return { ids: [...ids], columns: [...cells].map(([name, column]) => coded(name, column)) };
}

/** A column coded against its distinct values when they are few (at most a third of its rows). */
function coded(name: string, column: Cell[]): Column {
  const index = new Map<string, number>();
  const values: Cell[] = [];
  const codes = column.map((cell) => {
    const key = JSON.stringify(cell);
    let code = index.get(key);
    if (code === undefined) {
      index.set(key, (code = values.length));
      values.push(cell);
    }
    return code;
  });
  return values.length * 3 <= column.length ? [name, codes, values] : [name, column];
}

/**
 * What a chunk is built from, as a short hash: its layout, and per member its id, its list item's
 * digest, its record file's hash and what the filtered views say of it. The same fingerprint means the same chunk, so the sync keeps
 * the file without reading a record.
 */
export function chunkFingerprint(layout: readonly number[], members: readonly (readonly string[])[]): string {
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

/**
 * One chunk's script: arrays and strings only, so no key of the data can set a prototype. The data
 * is a JSON text handed to JSON.parse, not a literal: a browser parses JSON about twice as fast as
 * the same data written as script, which is most of what opening a large table costs.
 */
export function tableScript(resource: ResourceName, chunk: number, fingerprint: string, table: TableChunk): string {
  return `${chunkHeader(fingerprint)}IM_TABLE(${JSON.stringify(resource)},${chunk},...${jsonArgs([table.ids, table.columns])});\n`;
}

/** `JSON.parse("…")` of a list of arguments, to be spread into a call. */
export const jsonArgs = (args: readonly unknown[]): string => `JSON.parse(${JSON.stringify(JSON.stringify(args))})`;

/** The arguments `jsonArgs` wrote into a call of `name` in `text`; undefined when the text holds no such call. */
export function readJsonArgs(text: string, name: string): unknown[] | undefined {
  const call = text.indexOf(`${name}(`);
  const start = text.indexOf('...JSON.parse(', call);
  const end = text.lastIndexOf('));');
  if (call < 0 || start < 0 || end < start) return undefined;
  const args = JSON.parse(JSON.parse(text.slice(start + '...JSON.parse('.length, end)) as string) as unknown;
  return Array.isArray(args) ? args : undefined;
}
