/** The data-quality findings, largest first, and the records each names. */
import { isCurrent, ready, type Ctx } from '../context.js';
import { clear, el, view } from '../dom.js';
import { href } from '../format.js';

export function qualityView(ctx: Ctx): void {
  const Q = ctx.store.data.quality;
  clear();
  const v = view();
  v.appendChild(el('h2', 'Data quality')).appendChild(el('small', `${Q.findings.length} kinds of finding, largest first`));
  if (Q.findings.length === 0) v.appendChild(el('p', 'No findings: the service sent what its API document describes.', { class: 'muted' }));
  else {
    const table = v.appendChild(el('div', null, { class: 'scroll' })).appendChild(el('table', null, { class: 'findings' }));
    const head = table.appendChild(el('tr'));
    for (const t of ['finding', 'records', 'meaning']) head.appendChild(el('th', t, { scope: 'col' }));
    Q.findings.forEach((f, n) => {
      const tr = table.appendChild(el('tr'));
      tr.appendChild(el('td')).appendChild(el('a', `${f.resource}${f.field ? ` ${f.field}` : ''}: ${f.code}`, { href: `#/_quality/${n}` }));
      tr.appendChild(el('td', `${f.count} (${(f.share * 100).toFixed(1)}%)`, { class: 'count' }));
      tr.appendChild(el('td', f.meaning, { class: 'muted' }));
    });
  }
  const shape = Object.entries(Q.shape ?? {});
  if (shape.length) {
    v.appendChild(el('h3', 'Fields only one view carries (the service renders its list and single views differently; not a finding)'));
    const ul = v.appendChild(el('ul'));
    for (const [r, s] of shape) ul.appendChild(el('li', `${r}: only in the list ${s.listOnly.join(', ') || 'none'}; only in the single view ${s.singleOnly.join(', ') || 'none'}`));
  }
  document.title = 'Data quality · Inventory mirror';
  ready('quality', 'Data quality');
}

export function findingView(ctx: Ctx, n: number): void {
  const { store } = ctx;
  const f = store.data.quality.findings[n];
  clear();
  if (!f || !store.has(f.resource)) {
    view().appendChild(el('h2', 'No such finding'));
    return;
  }
  store.withTable(f.resource, (T) => {
    if (!isCurrent(ctx)) return;
    const v = view();
    v.appendChild(el('h2', `${f.resource}${f.field ? ` ${f.field}` : ''}: ${f.code}`)).appendChild(el('small', `${f.count} records`));
    v.appendChild(el('p', f.meaning, { class: 'muted' }));
    const ul = v.appendChild(el('ul', null, { class: 'results' }));
    for (const id of f.ids) {
      const li = ul.appendChild(el('li'));
      if (!T.pos.has(id)) li.appendChild(el('span', id));
      else li.appendChild(el('a', store.nameOf(f.resource, id), { href: href(f.resource, id) })).after(el('span', ` ${id}`, { class: 'muted' }));
    }
    if (f.count > f.ids.length) ul.appendChild(el('li', `… and ${f.count - f.ids.length} more (all of them are in _meta/quality.json)`, { class: 'muted' }));
    ready('finding', `${f.count} records`);
  });
}
