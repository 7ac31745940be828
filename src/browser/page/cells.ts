/** A table cell as a node: names link to their records, links to the records they point to. */
import { el } from './dom.js';
import { fmt, href, NULL_TEXT, shown } from './format.js';
import type { Store } from './loader.js';
import { TARGET } from './resources.js';
import type { Cell, Table } from './types.js';

/** The ids a cell points to: its `<col>.id` column, or for an appserver's server its `server_id`. */
export function linkIds(T: Table, col: string, i: number): string[] | null {
  const ids = T.cols.get(`${col}.id`)?.[i];
  if (Array.isArray(ids)) return ids;
  if (col === 'server_name' || col === 'server_id') {
    const sid = T.cols.get('server_id')?.[i];
    return typeof sid === 'string' && sid !== '' ? [sid] : null;
  }
  return null;
}

export function cellNode(store: Store, T: Table, col: string, i: number): HTMLElement {
  const v: Cell = T.cols.get(col)?.[i] ?? null;
  if (col === 'name') return el('a', fmt(v) || T.ids[i], { href: href(T.r, T.ids[i]!) });
  const target = TARGET.get(col);
  const ids = target ? linkIds(T, col, i) : null;
  if (target && ids && ids.length > 0) {
    const span = el('span');
    const names = Array.isArray(v) && v.length === ids.length ? v : null;
    ids.forEach((id, k) => {
      if (k) span.appendChild(document.createTextNode(', '));
      const text = names ? names[k] : ids.length === 1 && v !== null ? fmt(v) : store.nameOf(target, id);
      span.appendChild(el('a', text, { href: href(target, id) }));
    });
    return span;
  }
  if (v === null) return el('span', NULL_TEXT, { class: 'muted', title: 'null' });
  return el('span', shown(v));
}
