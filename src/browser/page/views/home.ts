/** The home page: record counts, the last syncs' changes, the chart of changes. */
import { isCurrent, ready, type Ctx } from '../context.js';
import { clear, el, view } from '../dom.js';
import { label } from '../format.js';
import { changesChart } from './charts.js';
import { changeList } from './history.js';

/** Syncs the home page summarises; the changes page has them all. */
const RECENT = 5;

export function homeView(ctx: Ctx): void {
  const { store } = ctx;
  clear();
  const v = view();
  v.appendChild(el('h2', 'Resources'));
  const cards = v.appendChild(el('div', null, { class: 'cards' }));
  for (const r of store.data.order) {
    const a = cards.appendChild(el('a', null, { href: `#/${r}`, class: 'card' }));
    a.appendChild(el('b', store.data.resources[r]!.count));
    a.appendChild(el('span', label(r)));
  }
  const recent = v.appendChild(el('section', null, { id: 'recent' }));
  const h = recent.appendChild(el('h2', 'Recent changes '));
  h.appendChild(el('a', 'all changes →', { href: '#/_changes', class: 'small' }));
  store.withHistory((history) => {
    if (!isCurrent(ctx)) return;
    if (history.entries.length === 0) recent.appendChild(el('p', 'No change history in this snapshot.', { class: 'muted' }));
    history.entries.slice(0, RECENT).forEach((e, n) => recent.appendChild(changeList(store, e, n)));
    if (history.entries.some((e) => !e.initial)) recent.appendChild(changesChart(history));
    document.title = 'Inventory mirror';
    ready('home', 'Home');
  });
}
