/**
 * A resource's table in memory (pure): chunks merged into columns, search text, the rows a view's
 * filters keep, in its sort order.
 */
import { SEARCHED } from '../search-fields.js';
import { parseFilters, passes } from './filters.js';
import { fmt } from './format.js';
import { descendants, type OsTree } from './os-tree.js';
import type { Cell, Column, Table, TableChunk } from './types.js';

export { SEARCHED };

/**
 * A table's columns, each merged from its chunks on first use: a view of 200 000 rows shows a few
 * columns and counts a few facets, and merging the thirty others would cost more than all of that.
 */
class MergedColumns extends Map<string, Cell[]> {
  /** Per column not merged yet, its part in each chunk and the row that part starts at. */
  readonly #parts = new Map<string, { at: number; col: Column }[]>();

  constructor(readonly rows: number) {
    super();
  }

  /** Notes a chunk's column, to be merged when asked for. */
  addPart(at: number, col: Column): void {
    const parts = this.#parts.get(col[0]);
    if (parts) parts.push({ at, col });
    else this.#parts.set(col[0], [{ at, col }]);
  }

  override get(name: string): Cell[] | undefined {
    const merged = super.get(name);
    if (merged) return merged;
    const parts = this.#parts.get(name);
    if (!parts) return undefined;
    const dst = new Array<Cell>(this.rows).fill(null);
    for (const { at, col } of parts) {
      if (col.length === 3) {
        const [, codes, values] = col;
        for (let i = 0; i < codes.length; i++) dst[at + i] = values[codes[i]!] ?? null;
      } else {
        const cells = col[1];
        for (let i = 0; i < cells.length; i++) dst[at + i] = cells[i]!;
      }
    }
    this.#parts.delete(name);
    super.set(name, dst);
    return dst;
  }

  override has(name: string): boolean {
    return super.has(name) || this.#parts.has(name);
  }

  override set(name: string, cells: Cell[]): this {
    this.#parts.delete(name);
    return super.set(name, cells);
  }
}

/** One table from its chunks; a row without a column holds null there. Columns are merged, and the row of each id found, on first use. */
export function mergeChunks(r: string, chunks: readonly TableChunk[]): Table {
  const n = chunks.reduce((s, c) => s + c.ids.length, 0);
  const ids = new Array<string>(n);
  const cols = new MergedColumns(n);
  const names: string[] = [];
  let at = 0;
  for (const c of chunks) {
    for (const col of c.columns) {
      if (!cols.has(col[0])) names.push(col[0]);
      cols.addPart(at, col);
    }
    for (let i = 0; i < c.ids.length; i++) ids[at + i] = c.ids[i]!;
    at += c.ids.length;
  }
  if (!cols.has('name')) {
    cols.set('name', ids.slice());
    names.unshift('name');
  }
  let pos: Map<string, number> | undefined;
  return {
    r,
    n,
    ids,
    cols,
    names,
    get pos() {
      return (pos ??= new Map(ids.map((id, i) => [id, i])));
    },
    text: null,
  };
}

/** A column's cells (an absent column: nulls). */
export const cells = (T: Table, col: string): readonly Cell[] => T.cols.get(col) ?? new Array<Cell>(T.n).fill(null);

export const searchedFields = (T: Table): string[] => SEARCHED.filter((k) => T.cols.has(k));

/** Per row, the searched fields' text in lower case, built once per table. */
export function textIndex(T: Table): string[] {
  if (T.text) return T.text;
  const fields = searchedFields(T).map((k) => T.cols.get(k)!);
  const text = new Array<string>(T.n);
  for (let i = 0; i < T.n; i++) {
    let s = '';
    for (const f of fields) if (f[i] !== null) s += `${fmt(f[i]).toLowerCase()}\u0001`;
    text[i] = s;
  }
  return (T.text = text);
}

/** The searched fields of row `i` whose value holds `term` (lower case). */
export const matchedFields = (T: Table, i: number, term: string): string[] => searchedFields(T).filter((k) => fmt(T.cols.get(k)![i]).toLowerCase().includes(term));

/** Whether a column is the operating system, filtered with every descendant system. */
const isOsFacet = (T: Table, col: string, tree: OsTree | undefined): boolean => col === 'operating_system' && tree !== undefined && T.cols.has('operating_system.id');

/** The values a facet counts a row under: the system's id for the OS facet, each entry of a list, else the cell as text. */
export function facetValues(T: Table, col: string, i: number, tree: OsTree | undefined): string[] {
  if (isOsFacet(T, col, tree)) {
    const ids = T.cols.get('operating_system.id')![i];
    return [Array.isArray(ids) ? (ids[0] ?? '') : ''];
  }
  const cell = T.cols.get(col)?.[i] ?? null;
  return Array.isArray(cell) ? (cell.length > 0 ? cell : ['']) : [fmt(cell)];
}

