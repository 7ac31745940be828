/** A resource's table: facets, operator filters as chips, search, sort, paging, column chooser, export. */
import { cellNode } from '../cells.js';
import { isCurrent, ready, type Ctx } from '../context.js';
import { exportName, toCsv, toJson } from '../csv.js';
import { clear, download, el, view } from '../dom.js';
import { chipText, OPERATORS, isOperator, opValue, parseFilters, withFilter, withoutFilter, type Filter } from '../filters.js';
import { colLabel, hashOf, label } from '../format.js';
import { osTree, type OsTree } from '../os-tree.js';
import { DEFAULT_COLS, FACETS } from '../resources.js';
import { cells, choosable, facetValues, filterRows, matcher, searchedFields, sortRows, visibleCols } from '../table-data.js';
import type { Cell, History, Table } from '../types.js';
import { CHANGED_COLUMN, lastChanged } from '../changes.js';
import type { ResourceName } from '../../../spec/resources.js';

const PAGE = 50;
/** Values a facet lists before "… N more". */
const FACET_VALUES = 12;

function withParam(params: URLSearchParams, key: string, value: string | null): URLSearchParams {
  const p = new URLSearchParams(params);
  if (value === null) p.delete(key);
  else p.set(key, value);
  if (key !== 'page') p.delete('page');
  return p;
}

const facetText = (value: string): string => (value === '' ? '(none)' : value === 'true' ? 'yes' : value === 'false' ? 'no' : value);

/** One facet: its values with counts under the other filters; chosen values marked, each removable. */
function facetBox(ctx: Ctx, T: Table, params: URLSearchParams, col: string, tree: OsTree | undefined): HTMLElement {
  const box = el('section', null, { class: 'facet', 'data-facet': col });
  box.appendChild(el('h3', colLabel(col)));
  if (col === CHANGED_COLUMN && partlyMarked.has(T)) box.appendChild(el('p', 'the history lists a few hundred changes per sync: the changes page counts them all', { class: 'muted small' }));
  const param = `f.${col}`;
  const active = new Set(params.getAll(param));
  const test = matcher(T, params, col, tree);
  const counts = new Map<string, number>();
  for (let i = 0; i < T.n; i++) {
    if (!test(i)) continue;
    for (const v of facetValues(T, col, i, tree)) counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  const ul = box.appendChild(el('ul'));
  const item = (parent: HTMLElement, value: string, text: string, n: number, depth: number): void => {
    const li = parent.appendChild(el('li', null, depth ? { style: `padding-left:${depth * 0.8}rem` } : undefined));
    if (active.has(value)) {
      li.appendChild(el('strong', text));
      li.appendChild(el('a', '×', { href: hashOf(T.r, withoutFilter(params, { param, raw: value })), class: 'clear', title: 'remove this filter', 'aria-label': `remove ${colLabel(col)} ${text}` }));
    } else li.appendChild(el('a', text, { href: hashOf(T.r, withFilter(params, param, value)), 'data-facet-link': '' }));
    li.appendChild(el('span', n, { class: 'count' }));
  };
  if (col === 'operating_system' && tree) {
    const total = new Map<string, number>();
    const sum = (id: string, seen: Set<string>): number => {
      if (seen.has(id)) return 0;
      seen.add(id);
      let n = counts.get(id) ?? 0;
      for (const c of tree.children.get(id) ?? []) n += sum(c, seen);
      total.set(id, n);
      return n;
    };
    for (const id of tree.roots) sum(id, new Set());
    const walk = (id: string, depth: number, seen: Set<string>): void => {
      if (!total.get(id) || seen.has(id)) return;
      seen.add(id);
      item(ul, id, ctx.store.nameOf('operating_systems', id), total.get(id)!, depth);
      for (const c of tree.children.get(id) ?? []) walk(c, depth + 1, seen);
    };
    for (const id of tree.roots) walk(id, 0, new Set());
    if (counts.get('')) ul.appendChild(el('li', `none: ${counts.get('')}`, { class: 'muted' }));
    return box;
  }
  const list = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  // Chosen values stay in sight even when rare.
  const first = list.filter(([v], k) => k < FACET_VALUES || active.has(v));
  for (const [v, n] of first) item(ul, v, facetText(v), n, 0);
  const rest = list.filter(([v], k) => k >= FACET_VALUES && !active.has(v));
  if (rest.length > 0) {
    const more = box.appendChild(el('details', null, { class: 'more' }));
    more.appendChild(el('summary', `… ${rest.length} more`));
    const find = more.appendChild(el('input', null, { type: 'search', placeholder: `find a ${colLabel(col)}`, 'aria-label': `find a value of ${colLabel(col)}` }));
    const moreUl = more.appendChild(el('ul'));
    const draw = (): void => {
      moreUl.textContent = '';
      const term = find.value.trim().toLowerCase();
      const hits = rest.filter(([v]) => facetText(v).toLowerCase().includes(term));
      for (const [v, n] of hits.slice(0, 200)) item(moreUl, v, facetText(v), n, 0);
      if (hits.length > 200) moreUl.appendChild(el('li', `… ${hits.length - 200} more: narrow the search`, { class: 'muted' }));
    };
    find.addEventListener('input', draw);
    draw();
  }
  return box;
}

/** Every filter of the URL as a chip with a remove link; the operating system named, not numbered. */
function chips(ctx: Ctx, T: Table, params: URLSearchParams, filters: readonly Filter[]): HTMLElement {
  const bar = el('div', null, { class: 'chips', 'aria-label': 'Filters' });
  const q = params.get('q');
  const chip = (text: string, next: URLSearchParams): void => {
    const c = bar.appendChild(el('span', null, { class: 'chip' }));
    c.appendChild(el('span', text));
    c.appendChild(el('a', '×', { href: hashOf(T.r, next), title: 'remove this filter', 'aria-label': `remove filter ${text}` }));
  };
  for (const f of filters) chip(chipText(f, colLabel, (x) => (x.kind === 'facet' && x.col === 'operating_system' ? ctx.store.nameOf('operating_systems', x.value) : x.kind === 'facet' ? facetText(x.value) : x.value)), withoutFilter(params, f));
  if (q) chip(`search “${q}”`, withParam(params, 'q', null));
  return bar;
}

/** The form that adds an operator filter on any column. */
function operatorForm(T: Table, params: URLSearchParams, cols: readonly string[]): HTMLElement {
  const form = el('form', null, { class: 'opfilter', 'aria-label': 'Add a filter' });
  const col = form.appendChild(el('select', null, { name: 'col', 'aria-label': 'column' }));
  for (const c of cols) col.appendChild(el('option', colLabel(c), { value: c }));
  const op = form.appendChild(el('select', null, { name: 'op', 'aria-label': 'operator' }));
  for (const [k, text] of Object.entries(OPERATORS)) op.appendChild(el('option', text, { value: k }));
  const value = form.appendChild(el('input', null, { name: 'value', type: 'text', size: 8, 'aria-label': 'value', placeholder: 'value' }));
  form.appendChild(el('button', 'Add filter', { type: 'submit' }));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!isOperator(op.value)) return;
    location.hash = hashOf(T.r, withFilter(params, `o.${col.value}`, opValue(op.value, value.value.trim())));
  });
  return form;
}

