/**
 * The search index (pure): per table chunk, `_browser/search/<resource>/<n>.js` holds the ids, the
 * searched fields the chunk has, and per row one text: those fields' values in that order, joined
 * by U+0001 (a list's entries by ", ", as the page shows them; a missing value empty). The page
 * tests a term against one string per row, with no table to merge, and splits a row's text only
 * for the hits it shows, to say which field matched. Built, kept and fingerprinted with its table
 * chunk (index.ts): a change of this format bumps TABLE_FORMAT in table.ts.
 */
import type { ResourceName } from '../spec/resources.js';
import { BROWSER_DIR } from './data.js';
import { SEARCHED } from './search-fields.js';
import { jsonArgs, type Cell } from './table.js';

export const searchFile = (resource: ResourceName, chunk: number): string => `${BROWSER_DIR}/search/${resource}/${chunk}.js`;

/** Separates a row's values: no term typed in a search box holds it. */
export const FIELD_SEPARATOR = '\u0001';

const text = (cell: Cell | undefined): string => (cell === null || cell === undefined ? '' : Array.isArray(cell) ? cell.join(', ') : String(cell));

/** One chunk's search script. `name` is always the first field (the id where a record has none), so a hit can be shown. */
export function searchScript(resource: ResourceName, chunk: number, ids: readonly string[], rows: readonly Record<string, Cell>[]): string {
  const fields = SEARCHED.filter((k) => k === 'name' || rows.some((row) => row[k] !== undefined && row[k] !== null));
  const texts = rows.map((row, i) => fields.map((k) => (k === 'name' ? text(row.name) || ids[i]! : text(row[k]))).join(FIELD_SEPARATOR));
  // As JSON for JSON.parse, like the table chunks: parsed faster than a literal.
  return `IM_SEARCH(${JSON.stringify(resource)},${chunk},...${jsonArgs([ids, fields, texts])});\n`;
}
