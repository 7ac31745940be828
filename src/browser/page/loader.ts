/**
 * Loading the data scripts on demand. Scripts, not fetch(): Chromium fetches no file:// URL, but
 * runs scripts beside the page. Each kind of script calls a global the page sets here.
 */
import { el, view } from './dom.js';
import { bucketOf } from './bucket.js';
import { fmt } from './format.js';
import { mergeChunks } from './table-data.js';
import type { Cell, History, LinkList, LinkRows, PageData, RecordBody, SearchChunk, Table, TableChunk } from './types.js';

function loadScript(src: string, onError: (src: string) => void): void {
  const s = el('script', null, { src });
  s.onerror = () => onError(src);
  document.body.appendChild(s);
}

function failed(src: string): void {
  view().appendChild(el('p', `Could not load ${src}: the snapshot is incomplete; run sync with --browser again.`, { class: 'error' }));
}

type Progress = (chunk: TableChunk, loaded: number, total: number) => void;
interface Pending {
  chunks: (TableChunk | undefined)[];
  left: number;
  done: ((T: Table) => void)[];
  progress: Progress[];
}

/** The loaded data: tables, record buckets and history, each loaded once. */
export class Store {
  readonly tables = new Map<string, Table>();
  readonly #pending = new Map<string, Pending>();
  readonly #buckets = new Map<string, Record<string, RecordBody>>();
  readonly #bucketWait = new Map<string, ((records: Record<string, RecordBody>) => void)[]>();
  /** Single table chunks a record page asked for, and the search chunks, by `resource/chunk`. */
  readonly #oneChunk = new Once<TableChunk>();
  readonly #search = new Once<SearchChunk>();
  readonly #links = new Once<Map<string, Map<string, LinkList>>>();
  #history: History | null = null;
  #historyWait: ((h: History) => void)[] | null = null;