/** The export's rows: id and the visible columns, lists kept as lists. */
function exportRows(T: Table, rows: readonly number[], cols: readonly string[]): { header: string[]; data: Cell[][] } {
  const columns = cols.map((c) => cells(T, c));
  return { header: ['id', ...cols], data: rows.map((i) => [T.ids[i]!, ...columns.map((c) => c[i] ?? null)]) };
}

/** A plain first page shows the first part's rows while the others load. */
function preview(ctx: Ctx, r: string, params: URLSearchParams, count: number): void {
  ctx.store.withTable(r, () => {}, (chunk, loaded, total) => {
    const v = view();
    if (!isCurrent(ctx) || v.hasAttribute('data-preview') || loaded === total) return;
    const T: Table = { r, n: chunk.ids.length, ids: chunk.ids, cols: new Map(), names: [], pos: new Map(), text: null };
    for (const col of chunk.columns) T.cols.set(col[0], col.length === 3 ? col[1].map((c) => col[2][c] ?? null) : col[1]);
    const cols = visibleCols(T, params, DEFAULT_COLS[r as ResourceName] ?? ['name']);
    clear();
    v.appendChild(el('h2', label(r))).appendChild(el('small', `loading ${count} records (${loaded} of ${total} parts)…`, { id: 'count' }));
    const table = v.appendChild(el('div', null, { class: 'tablewrap' })).appendChild(el('table', null, { class: 'grid' }));
    const head = table.appendChild(el('thead')).appendChild(el('tr'));
    for (const c of cols) head.appendChild(el('th', colLabel(c), { scope: 'col' }));
    const body = table.appendChild(el('tbody'));
    for (let i = 0; i < Math.min(PAGE, T.n); i++) {
      const tr = body.appendChild(el('tr'));
      for (const c of cols) tr.appendChild(el('td')).appendChild(cellNode(ctx.store, T, c, i));
    }
    v.setAttribute('data-preview', r);
  });
}

