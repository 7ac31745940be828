/**
 * Exports of what a table shows (pure): CSV a spreadsheet can open safely, JSON that keeps lists
 * as lists, and a file name that says which filter made them.
 */
import { fmt } from './format.js';
import type { Cell } from './types.js';

const BOM = '\uFEFF';

/**
 * A text a spreadsheet would read as a formula (it starts with = + - @, a tab or a carriage
 * return) gets a leading apostrophe, as OWASP advises, so `=HYPERLINK(…)` stays text. Numbers
 * are numbers and stay as they are: `-5` is no formula.
 */
export function neutralise(cell: Cell): string {
  const s = fmt(cell);
  return typeof cell === 'number' || !/^[=+\-@\t\r]/.test(s) ? s : `'${s}`;
}

/** One CSV field: neutralised, then quoted when it holds a comma, quote or line break. */
export function csvField(cell: Cell): string {
  const s = neutralise(cell);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A CSV text: header and rows, CRLF line ends (RFC 4180), with a UTF-8 BOM when asked (Excel reads UTF-8 then). */
export function toCsv(header: readonly string[], rows: readonly (readonly Cell[])[], bom: boolean): string {
  const lines = [header.map(csvField).join(','), ...rows.map((r) => r.map(csvField).join(','))];
  return `${bom ? BOM : ''}${lines.join('\r\n')}\r\n`;
}

/** A JSON text of rows as objects: id first, then each column; lists stay lists. */
export function toJson(header: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const objects = rows.map((r) => {
    const o: Record<string, Cell> = Object.create(null) as Record<string, Cell>;
    header.forEach((k, i) => {
      o[k] = r[i] ?? null;
    });
    return o;
  });
  return `${JSON.stringify(objects, null, 2)}\n`;
}

/** Characters a file name may hold on every common system. */
const SAFE = /[^A-Za-z0-9._=+-]+/g;
const MAX_NAME = 120;

/** `servers_virtual=true_site=Paris.csv`: the resource and the filter parts, made safe and cut short. */
export function exportName(resource: string, parts: readonly string[], ext: 'csv' | 'json'): string {
  const words = [resource, ...parts].map((p) => p.replace(SAFE, '-').replace(/^-+|-+$/g, '')).filter((p) => p !== '');
  const stem = words.join('_').slice(0, MAX_NAME).replace(/^[.-]+/, '');
  return `${stem || 'export'}.${ext}`;
}
