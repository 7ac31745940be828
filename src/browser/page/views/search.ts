/** The global search: every table, the fields each searched, which field matched. */
import { isCurrent, loading, ready, type Ctx } from '../context.js';
import { clear, el, view } from '../dom.js';
import { fmt, hashOf, href, label } from '../format.js';
import { matchedFields, searchedFields, textIndex } from '../table-data.js';

const HITS_SHOWN = 10;

export function searchView(ctx: Ctx, term: string): void {
  const { store } = ctx;
  loading();
  store.withTables(store.data.order, () => {
    if (!isCurrent(ctx)) return;
    clear();
    const v = view();
    const t = term.trim().toLowerCase();
    v.appendChild(el('h2', `Search “${term.trim()}”`));
    let total = 0;
    for (const r of store.data.order) {
      const T = store.tables.get(r)!;
      const text = textIndex(T);
      const hits: number[] = [];
      for (let i = 0; i < T.n; i++) if (text[i]!.includes(t)) hits.push(i);
      total += hits.length;
      if (hits.length === 0) continue;
      const all = hashOf(r, new URLSearchParams({ q: term.trim() }));
      const s = v.appendChild(el('section', null, { class: 'links' }));
      const h3 = s.appendChild(el('h3'));
      h3.appendChild(el('a', `${label(r)}: ${hits.length}`, { href: all }));
      h3.appendChild(el('span', ` (searched ${searchedFields(T).join(', ')})`, { class: 'muted' }));
      const ul = s.appendChild(el('ul', null, { class: 'results' }));
      for (const i of hits.slice(0, HITS_SHOWN)) {
        const li = ul.appendChild(el('li'));
        li.appendChild(el('a', fmt(T.cols.get('name')![i]) || T.ids[i], { href: href(r, T.ids[i]!) }));
        const extra = matchedFields(T, i, t).filter((k) => k !== 'name');
        if (extra.length) li.appendChild(el('span', ` ${extra.map((k) => `${k} ${fmt(T.cols.get(k)![i])}`).join(' · ')}`, { class: 'muted' }));
      }
      if (hits.length > HITS_SHOWN) ul.appendChild(el('li')).appendChild(el('a', `all ${hits.length} →`, { href: all }));
    }
    if (!total) v.appendChild(el('p', 'Nothing found in names, addresses, connections or descriptions.', { class: 'muted' }));
    document.title = `Search · Inventory mirror`;
    ready('search', `${total} results`, { keepFocus: document.getElementById('q') === document.activeElement ? document.getElementById('q') : null });
  });
}