export function tableView(ctx: Ctx, r: string, params: URLSearchParams): void {
  const { store } = ctx;
  const info = store.data.resources[r]!;
  const resource = r as ResourceName;
  clear();
  view().appendChild(el('h2', label(r))).appendChild(el('small', `loading ${info.count} records…`));
  const facetCols = FACETS[resource] ?? [];
  const needs = facetCols.includes('operating_system') ? [r, 'operating_systems'] : [r];
  if (r === 'databases') needs.push('servers');
  const plain = [...params.keys()].every((k) => k === 'cols');
  if (plain && !store.tables.has(r)) preview(ctx, r, params, info.count);
  const hadTableSearch = document.activeElement?.id === 'table-q';
  store.withTables(needs, () => store.withHistory((history) => {
    if (!isCurrent(ctx)) return;
    const T = store.tables.get(r)!;
    markChanged(T, history);
    const tree = needs.includes('operating_systems') ? osTree(store.tables.get('operating_systems')) : undefined;
    // The rows kept, in table order; sorted only as far as the page shown (an export sorts them all).
    const rows = filterRows(T, params, tree);
    const cols = visibleCols(T, params, DEFAULT_COLS[resource] ?? ['name']);
    const filters = parseFilters(params);
    clear();
    const v = view();
    v.removeAttribute('data-preview');
    const countText = rows.length === T.n ? `${T.n} records` : `${rows.length} of ${T.n} records`;
    v.appendChild(el('h2', label(r))).appendChild(el('small', countText, { id: 'count' }));

    const bar = v.appendChild(el('div', null, { class: 'toolbar' }));
    const box = bar.appendChild(el('input', null, { type: 'search', id: 'table-q', placeholder: `Search ${label(r)}…`, 'aria-label': `Search ${label(r)}` }));
    box.value = params.get('q') ?? '';
    let timer: ReturnType<typeof setTimeout> | undefined;
    box.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(() => (location.hash = hashOf(r, withParam(params, 'q', box.value.trim() || null))), 200);
    });
    bar.appendChild(el('span', `searches ${searchedFields(T).join(', ')}`, { class: 'muted searched' }));
    const chooser = bar.appendChild(el('details', null, { class: 'chooser' }));
    chooser.appendChild(el('summary', 'Columns'));
    const form = chooser.appendChild(el('div'));
    for (const k of choosable(T)) {
      const lab = form.appendChild(el('label'));
      const cb = lab.appendChild(el('input', null, { type: 'checkbox', value: k }));
      cb.checked = cols.includes(k);
      cb.addEventListener('change', () => {
        const next = cb.checked ? [...cols, k] : cols.filter((c) => c !== k);
        location.hash = hashOf(r, withParam(params, 'cols', next.join(',')));
      });
      lab.appendChild(document.createTextNode(` ${k}`));
    }
    const chipParts = filters.map((f) => (f.op === 'eq' ? `${f.col}=${f.value}` : `${f.col}-${f.op}-${f.value}`)).concat(params.get('q') ? [`q=${params.get('q')}`] : []);
    const bomLabel = bar.appendChild(el('label', null, { class: 'bom', title: 'a byte-order mark makes Excel read the file as UTF-8' }));
    const bom = bomLabel.appendChild(el('input', null, { type: 'checkbox', id: 'csv-bom' }));
    bom.checked = true;
    bomLabel.appendChild(document.createTextNode(' BOM for Excel'));
    const csv = bar.appendChild(el('button', 'Export CSV', { type: 'button', id: 'export-csv' }));
    csv.addEventListener('click', () => {
      const { header, data } = exportRows(T, sortRows(T, rows, params), cols);
      download(exportName(r, chipParts, 'csv'), 'text/csv;charset=utf-8', toCsv(header, data, bom.checked));
    });
    const json = bar.appendChild(el('button', 'Export JSON', { type: 'button', id: 'export-json' }));
    json.addEventListener('click', () => {
      const { header, data } = exportRows(T, sortRows(T, rows, params), cols);
      download(exportName(r, chipParts, 'json'), 'application/json', toJson(header, data));
    });
    const filterBar = v.appendChild(el('div', null, { class: 'filterbar' }));
    filterBar.appendChild(operatorForm(T, params, choosable(T)));
    filterBar.appendChild(chips(ctx, T, params, filters));

    const layout = v.appendChild(el('div', null, { class: 'layout' }));
    const facets = facetCols.filter((c) => T.cols.has(c));
    if (facets.length > 0) {
      // A drawer above the table on a phone, closed until asked for; a side column on a wider screen.
      const narrow = window.matchMedia('(max-width: 720px)').matches;
      const aside = layout.appendChild(el('details', null, narrow ? { class: 'facets' } : { class: 'facets', open: '' }));
      aside.appendChild(el('summary', 'Facets'));
      const inner = aside.appendChild(el('div'));
      inner.appendChild(el('p', 'counting…', { class: 'muted' }));
      // The rows first, the counts a moment later: each facet passes over every record.
      setTimeout(() => {
        if (!isCurrent(ctx)) return;
        inner.textContent = '';
        for (const c of facets) inner.appendChild(facetBox(ctx, T, params, c, tree));
      }, 0);
    }
    const main = layout.appendChild(el('div', null, { class: 'tablewrap', id: 'results' }));
    const pages = Math.max(1, Math.ceil(rows.length / PAGE));
    const page = Math.min(pages, Math.max(1, Number(params.get('page')) || 1));
    const table = main.appendChild(el('table', null, { class: 'grid' }));
    const head = table.appendChild(el('thead')).appendChild(el('tr'));
    const sort = params.get('sort') ?? '';
    for (const c of cols) {
      const th = head.appendChild(el('th', null, { scope: 'col' }));
      const next = sort === c ? `-${c}` : sort === `-${c}` ? null : c;
      th.appendChild(el('a', colLabel(c) + (sort === c ? ' ▲' : sort === `-${c}` ? ' ▼' : ''), { href: hashOf(r, withParam(params, 'sort', next)), title: `sort by ${c}` }));
      if (sort === c || sort === `-${c}`) th.setAttribute('aria-sort', sort === c ? 'ascending' : 'descending');
    }
    const body = table.appendChild(el('tbody'));
    for (const i of sortRows(T, rows, params, page * PAGE).slice((page - 1) * PAGE)) {
      const tr = body.appendChild(el('tr'));
      for (const c of cols) {
        const cell = T.cols.get(c)![i];
        const cls = typeof cell === 'number' ? 'num' : typeof cell === 'string' && cell.length > 40 ? 'long' : '';
        tr.appendChild(el('td', null, cls ? { class: cls } : undefined)).appendChild(cellNode(store, T, c, i));
      }
    }
    if (rows.length === 0) body.appendChild(el('tr')).appendChild(el('td', 'No record matches.', { colspan: cols.length, class: 'muted' }));
    const pager = main.appendChild(el('nav', null, { class: 'pager', 'aria-label': 'Pages' }));
    const pageLink = (text: string, n: number, rel: string): void => {
      // A page one is on, or none, is no link: plain text, not a link greyed out.
      if (n < 1 || n > pages || n === page) {
        pager.appendChild(el('span', text, { class: 'off', 'aria-disabled': 'true' }));
        return;
      }
      const p = new URLSearchParams(params);
      if (n === 1) p.delete('page');
      else p.set('page', String(n));
      pager.appendChild(el('a', text, { href: hashOf(r, p), rel }));
    };
    pageLink('« first', 1, 'first');
    pageLink('‹ previous', page - 1, 'prev');
    pager.appendChild(el('span', `page ${page} of ${pages} · rows ${rows.length ? (page - 1) * PAGE + 1 : 0}–${Math.min(rows.length, page * PAGE)}`, { id: 'page' }));
    pageLink('next ›', page + 1, 'next');
    pageLink('last »', pages, 'last');
    document.title = `${label(r)} · Inventory mirror`;
    if (scrollToResults) {
      scrollToResults = false;
      main.scrollIntoView({ block: 'start' });
    }
    ready(r, countText, { keepFocus: hadTableSearch ? box : null });
  }));
}

/** Adds the "changed in the last sync" column to a table once, from the history's last entry. */
function markChanged(T: Table, history: History): void {
  if (T.cols.has(CHANGED_COLUMN)) return;
  const changed = lastChanged(history, T.r);
  if (!changed) return;
  T.cols.set(CHANGED_COLUMN, T.ids.map((id) => changed.ids.has(id)));
  T.names.push(CHANGED_COLUMN);
  if (!changed.whole) partlyMarked.add(T);
}

/** Tables whose last sync changed more records than the history lists: their `_changed` facet says so. */
const partlyMarked = new WeakSet<Table>();

let scrollToResults = false;

/** A facet click on a narrow screen, where the facets sit above the table, scrolls to the results once they are drawn. */
export function watchFacetClicks(): void {
  document.addEventListener('click', (e) => {
    const a = e.target instanceof Element ? e.target.closest('a[data-facet-link], .chips a, .facet a.clear') : null;
    if (a && window.matchMedia('(max-width: 720px)').matches) scrollToResults = true;
  });
}
