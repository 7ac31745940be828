/**
 * The global search: the sync's search index (ids and searched columns only), chunk by chunk. Hits
 * show as their chunks arrive, in table order, so the first ones appear after one chunk per
 * resource, whatever the inventory's size; the view is ready when every chunk has been searched.
 */
import { isCurrent, loading, ready, type Ctx } from '../context.js';
import { clear, el, view } from '../dom.js';
import { fmt, hashOf, href, label } from '../format.js';
import { matchedFields, mergeChunks, SEARCHED, searchedFields, textIndex } from '../table-data.js';
import type { TableChunk } from '../types.js';

const HITS_SHOWN = 10;

interface Hit {
  id: string;
  name: string;
  /** Fields other than the name that hold the term, with their values. */
  extra: string;
}

/** One chunk's hits of a term (lower case), and the fields it searched. */
function searchChunk(r: string, chunk: TableChunk, t: string): { hits: Hit[]; fields: string[] } {
  const T = mergeChunks(r, [chunk]);
  const text = textIndex(T);
  const hits: Hit[] = [];
  for (let i = 0; i < T.n; i++) {
    if (!text[i]!.includes(t)) continue;
    const extra = matchedFields(T, i, t).filter((k) => k !== 'name');
    hits.push({ id: T.ids[i]!, name: fmt(T.cols.get('name')![i]) || T.ids[i]!, extra: extra.map((k) => `${k} ${fmt(T.cols.get(k)![i])}`).join(' · ') });
  }
  return { hits, fields: searchedFields(T) };
}

export function searchView(ctx: Ctx, term: string): void {
  const { store } = ctx;
  loading();
  const t = term.trim().toLowerCase();
  const order = store.data.order;
  // Per resource, per chunk: its hits once searched.
  const found = new Map(order.map((r) => [r, new Array<Hit[] | undefined>(store.data.resources[r]!.chunks)]));
  const fields = new Map(order.map((r) => [r, new Set<string>()]));
  let left = order.reduce((n, r) => n + store.data.resources[r]!.chunks, 0);
  const total = left;
  const draw = (): void => {
    clear();
    const v = view();
    v.appendChild(el('h2', `Search “${term.trim()}”`));
    let count = 0;
    for (const r of order) {
      const hits = found.get(r)!.flatMap((h) => h ?? []);
      count += hits.length;
      if (hits.length === 0) continue;
      const all = hashOf(r, new URLSearchParams({ q: term.trim() }));
      const s = v.appendChild(el('section', null, { class: 'links' }));
      const h3 = s.appendChild(el('h3'));
      h3.appendChild(el('a', `${label(r)}: ${hits.length}`, { href: all }));
      h3.appendChild(el('span', ` (searched ${SEARCHED.filter((k) => fields.get(r)!.has(k)).join(', ')})`, { class: 'muted' }));
      const ul = s.appendChild(el('ul', null, { class: 'results' }));
      for (const hit of hits.slice(0, HITS_SHOWN)) {
        const li = ul.appendChild(el('li'));
        li.appendChild(el('a', hit.name, { href: href(r, hit.id) }));
        if (hit.extra) li.appendChild(el('span', ` ${hit.extra}`, { class: 'muted' }));
      }
      if (hits.length > HITS_SHOWN) ul.appendChild(el('li')).appendChild(el('a', `all ${hits.length} →`, { href: all }));
    }
    document.title = `Search · Inventory mirror`;
    const q = document.getElementById('q');
    if (left > 0) {
      v.appendChild(el('p', `searching… ${total - left} of ${total} index files`, { class: 'muted', role: 'status' }));
      v.setAttribute('data-preview', 'search');
      return;
    }
    v.removeAttribute('data-preview');
    if (!count) v.appendChild(el('p', 'Nothing found in names, addresses, connections or descriptions.', { class: 'muted' }));
    ready('search', `${count} results`, { keepFocus: q === document.activeElement ? q : null });
  };
  let scheduled = false;
  for (const r of order) {
    store.withSearchChunks(r, (chunk, c) => {
      if (!isCurrent(ctx)) return;
      const result = searchChunk(r, chunk, t);
      // Chunks arrive in any order; each one's place is its own index.
      found.get(r)![c] = result.hits;
      for (const f of result.fields) fields.get(r)!.add(f);
      left--;
      // Many chunks may arrive in one task: the view is drawn once for them.
      if (scheduled) return;
      scheduled = true;
      setTimeout(() => {
        scheduled = false;
        if (isCurrent(ctx)) draw();
      }, 0);
    });
  }
}