/**
 * A test of a row against the view's filters and search: facet values of one column OR'ed,
 * everything else AND'ed. `skip` leaves one facet column out, for that facet's own counts.
 */
export function matcher(T: Table, params: URLSearchParams, skip: string | null, tree?: OsTree): (i: number) => boolean {
  const tests: ((i: number) => boolean)[] = [];
  const facets = new Map<string, string[]>();
  for (const f of parseFilters(params)) {
    if (f.kind === 'facet') {
      if (f.col === skip) continue;
      const list = facets.get(f.col);
      if (list) list.push(f.value);
      else facets.set(f.col, [f.value]);
    } else {
      const col = T.cols.get(f.col);
      if (col) tests.push((i) => passes(col[i], f.op, f.value));
      else if (f.op !== 'empty') tests.push(() => false);
    }
  }
  for (const [col, values] of facets) {
    if (isOsFacet(T, col, tree)) {
      const set = new Set<string>();
      for (const v of values) for (const d of descendants(tree!, v)) set.add(d);
      tests.push((i) => set.has(facetValues(T, col, i, tree)[0]!));
    } else {
      const wanted = new Set(values);
      tests.push((i) => facetValues(T, col, i, tree).some((v) => wanted.has(v)));
    }
  }
  const term = (params.get('q') ?? '').trim().toLowerCase();
  if (term) {
    const text = textIndex(T);
    tests.push((i) => text[i]!.includes(term));
  }
  return (i) => tests.every((t) => t(i));
}

/** The rows the view's filters and search keep, in table order. */
export function filterRows(T: Table, params: URLSearchParams, tree?: OsTree): number[] {
  const test = matcher(T, params, null, tree);
  const out: number[] = [];
  for (let i = 0; i < T.n; i++) if (test(i)) out.push(i);
  return out;
}

/**
 * `rows` in the view's sort order: `sort=col` or `sort=-col`, else by name; nulls last, ties in
 * table order. With `limit`, only the first `limit` of that order: a first page of 50 out of
 * 200 000 rows needs one pass, not a whole sort.
 */
export function sortRows(T: Table, rows: readonly number[], params: URLSearchParams, limit = Infinity): number[] {
  const sort = params.get('sort') ?? 'name';
  const desc = sort.startsWith('-');
  const col = T.cols.get(desc ? sort.slice(1) : sort);
  if (!col) return rows.slice(0, limit);
  // Keys computed once per row, not per comparison: a sort of 200 000 rows compares millions of times.
  const keys = new Array<number | string | null>(T.n);
  for (const i of rows) {
    const v = col[i];
    keys[i] = typeof v === 'number' ? v : v === null || v === undefined ? null : typeof v === 'string' ? v.toLowerCase() : fmt(v).toLowerCase();
  }
  const cmp = (a: number, b: number): number => {
    const x = keys[a]!;
    const y = keys[b]!;
    if (x === y) return a - b;
    if (x === null) return 1;
    if (y === null) return -1;
    return (x < y ? -1 : 1) * (desc ? -1 : 1);
  };
  if (limit * 8 >= rows.length) return rows.slice().sort(cmp).slice(0, limit);
  // The first `limit` rows, kept in order: most rows are past the last kept one and cost one comparison.
  const top: number[] = [];
  for (const i of rows) {
    if (top.length === limit && cmp(i, top[limit - 1]!) >= 0) continue;
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cmp(top[mid]!, i) <= 0) lo = mid + 1;
      else hi = mid;
    }
    top.splice(lo, 0, i);
    if (top.length > limit) top.pop();
  }
  return top;
}

/** The rows the view keeps, in its sort order. */
export const matching = (T: Table, params: URLSearchParams, tree?: OsTree): number[] => sortRows(T, filterRows(T, params, tree), params);

/** The columns a view shows: `cols=` when given, else the resource's defaults; only columns the table has. */
export function visibleCols(T: Table, params: URLSearchParams, defaults: readonly string[]): string[] {
  const chosen = params.get('cols');
  const cols = (chosen ? chosen.split(',') : defaults).filter((k) => T.cols.has(k));
  return cols.length > 0 ? cols : ['name'];
}

/** The columns a person can choose: a link's id column is shown through its name column. */
export const choosable = (T: Table): string[] => T.names.filter((k) => !k.endsWith('.id') || !T.cols.has(k.slice(0, -3)));
