/** A record's page: its fields, the records linked to it both ways, its history, its raw JSON. */
import { isCurrent, loading, ready, type Ctx } from '../context.js';
import { clear, el, fieldName, view } from '../dom.js';
import { fmt, href, isIsoTime, NULL_TEXT, rawHref, when } from '../format.js';
import { TARGET } from '../resources.js';
import type { Cell, LinkList, RecordBody, Ref } from '../types.js';
import { recordHistory } from './history.js';

/** Links shown per kind: the sync's links files keep as many (LINKS_KEPT in src/browser/links.ts) and the count. */
const LINKS_SHOWN = 100;
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A value: nested objects as key/value tables, lists of objects as tables of their fields. */
function valueNode(v: unknown): HTMLElement {
  if (v === null || v === undefined) return el('span', NULL_TEXT, { class: 'muted', title: 'null' });
  if (Array.isArray(v)) {
    if (v.length === 0) return el('span', 'none', { class: 'muted' });
    const objects = v.every(isObject);
    // Objects holding objects (a database instance's config) read better one below the other than as a wide table.
    if (objects && v.some((x) => Object.values(x).some((y) => y !== null && typeof y === 'object'))) {
      const stack = el('div', null, { class: 'stack' });
      for (const x of v) stack.appendChild(valueNode(x));
      return stack;
    }
    if (objects) {
      const keys: string[] = [];
      for (const x of v) for (const k of Object.keys(x)) if (!keys.includes(k)) keys.push(k);
      const wrap = el('div', null, { class: 'scroll' });
      const t = wrap.appendChild(el('table', null, { class: 'nested' }));
      const hr = t.appendChild(el('tr'));
      for (const k of keys) hr.appendChild(el('th', null, { scope: 'col' })).appendChild(fieldName(k));
      for (const x of v) {
        const tr = t.appendChild(el('tr'));
        for (const k of keys) tr.appendChild(el('td')).appendChild(valueNode(Object.hasOwn(x, k) ? x[k] : null));
      }
      return wrap;
    }
    return el('span', v.map(fmt).join(', '));
  }
  if (isObject(v)) {
    const kv = el('table', null, { class: 'kv' });
    for (const [k, x] of Object.entries(v)) {
      const tr = kv.appendChild(el('tr'));
      tr.appendChild(el('th', null, { scope: 'row' })).appendChild(fieldName(k));
      tr.appendChild(el('td')).appendChild(valueNode(x));
    }
    return kv;
  }
  if (isIsoTime(v)) return el('time', when(v), { datetime: v, title: v });
  return el('span', typeof v === 'boolean' ? String(v) : String(v));
}

function fieldRow(table: HTMLElement, k: string, v: unknown): void {
  const tr = table.appendChild(el('tr'));
  tr.appendChild(el('th', null, { scope: 'row' })).appendChild(fieldName(k));
  const td = tr.appendChild(el('td'));
  const target = TARGET.get(k);
  if (target && isObject(v) && typeof v.id === 'string') td.appendChild(el('a', fmt(v.name) || v.id, { href: href(target, v.id) }));
  else if (target && Array.isArray(v) && v.length > 0 && v.every((x) => isObject(x) && typeof x.id === 'string')) {
    (v as { id: string; name?: unknown }[]).forEach((x, n) => {
      if (n) td.appendChild(document.createTextNode(', '));
      td.appendChild(el('a', fmt(x.name) || x.id, { href: href(target, x.id) }));
    });
  } else td.appendChild(valueNode(v));
}

/** A list of linked records whose names the sync wrote beside their ids: no table needed. */
function refList(title: string, r: string, list: LinkList, more?: string | null): HTMLElement {
  const { refs, total } = list;
  const s = el('section', null, { class: 'links' });
  s.appendChild(el('h3', `${title} (${total})`));
  const ul = s.appendChild(el('ul', null, { class: 'results' }));
  for (const [id, name] of refs.slice(0, LINKS_SHOWN)) ul.appendChild(el('li')).appendChild(el('a', name || id, { href: href(r, id) }));
  if (total === 0) ul.appendChild(el('li', 'none', { class: 'muted' }));
  if (more && total > 0) ul.appendChild(el('li')).appendChild(el('a', total > LINKS_SHOWN ? `all ${total} in the table →` : 'as a table →', { href: more }));
  return s;
}

const NONE: LinkList = { refs: [], total: 0 };

