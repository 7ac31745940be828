/**
 * The shapes of the data scripts the sync writes beside the page (`_browser/data.js`, table
 * chunks, detail buckets, history). Declared here rather than imported from the sync's modules,
 * which pull in Node's types; test/browser/page-data.test.ts checks the sync writes these shapes.
 */

/** A table cell: a scalar, or a list (names, or for a link column the ids it points to). */
export type Cell = string | number | boolean | null | string[];

/** A column as a chunk holds it: `[name, cells]`, or `[name, codes, values]` where few values repeat. */
export type Column = [string, Cell[]] | [string, number[], Cell[]];

export interface ResourceInfo {
  singular: string;
  count: number;
  chunks: number;
  buckets: number;
}

export interface Finding {
  resource: string;
  field: string;
  code: string;
  meaning: string;
  count: number;
  share: number;
  ids: string[];
}

/** `window.IM_DATA`: what the first screen needs. */
export interface PageData {
  format: number;
  order: string[];
  resources: Record<string, ResourceInfo>;
  quality: { findings: Finding[]; shape: Record<string, { listOnly: string[]; singleOnly: string[] }> };
}

export interface TableChunk {
  ids: string[];
  columns: Column[];
}

/** A resource's whole table, merged from its chunks; columns in a Map, so no column name reaches a prototype. */
export interface Table {
  r: string;
  n: number;
  ids: string[];
  cols: Map<string, Cell[]>;
  /** Column names in order of first appearance. */
  names: string[];
  /** Row of each id. */
  pos: Map<string, number>;
  /** Lower-case searchable text per row, built on first search. */
  text: string[] | null;
}

export type Scalar = string | number | boolean | null;
/** [path, before, after]. */
export type FieldChange = [string, Scalar, Scalar];

export interface HistoryResource {
  counts: { added: number; removed: number; changed: number };
  added: [string, string][];
  removed: [string, string][];
  changed: [string, string, FieldChange[]][];
}

export interface HistoryEntry {
  at: string;
  initial: boolean;
  records: Record<string, number>;
  resources: Record<string, HistoryResource>;
}

export interface History {
  entries: HistoryEntry[];
}

/** A record's single view as its detail bucket holds it. */
export type RecordBody = Record<string, unknown>;

/** A linked record: id and name. */
export type Ref = [string, string];
/** A links bucket as the sync writes it: per record, per kind of link, the records linked (the first ones and their count, when many). */
export type LinkRows = [string, ([string, Ref[]] | [string, Ref[], number])[]][];

/** The records of one kind linked to a record: the first ones, and how many there are. */
export interface LinkList {
  refs: Ref[];
  total: number;
}

/** A field's values in a search index chunk: one text per row, or one code per row and the texts the codes stand for. */
export type SearchColumn = [string[]] | [number[], string[]];

/** A search index chunk: ids, the fields searched (name first), per field its values. */
export interface SearchChunk {
  ids: string[];
  fields: string[];
  columns: SearchColumn[];
}
