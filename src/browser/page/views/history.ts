/** Change lists: a sync's summary on the home page, a record's own history on its page. */
import { el } from '../dom.js';
import { fmt, href, label, NULL_TEXT, when } from '../format.js';
import type { Store } from '../loader.js';
import type { FieldChange, HistoryEntry } from '../types.js';

/** Records a summary names per kind of change. */
const SHOWN = 8;

/** `memory_GB 64 → 128`, null written as everywhere else. */
export const changeText = (f: FieldChange): string => `${f[0]} ${f[1] === null ? NULL_TEXT : fmt(f[1])} → ${f[2] === null ? NULL_TEXT : fmt(f[2])}`;

/** A time element: local time, the ISO value on hover and in `datetime`. */
export function timeNode(iso: string): HTMLElement {
  return el('time', when(iso), { datetime: iso, title: iso });
}

/** One sync's changes, a few records per resource, the rest one link away on the changes page. */
export function changeList(store: Store, e: HistoryEntry, n: number): HTMLElement {
  const box = el('div', null, { class: 'change' });
  box.appendChild(el('strong', e.initial ? 'First snapshot' : 'Sync'));
  box.appendChild(document.createTextNode(' · '));
  box.appendChild(timeNode(e.at)).classList.add('muted');
  const ul = box.appendChild(el('ul'));
  const order = store.data.order;
  if (e.initial) {
    ul.appendChild(el('li', order.map((r) => `${e.records[r] ?? 0} ${label(r)}`).join(', ')));
    return box;
  }
  for (const r of order) {
    const c = Object.hasOwn(e.resources, r) ? e.resources[r] : undefined;
    if (!c) continue;
    const li = ul.appendChild(el('li'));
    li.appendChild(el('b', `${label(r)}: `));
    li.appendChild(document.createTextNode(`${c.counts.added} added, ${c.counts.removed} removed, ${c.counts.changed} changed`));
    const sub = li.appendChild(el('ul', null, { class: 'ids' }));
    for (const x of c.added.slice(0, SHOWN)) sub.appendChild(el('li', '+ ', { class: 'added' })).appendChild(el('a', x[1], { href: href(r, x[0]) }));
    for (const x of c.removed.slice(0, SHOWN)) sub.appendChild(el('li', `− ${x[1]} (${x[0]})`, { class: 'removed' }));
    for (const x of c.changed.slice(0, SHOWN)) {
      const l = sub.appendChild(el('li', '~ ', { class: 'changed' }));
      l.appendChild(el('a', x[1], { href: href(r, x[0]) }));
      // A save stamp changes with every other field: worth no room in a summary.
      const fields = x[2].filter((f) => !/^(updated|modified)_at$/.test(f[0]));
      l.appendChild(el('span', ` ${(fields.length ? fields : x[2]).slice(0, 3).map(changeText).join('; ')}`, { class: 'muted' }));
    }
    const shownCount = Math.min(SHOWN, c.added.length) + Math.min(SHOWN, c.removed.length) + Math.min(SHOWN, c.changed.length);
    const all = c.counts.added + c.counts.removed + c.counts.changed;
    if (all > shownCount) sub.appendChild(el('li')).appendChild(el('a', `… and ${all - shownCount} more`, { href: `#/_changes?sync=${n}&r=${encodeURIComponent(r)}` }));
  }
  return box;
}

/** A record's own history: when it was added, removed or changed, and what changed. */
export function recordHistory(store: Store, r: string, id: string): HTMLElement {
  const s = el('section', null, { class: 'history' });
  s.appendChild(el('h3', 'History'));
  const ul = s.appendChild(el('ul'));
  store.withHistory((h) => {
    let any = false;
    for (const e of h.entries) {
      const c = Object.hasOwn(e.resources, r) ? e.resources[r] : undefined;
      if (!c) continue;
      const has = (list: [string, string][]): boolean => list.some((x) => x[0] === id);
      const line = (text: string): HTMLLIElement => {
        any = true;
        const li = ul.appendChild(el('li'));
        li.appendChild(timeNode(e.at));
        li.appendChild(document.createTextNode(`: ${text}`));
        return li;
      };
      if (has(c.added)) line('added');
      if (has(c.removed)) line('removed');
      for (const x of c.changed) {
        if (x[0] !== id) continue;
        const fl = line('changed ').appendChild(el('ul', null, { class: 'fields' }));
        for (const f of x[2]) fl.appendChild(el('li', changeText(f)));
      }
    }
    const first = h.entries[h.entries.length - 1];
    if (!any) {
      const li = ul.appendChild(el('li', first ? 'No change seen since ' : 'No change history in this snapshot.', { class: 'muted' }));
      if (first) li.appendChild(timeNode(first.at)).after('.');
    }
  });
  return s;
}
