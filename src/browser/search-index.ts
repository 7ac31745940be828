/**
 * The search index (pure): per table chunk, `_browser/search/<resource>/<n>.js` holds the ids, the
 * searched fields the chunk has, and per field its values as text (a list's entries joined by ", ",
 * as the page shows them; a missing value empty), one per row, or, where few values repeat (an
 * appserver's `dbconn_server`, a hypervisor), one code per row and the values the codes stand for:
 * fewer bytes to load and parse, and the page tests each repeated value once. Built, kept and
 * fingerprinted with its table chunk (index.ts): a change of this format bumps TABLE_FORMAT in
 * table.ts.
 */
import type { ResourceName } from '../spec/resources.js';
import { BROWSER_DIR } from './data.js';
import { SEARCHED } from './search-fields.js';
import { jsonArgs, type Cell } from './table.js';

export const searchFile = (resource: ResourceName, chunk: number): string => `${BROWSER_DIR}/search/${resource}/${chunk}.js`;

/** A field's values: one text per row, or one code per row and the texts the codes stand for. */
export type SearchColumn = [string[]] | [number[], string[]];

const text = (cell: Cell | undefined): string => (cell === null || cell === undefined ? '' : Array.isArray(cell) ? cell.join(', ') : String(cell));

/** A field's texts, coded against its distinct values when they are few (at most a third of its rows). */
export function searchColumn(texts: readonly string[]): SearchColumn {
  const index = new Map<string, number>();
  const codes = texts.map((t) => {
    let code = index.get(t);
    if (code === undefined) index.set(t, (code = index.size));
    return code;
  });
  return index.size * 3 <= texts.length ? [codes, [...index.keys()]] : [[...texts]];
}

/** One chunk's search script. `name` is always the first field (the id where a record has none), so a hit can be shown. */
export function searchScript(resource: ResourceName, chunk: number, ids: readonly string[], rows: readonly Record<string, Cell>[]): string {
  const fields = SEARCHED.filter((k) => k === 'name' || rows.some((row) => row[k] !== undefined && row[k] !== null));
  const columns = fields.map((k) => searchColumn(rows.map((row, i) => (k === 'name' ? text(row.name) || ids[i]! : text(row[k])))));
  // As JSON for JSON.parse, like the table chunks: parsed faster than a literal.
  return `IM_SEARCH(${JSON.stringify(resource)},${chunk},...${jsonArgs([ids, fields, columns])});\n`;
}
