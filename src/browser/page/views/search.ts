/**
 * The global search: the sync's search index (per row, the searched fields in one text), chunk by
 * chunk. Hits show as their chunks arrive, in table order, so the first ones appear after one
 * chunk per resource, whatever the inventory's size; the view is ready when every chunk has been
 * searched and the counts are whole.
 */
import { isCurrent, loading, ready, type Ctx } from '../context.js';
import { clear, el, view } from '../dom.js';
import { hashOf, href, label } from '../format.js';
import { searchHits, type Hit } from '../search-hits.js';
import { SEARCHED } from '../table-data.js';

const HITS_SHOWN = 10;

export function searchView(ctx: Ctx, term: string): void {
  const { store } = ctx;
  loading();
  const t = term.trim().toLowerCase();
  const order = store.data.order;
  // Per resource, per chunk: its hit count and first hits, once searched.
  const found = new Map(order.map((r) => [r, new Array<{ count: number; hits: Hit[] } | undefined>(store.data.resources[r]!.chunks)]));
  const fields = new Map(order.map((r) => [r, new Set<string>()]));
  let left = order.reduce((n, r) => n + store.data.resources[r]!.chunks, 0);
  const total = left;
  const draw = (): void => {
    clear();
    const v = view();
    v.appendChild(el('h2', `Search “${term.trim()}”`));
    let sum = 0;
    for (const r of order) {
      const chunks = found.get(r)!.filter((c) => c !== undefined);
      const count = chunks.reduce((n, c) => n + c.count, 0);
      sum += count;
      if (count === 0) continue;
      const all = hashOf(r, new URLSearchParams({ q: term.trim() }));
      const s = v.appendChild(el('section', null, { class: 'links' }));
      const h3 = s.appendChild(el('h3'));
      h3.appendChild(el('a', `${label(r)}: ${count}`, { href: all }));
      h3.appendChild(el('span', ` (searched ${SEARCHED.filter((k) => fields.get(r)!.has(k)).join(', ')})`, { class: 'muted' }));
      const ul = s.appendChild(el('ul', null, { class: 'results' }));
      for (const hit of chunks.flatMap((c) => c.hits).slice(0, HITS_SHOWN)) {
        const li = ul.appendChild(el('li'));
        li.appendChild(el('a', hit.name, { href: href(r, hit.id) }));
        if (hit.extra) li.appendChild(el('span', ` ${hit.extra}`, { class: 'muted' }));
      }
      if (count > HITS_SHOWN) ul.appendChild(el('li')).appendChild(el('a', `all ${count} →`, { href: all }));
    }
    document.title = `Search · Inventory mirror`;
    if (left > 0) {
      v.appendChild(el('p', `searching… ${total - left} of ${total} index files`, { class: 'muted' }));
      v.setAttribute('data-preview', 'search');
      return;
    }
    v.removeAttribute('data-preview');
    if (!sum) v.appendChild(el('p', 'Nothing found in names, addresses, connections or descriptions.', { class: 'muted' }));
    const q = document.getElementById('q');
    ready('search', `${sum} results`, { keepFocus: q === document.activeElement ? q : null });
  };
  let scheduled = false;
  for (const r of order) {
    store.withSearchChunks(r, (chunk, c) => {
      if (!isCurrent(ctx)) return;
      found.get(r)![c] = searchHits(chunk, t, HITS_SHOWN);
      for (const f of chunk.fields) fields.get(r)!.add(f);
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
