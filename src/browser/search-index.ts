/**
 * The search index (pure): per table chunk, `_browser/search/<resource>/<n>.js` holds the ids and
 * the searched columns only, so the global search loads a fraction of the tables' bytes and can
 * show the first chunk's hits before the others arrive.
 */
import type { ResourceName } from '../spec/resources.js';
import { BROWSER_DIR } from './data.js';
import { SEARCHED } from './search-fields.js';
import { toColumns, type Cell } from './table.js';

export const searchFile = (resource: ResourceName, chunk: number): string => `${BROWSER_DIR}/search/${resource}/${chunk}.js`;

/** One chunk's search script: the rows' searched cells in column form (absent and null cells left out). */
export function searchScript(resource: ResourceName, chunk: number, ids: readonly string[], rows: readonly Record<string, Cell>[]): string {
  const picked = rows.map((row) => {
    const out: Record<string, Cell> = {};
    for (const k of SEARCHED) if (Object.hasOwn(row, k) && row[k] !== null) out[k] = row[k]!;
    return out;
  });
  const { columns } = toColumns(ids, picked);
  return `IM_SEARCH(${JSON.stringify(resource)},${chunk},${JSON.stringify(ids)},${JSON.stringify(columns)});\n`;
}
