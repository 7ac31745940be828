/** The changes page: every change of the kept history as a table, filtered by sync, resource, kind and text. */
import { changeRows, unlisted, type ChangeFilter, type ChangeKind } from '../changes.js';
import { isCurrent, loading, ready, type Ctx } from '../context.js';
import { clear, el, view } from '../dom.js';
import { href, label, when } from '../format.js';
import { changeText, timeNode } from './history.js';

const ROWS_SHOWN = 1000;
const KINDS: readonly ChangeKind[] = ['added', 'removed', 'changed'];

function filterOf(params: URLSearchParams, order: readonly string[]): ChangeFilter {
  const f: ChangeFilter = {};
  const sync = params.get('sync');
  if (sync !== null && /^\d+$/.test(sync)) f.sync = Number(sync);
  const r = params.get('r');
  if (r && order.includes(r)) f.resource = r;
  const kind = params.get('kind');
  if (kind && (KINDS as readonly string[]).includes(kind)) f.kind = kind as ChangeKind;
  const q = params.get('q');
  if (q) f.text = q;
  return f;
}

function select(name: string, labelText: string, options: readonly [string, string][], value: string): HTMLLabelElement {
  const lab = el('label', `${labelText} `);
  const s = lab.appendChild(el('select', null, { name }));
  for (const [v, text] of options) {
    const o = s.appendChild(el('option', text, { value: v }));
    if (v === value) o.selected = true;
  }
  return lab;
}

export function changesView(ctx: Ctx, params: URLSearchParams): void {
  const { store } = ctx;
  loading();
  store.withHistory((h) => {
    if (!isCurrent(ctx)) return;
    clear();
    const v = view();
    const order = store.data.order;
    const filter = filterOf(params, order);
    const rows = changeRows(h, order, filter);
    const countText = `${rows.length} changes`;
    v.appendChild(el('h2', 'Changes')).appendChild(el('small', countText, { id: 'count' }));
    const form = v.appendChild(el('form', null, { class: 'toolbar', id: 'changes-filter' }));
    form.appendChild(select('sync', 'sync', [['', 'every sync'], ...h.entries.map((e, n): [string, string] => [String(n), `${when(e.at)}${e.initial ? ' (first)' : ''}`])], filter.sync === undefined ? '' : String(filter.sync)));
    form.appendChild(select('r', 'resource', [['', 'every resource'], ...order.map((r): [string, string] => [r, label(r)])], filter.resource ?? ''));
    form.appendChild(select('kind', 'change', [['', 'any change'], ...KINDS.map((k): [string, string] => [k, k])], filter.kind ?? ''));
    const q = form.appendChild(el('label', 'text ')).appendChild(el('input', null, { type: 'search', name: 'q', placeholder: 'name, id or field' }));
    q.value = filter.text ?? '';
    form.appendChild(el('button', 'Show', { type: 'submit' }));
    const apply = (): void => {
      const p = new URLSearchParams();
      for (const [k, x] of new FormData(form)) if (typeof x === 'string' && x.trim() !== '') p.set(k, x.trim());
      const s = p.toString();
      location.hash = `#/_changes${s ? `?${s}` : ''}`;
    };
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      apply();
    });
    for (const s of form.querySelectorAll('select')) s.addEventListener('change', apply);

    const wrap = v.appendChild(el('div', null, { class: 'tablewrap' }));
    const table = wrap.appendChild(el('table', null, { class: 'grid changes' }));
    const head = table.appendChild(el('thead')).appendChild(el('tr'));
    for (const t of ['when', 'resource', 'change', 'record', 'fields']) head.appendChild(el('th', t, { scope: 'col' }));
    const body = table.appendChild(el('tbody'));
    for (const row of rows.slice(0, ROWS_SHOWN)) {
      const tr = body.appendChild(el('tr', null, { class: row.kind }));
      tr.appendChild(el('td')).appendChild(timeNode(row.at));
      tr.appendChild(el('td', label(row.resource)));
      tr.appendChild(el('td', row.kind));
      const name = tr.appendChild(el('td'));
      if (row.kind === 'removed') name.textContent = `${row.name} (${row.id})`;
      else name.appendChild(el('a', row.name, { href: href(row.resource, row.id) }));
      tr.appendChild(el('td', row.fields.map(changeText).join('; '), { class: 'long' }));
    }
    if (rows.length === 0) body.appendChild(el('tr')).appendChild(el('td', h.entries.length ? 'No change matches.' : 'No change history in this snapshot.', { colspan: 5, class: 'muted' }));
    if (rows.length > ROWS_SHOWN) v.appendChild(el('p', `${rows.length - ROWS_SHOWN} more: narrow the filter.`, { class: 'muted' }));
    const notListed = unlisted(h, filter);
    if (notListed > 0) v.appendChild(el('p', `${notListed} more changes were counted but not listed: the history keeps a few hundred records per sync and kind; \`inventory-mirror diff\` lists them all.`, { class: 'muted' }));
    document.title = 'Changes · Inventory mirror';
    ready('changes', countText);
  });
}
