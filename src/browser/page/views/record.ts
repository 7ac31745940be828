/** A record's page: its fields, the records linked to it both ways, its history, its raw JSON. */
import { isCurrent, loading, ready, type Ctx } from '../context.js';
import { clear, el, fieldName, view } from '../dom.js';
import { fmt, href, isIsoTime, NULL_TEXT, rawHref, when } from '../format.js';
import { connectedAppservers, databaseKeys } from '../links.js';
import type { Store } from '../loader.js';
import { descendants, osTree } from '../os-tree.js';
import { RELATED_TABLES, TARGET } from '../resources.js';
import { cells } from '../table-data.js';
import type { Cell, RecordBody, Ref } from '../types.js';
import type { ResourceName } from '../../../spec/resources.js';
import { recordHistory } from './history.js';

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

function linkList(store: Store, title: string, r: string, ids: readonly string[], more?: string | null): HTMLElement {
  const s = el('section', null, { class: 'links' });
  s.appendChild(el('h3', `${title} (${ids.length})`));
  const ul = s.appendChild(el('ul', null, { class: 'results' }));
  for (const id of ids.slice(0, LINKS_SHOWN)) ul.appendChild(el('li')).appendChild(el('a', store.nameOf(r, id), { href: href(r, id) }));
  if (ids.length === 0) ul.appendChild(el('li', 'none', { class: 'muted' }));
  if (more && ids.length > 0) ul.appendChild(el('li')).appendChild(el('a', ids.length > LINKS_SHOWN ? `all ${ids.length} in the table →` : 'as a table →', { href: more }));
  return s;
}

/** A list of linked records whose names the sync wrote beside their ids: no table needed. */
function refList(title: string, r: string, refs: readonly Ref[], more?: string | null): HTMLElement {
  const s = el('section', null, { class: 'links' });
  s.appendChild(el('h3', `${title} (${refs.length})`));
  const ul = s.appendChild(el('ul', null, { class: 'results' }));
  for (const [id, name] of refs.slice(0, LINKS_SHOWN)) ul.appendChild(el('li')).appendChild(el('a', name || id, { href: href(r, id) }));
  if (refs.length === 0) ul.appendChild(el('li', 'none', { class: 'muted' }));
  if (more && refs.length > 0) ul.appendChild(el('li')).appendChild(el('a', refs.length > LINKS_SHOWN ? `all ${refs.length} in the table →` : 'as a table →', { href: more }));
  return s;
}

/**
 * The links of a server, an application or an appserver: from its links bucket and its own table
 * chunk, a few hundred records and a few thousand rows whatever the inventory's size.
 */
function linkedSections(r: string, links: Map<string, Ref[]>, cell: (col: string) => Cell): HTMLElement[] {
  const of = (kind: string): Ref[] => links.get(kind) ?? [];
  if (r === 'servers') {
    const os = cell('operating_system.id');
    const apps = of('appservers');
    return [
      refList('Operating system', 'operating_systems', Array.isArray(os) && os[0] !== undefined ? [[os[0], fmt(cell('operating_system')) || os[0]]] : []),
      refList('Applications on this server', 'applications', of('applications')),
      refList('Appservers on this server', 'appservers', apps, apps.length ? `#/appservers?f.server_name=${encodeURIComponent(fmt(cell('name')))}` : null),
      refList('Databases on this server', 'databases', of('databases')),
    ];
  }
  if (r === 'applications') return [refList('Servers of its instances', 'servers', of('servers'))];
  return [refList('Server', 'servers', of('servers'))];
}

/** Resources whose record pages read their links from links buckets. */
const LINKED = new Set(['servers', 'applications', 'appservers']);

const unique = (ids: readonly string[]): string[] => [...new Set(ids)];

/** The linked records that whole tables tell: an operating system's servers and descendants, a database's servers. */
function related(store: Store, r: string, id: string, i: number): HTMLElement[] {
  const out: HTMLElement[] = [];
  const T = store.tables.get(r)!;
  if (r === 'operating_systems') {
    const tree = osTree(T);
    const set = descendants(tree, id);
    const S = store.tables.get('servers');
    const on: string[] = [];
    if (S) {
      const sos = cells(S, 'operating_system.id');
      for (let k = 0; k < S.n; k++) {
        const v = sos[k];
        if (Array.isArray(v) && v[0] !== undefined && set.has(v[0])) on.push(S.ids[k]!);
      }
    }
    out.push(linkList(store, 'Servers on it or on a descendant', 'servers', on, `#/servers?f.operating_system=${encodeURIComponent(id)}`));
    out.push(linkList(store, 'Descendant systems', 'operating_systems', tree.children.get(id) ?? []));
  }
  if (r === 'databases') {
    const ids = T.cols.get('servers.id')?.[i];
    out.push(linkList(store, 'Servers', 'servers', Array.isArray(ids) ? ids : []));
  }
  return out;
}

/** What the record's own details tell: a database's connecting appservers and, through them, their servers. */
function relatedFromRecord(store: Store, r: string, record: RecordBody, i: number): HTMLElement[] {
  const A = store.tables.get('appservers');
  if (r !== 'databases' || !A) return [];
  const T = store.tables.get(r)!;
  const names = T.cols.get('servers')?.[i];
  const apps = connectedAppservers(A, databaseKeys(record, Array.isArray(names) ? names : []));
  const serverIds = cells(A, 'server_id');
  const servers = unique(apps.map((a) => serverIds[A.pos.get(a)!]).filter((s): s is string => typeof s === 'string' && s !== ''));
  return [linkList(store, 'Appservers that connect to it', 'appservers', apps), linkList(store, 'Servers of those appservers', 'servers', servers)];
}

/**
 * A record's page. The record's own bucket (a few hundred records) comes first, so its fields show
 * at once whatever the inventory's size; the links, which need whole tables, follow when those
 * have loaded, and only then is the view marked ready.
 */
export function recordView(ctx: Ctx, r: string, id: string): void {
  const { store } = ctx;
  loading();
  store.withRecord(r, id, (record) => {
    if (!isCurrent(ctx)) return;
    if (record) return drawRecord(ctx, r, id, record, fmt(record.name) || id);
    // Not in its bucket: the table says whether the record exists at all.
    store.withTable(r, (T) => {
      if (!isCurrent(ctx)) return;
      const i = T.pos.get(id);
      if (i !== undefined) return drawRecord(ctx, r, id, undefined, fmt(T.cols.get('name')![i]) || id);
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
  if (LINKED.has(r)) {
    store.withLinks(r, id, (links) =>
      store.withRow(r, id, (cell) => {
        if (!isCurrent(ctx)) return;
        pending.remove();
        for (const s of linkedSections(r, links, cell)) right.insertBefore(s, history);
        ready('record', `${name}, ${r.replace(/_/g, ' ')}`);
      }),
    );
    return;
  }
  store.withTables(RELATED_TABLES[r as ResourceName] ?? [r], () => {
    if (!isCurrent(ctx)) return;
    pending.remove();
    const i = store.tables.get(r)!.pos.get(id);
    if (i !== undefined) {
      for (const s of related(store, r, id, i)) right.insertBefore(s, history);
      if (record) for (const s of relatedFromRecord(store, r, record, i)) right.insertBefore(s, history);
    }
    ready('record', `${name}, ${r.replace(/_/g, ' ')}`);
  });
}