/**
 * A record's linked records: from its links bucket (and, for a server, its OS from its own table
 * chunk), a few hundred records and a few thousand rows whatever the inventory's size.
 */
function linkedSections(r: string, id: string, links: Map<string, LinkList>, cell: ((col: string) => Cell) | undefined): HTMLElement[] {
  const of = (kind: string): LinkList => links.get(kind) ?? NONE;
  if (r === 'servers') {
    const os = cell?.('operating_system.id');
    const apps = of('appservers');
    const osRefs: Ref[] = Array.isArray(os) && os[0] !== undefined ? [[os[0], fmt(cell!('operating_system')) || os[0]]] : [];
    return [
      refList('Operating system', 'operating_systems', { refs: osRefs, total: osRefs.length }),
      refList('Applications on this server', 'applications', of('applications')),
      refList('Appservers on this server', 'appservers', apps, cell && apps.total ? `#/appservers?f.server_name=${encodeURIComponent(fmt(cell('name')))}` : null),
      refList('Databases on this server', 'databases', of('databases')),
    ];
  }
  if (r === 'applications') return [refList('Servers of its instances', 'servers', of('servers'))];
  if (r === 'appservers') return [refList('Server', 'servers', of('servers')), refList('Databases it connects to', 'databases', of('databases'))];
  if (r === 'databases') return [refList('Servers', 'servers', of('servers')), refList('Appservers that connect to it', 'appservers', of('appservers')), refList('Servers of those appservers', 'servers', of('appserver_servers'))];
  if (r === 'operating_systems') return [refList('Servers on it or on a descendant', 'servers', of('servers'), `#/servers?f.operating_system=${encodeURIComponent(id)}`), refList('Descendant systems', 'operating_systems', of('children'))];
  return [];
}

/**
 * A record's page. The record's own bucket (a few hundred records) comes first, so its fields show
 * at once whatever the inventory's size; its links bucket follows (and a server's table chunk),
 * and only then is the view marked ready. No whole table is loaded.
 */
export function recordView(ctx: Ctx, r: string, id: string): void {
  const { store } = ctx;
  loading();
  store.withRecord(r, id, (record) => {
    if (!isCurrent(ctx)) return;
    if (record) return drawRecord(ctx, r, id, record, fmt(record.name) || id);
    // Not in its bucket: its table chunk says whether the record exists at all.
    store.withRow(r, id, (cell) => {
      if (!isCurrent(ctx)) return;
      if (cell) return drawRecord(ctx, r, id, undefined, fmt(cell('name')) || id);
      clear();
      view().appendChild(el('h2', `No ${r} record with id ${id}`));
      ready('missing', `No ${r} record with id ${id}`);
    });
  });
}

function drawRecord(ctx: Ctx, r: string, id: string, record: RecordBody | undefined, name: string): void {
  const { store } = ctx;
  clear();
  const v = view();
  const h = v.appendChild(el('h2', name));
  h.appendChild(el('small', `${store.data.resources[r]!.singular.replace(/_/g, ' ')} ${id}`));
  const rawLink = rawHref(r, id);
  if (rawLink) v.appendChild(el('p', null, { class: 'raw' })).appendChild(el('a', 'raw JSON', { href: rawLink, title: 'the record file as the service sent it' }));
  const grid = v.appendChild(el('div', null, { class: 'record' }));
  const table = grid.appendChild(el('div')).appendChild(el('table', null, { class: 'fields' }));
  if (!record) table.appendChild(el('tr')).appendChild(el('td', 'details not found', { class: 'muted' }));
  else for (const [k, x] of Object.entries(record)) fieldRow(table, k, x);
  const right = grid.appendChild(el('div'));
  const pending = right.appendChild(el('p', 'loading links…', { class: 'muted' }));
  const history = right.appendChild(recordHistory(store, r, id));
  document.title = `${name} · Inventory mirror`;
  const show = (cell: ((col: string) => Cell) | undefined): void =>
    store.withLinks(r, id, (links) => {
      if (!isCurrent(ctx)) return;
      pending.remove();
      for (const sec of linkedSections(r, id, links, cell)) right.insertBefore(sec, history);
      ready('record', `${name}, ${r.replace(/_/g, ' ')}`);
    });
  // Only a server's page needs its row (the operating system the views gave it): one table chunk.
  if (r === 'servers') store.withRow(r, id, show);
  else show(undefined);
}
