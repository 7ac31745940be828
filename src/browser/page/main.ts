/**
 * The offline page's entry (bundled by esbuild into `_browser/app.js`): the navigation, the header
 * search and the router. Each view's state is in the URL's hash, so a view can be bookmarked.
 */
import { nextRoute } from './context.js';
import { el, view } from './dom.js';
import { label } from './format.js';
import { Store } from './loader.js';
import { lowerTexts } from './search-hits.js';
import { changesView } from './views/changes.js';
import { chartsView } from './views/charts.js';
import { homeView } from './views/home.js';
import { findingView, qualityView } from './views/quality.js';
import { recordView } from './views/record.js';
import { searchView } from './views/search.js';
import { tableView, watchFacetClicks } from './views/table.js';

function parseHash(): { path: string[]; params: URLSearchParams } {
  const h = location.hash.replace(/^#\/?/, '');
  const q = h.indexOf('?');
  return { path: (q < 0 ? h : h.slice(0, q)).split('/'), params: new URLSearchParams(q < 0 ? '' : h.slice(q + 1)) };
}

function start(): void {
  const data = window.IM_DATA;
  if (!data) {
    view().textContent = 'No data: _browser/data.js is missing or damaged; run sync with --browser again.';
    return;
  }
  const store = new Store(data);
  const nav = document.getElementById('resources')!;
  for (const r of data.order) nav.appendChild(el('a', label(r), { href: `#/${r}` })).appendChild(el('b', data.resources[r]!.count));
  nav.appendChild(el('a', 'changes', { href: '#/_changes', id: 'nav-changes' }));
  nav.appendChild(el('a', 'charts', { href: '#/_charts', id: 'nav-charts' }));
  const qa = nav.appendChild(el('a', 'data quality', { href: '#/_quality', id: 'nav-quality' }));
  qa.appendChild(el('b', data.quality.findings.reduce((n, f) => n + f.count, 0)));

  const q = document.getElementById('q') as HTMLInputElement;
  const route = (): void => {
    const ctx = nextRoute(store);
    const v = view();
    v.removeAttribute('data-ready');
    v.removeAttribute('data-preview');
    const { path, params } = parseHash();
    const [first = '', ...rest] = path;
    // The header search shows the term of the search page only, not a stale one elsewhere.
    if (first !== '_search' && document.activeElement !== q) q.value = '';
    for (const a of nav.querySelectorAll('a')) a.toggleAttribute('aria-current', a.getAttribute('href') === `#/${first}`);
    if (first === '_quality') return rest.length > 0 && rest[0] !== '' ? findingView(ctx, Number(rest[0])) : qualityView(ctx);
    if (first === '_charts') return chartsView(ctx);
    if (first === '_changes') return changesView(ctx, params);
    const term = (params.get('q') ?? '').trim();
    if (first === '_search' && term) {
      if (document.activeElement !== q) q.value = params.get('q') ?? '';
      return searchView(ctx, term);
    }
    // An own resource only: "#/constructor" must not find Object.prototype's.
    const r = store.has(first) ? first : '';
    if (r && rest.length > 0) return recordView(ctx, r, decodeURIComponent(rest.join('/')));
    if (r) return tableView(ctx, r, params);
    homeView(ctx);
  };
  // The index loads while the person types: at 200 000 servers it is tens of megabytes to parse.
  q.addEventListener('focus', () => store.prefetchSearch((chunk) => void lowerTexts(chunk)), { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  q.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => (location.hash = q.value.trim() ? `#/_search?${new URLSearchParams({ q: q.value.trim() }).toString()}` : '#/'), 250);
  });
  // `/` moves to the search box, as on many sites, unless one is typing already.
  document.addEventListener('keydown', (e) => {
    const t = e.target as HTMLElement | null;
    if (e.key === '/' && !e.ctrlKey && !e.metaKey && !e.altKey && !(t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)))) {
      e.preventDefault();
      q.focus();
    }
  });
  watchFacetClicks();
  window.addEventListener('hashchange', route);
  route();
}

start();