  constructor(readonly data: PageData) {
    window.IM_TABLE = (r, n, ids, columns) => {
      this.#oneChunk.arrive(`${r}/${n}`, { ids, columns });
      this.#chunk(r, n, { ids, columns });
    };
    window.IM_SEARCH = (r, n, ids, fields, columns) => this.#search.arrive(`${r}/${n}`, { ids, fields, columns });
    window.IM_LINKS = (r, n, rows) => this.#links.arrive(`${r}/${n}`, linkMap(rows));
    window.IM_RECORDS = (r, n, records) => {
      const key = `${r}/${n}`;
      this.#buckets.set(key, records);
      for (const cb of this.#bucketWait.get(key) ?? []) cb(records);
      this.#bucketWait.delete(key);
    };
    window.IM_HISTORY = (h) => {
      this.#history = h && Array.isArray(h.entries) ? h : { entries: [] };
      for (const cb of this.#historyWait ?? []) cb(this.#history);
      this.#historyWait = null;
    };
  }

  /** Whether `r` is a resource of this snapshot (an own key only: `#/constructor` is none). */
  has(r: string): boolean {
    return Object.hasOwn(this.data.resources, r);
  }

  #chunk(r: string, n: number, chunk: TableChunk): void {
    const p = this.#pending.get(r);
    if (!p || p.chunks[n]) return;
    p.chunks[n] = chunk;
    p.left--;
    for (const cb of p.progress) cb(chunk, p.chunks.length - p.left, p.chunks.length);
    if (p.left > 0) return;
    const T = mergeChunks(r, p.chunks as TableChunk[]);
    this.tables.set(r, T);
    this.#pending.delete(r);
    for (const cb of p.done) cb(T);
  }

  /** Calls `cb` with a resource's table once every chunk has arrived; `progress` as each arrives. */
  withTable(r: string, cb: (T: Table) => void, progress?: Progress): void {
    const T = this.tables.get(r);
    if (T) return cb(T);
    const p = this.#pending.get(r);
    if (p) {
      if (progress) p.progress.push(progress);
      p.done.push(cb);
      return;
    }
    const count = this.data.resources[r]!.chunks;
    this.#pending.set(r, { chunks: new Array<TableChunk | undefined>(count), left: count, done: [cb], progress: progress ? [progress] : [] });
    for (let c = 0; c < count; c++) loadScript(`_browser/tables/${r}/${c}.js`, failed);
  }

  /** Calls `cb` once every table named has arrived. */
  withTables(rs: readonly string[], cb: () => void): void {
    let left = rs.length;
    if (left === 0) return cb();
    for (const r of rs) this.withTable(r, () => --left === 0 && cb());
  }

  /** A record's name from its table when loaded, else its id. */
  nameOf(r: string, id: string): string {
    const T = this.tables.get(r);
    const i = T?.pos.get(id);
    return i === undefined ? id : fmt(T!.cols.get('name')![i]) || id;
  }

  /** Calls `cb` with a record's details (undefined when its bucket lacks it). */
  withRecord(r: string, id: string, cb: (record: RecordBody | undefined) => void): void {
    const key = `${r}/${bucketOf(id, this.data.resources[r]!.buckets)}`;
    const own = (records: Record<string, RecordBody>): RecordBody | undefined => (Object.hasOwn(records, id) ? records[id] : undefined);
    const loaded = this.#buckets.get(key);
    if (loaded) return cb(own(loaded));
    const waiting = this.#bucketWait.get(key);
    if (waiting) {
      waiting.push((recs) => cb(own(recs)));
      return;
    }
    this.#bucketWait.set(key, [(recs) => cb(own(recs))]);
    loadScript(`_browser/records/${key}.js`, (src) => {
      this.#bucketWait.delete(key);
      failed(src);
    });
  }

  /**
   * Calls `cb` with a reader of a record's row (null where it has no cell), undefined when the
   * table has no such record: from the whole table when loaded, else from the one chunk that holds
   * it, whatever the table's size.
   */
  withRow(r: string, id: string, cb: (cell: ((col: string) => Cell) | undefined) => void): void {
    const T = this.tables.get(r);
    const i = T?.pos.get(id);
    if (T) return cb(i === undefined ? undefined : (col) => T.cols.get(col)?.[i] ?? null);
    const key = `${r}/${bucketOf(id, this.data.resources[r]!.chunks)}`;
    this.#oneChunk.want(key, (chunk) => cb(rowReader(chunk, id)), () => loadScript(`_browser/tables/${key}.js`, failed));
  }

  /** Calls `onChunk` with each search chunk of `r` as it arrives, in any order. */
  withSearchChunks(r: string, onChunk: (chunk: SearchChunk, index: number) => void): void {
    for (let c = 0; c < this.data.resources[r]!.chunks; c++) {
      const key = `${r}/${c}`;
      this.#search.want(key, (chunk) => onChunk(chunk, c), () => loadScript(`_browser/search/${key}.js`, failed));
    }
  }

  /**
   * Starts loading every search index file, and lower-cases each as it arrives (`ready`), so a
   * search typed a moment later finds them parsed: called when the search box gets focus, the
   * loading overlaps the typing and the box's debounce.
   */
  prefetchSearch(ready: (chunk: SearchChunk) => void): void {
    for (const r of this.data.order) this.withSearchChunks(r, ready);
  }

  /** Calls `cb` with the records linked to a record, by kind: one links bucket, whatever the inventory's size. */
  withLinks(r: string, id: string, cb: (links: Map<string, LinkList>) => void): void {
    const key = `${r}/${bucketOf(id, this.data.resources[r]!.buckets)}`;
    this.#links.want(key, (all) => cb(all.get(id) ?? new Map()), () => loadScript(`_browser/links/${key}.js`, failed));
  }

  /** Calls `cb` with the change history (empty when the snapshot has none). */
  withHistory(cb: (h: History) => void): void {
    if (this.#history) return cb(this.#history);
    if (this.#historyWait) {
      this.#historyWait.push(cb);
      return;
    }
    this.#historyWait = [cb];
    loadScript('_browser/history.js', () => window.IM_HISTORY!({ entries: [] }));
  }
}

/** A links bucket in Maps: no id or kind reaches a prototype. */
const linkMap = (rows: LinkRows): Map<string, Map<string, LinkList>> => new Map(rows.map(([id, kinds]) => [id, new Map(kinds.map(([kind, refs, total]) => [kind, { refs, total: total ?? refs.length }]))]));

/** Scripts loaded once by key: callers wait for the value the script hands over. */
class Once<T> {
  readonly #values = new Map<string, T>();
  readonly #waiting = new Map<string, ((value: T) => void)[]>();

  /** Calls `cb` with the value of `key`, running `load` when no one asked for it before. */
  want(key: string, cb: (value: T) => void, load: () => void): void {
    const value = this.#values.get(key);
    if (value !== undefined) return cb(value);
    const waiting = this.#waiting.get(key);
    if (waiting) return void waiting.push(cb);
    this.#waiting.set(key, [cb]);
    load();
  }

  arrive(key: string, value: T): void {
    const waiting = this.#waiting.get(key);
    // A whole-table load brings chunks no one asked for one by one: those are not kept twice.
    if (!waiting) return;
    this.#values.set(key, value);
    this.#waiting.delete(key);
    for (const cb of waiting) cb(value);
  }
}

/** One row of a chunk, read by column name (null where the column is absent); undefined when the chunk lacks the row. */
function rowReader(chunk: TableChunk, id: string): ((col: string) => Cell) | undefined {
  const i = chunk.ids.indexOf(id);
  if (i < 0) return undefined;
  const columns = new Map(chunk.columns.map((c) => [c[0], c]));
  return (col) => {
    const c = columns.get(col);
    if (!c) return null;
    return (c.length === 3 ? c[2][c[1][i]!] : c[1][i]) ?? null;
  };
}
