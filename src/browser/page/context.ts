/** What every view gets: the loaded data, and which route it draws for (a later route wins). */
import { el, view } from './dom.js';
import type { Store } from './loader.js';

let seq = 0;

export interface Ctx {
  store: Store;
  /** This route's number; a view drawing after a later route began draws nothing. */
  my: number;
}

/** Starts a new route: views of earlier ones stop drawing. */
export function nextRoute(store: Store): Ctx {
  return { store, my: ++seq };
}

export const isCurrent = (ctx: Ctx): boolean => ctx.my === seq;

/** Shows a loading line in an emptied view. */
export function loading(text = 'loading…'): void {
  const v = view();
  v.textContent = '';
  v.appendChild(el('p', text, { class: 'muted' }));
}

/**
 * Marks the view as drawn (tests wait for `data-ready`), tells a screen reader what it shows,
 * and moves focus to the heading (a link followed, in the navigation or the old view), so keyboard
 * and screen-reader users start at the new content.
 */
export function ready(name: string, announce: string, options: { keepFocus?: HTMLElement | null } = {}): void {
  const v = view();
  v.setAttribute('data-ready', name);
  const status = document.getElementById('status');
  if (status) status.textContent = announce;
  const active = document.activeElement;
  if (options.keepFocus) {
    options.keepFocus.focus();
    return;
  }
  // Someone typing keeps the caret; someone already inside the new content (a record's fields
  // drawn before its links) keeps their place.
  const typing = active instanceof HTMLInputElement || active instanceof HTMLSelectElement || active instanceof HTMLTextAreaElement;
  if (active && active !== document.body && active.isConnected && (typing || v.contains(active))) return;
  const h = v.querySelector('h2');
  if (h) {
    h.setAttribute('tabindex', '-1');
    h.focus({ preventScroll: true });
    if (h.getBoundingClientRect().top < 0) h.scrollIntoView({ block: 'start' });
  }
}
