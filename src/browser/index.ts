/** The offline browser page (index.html, _browser/*) of a snapshot; pure. */
import { APP_CSS, APP_JS, INDEX_HTML } from './assets.js';
import { BROWSER_DIR, browserData } from './data.js';

export const BROWSER_INDEX_FILE = 'index.html';

/** The page and its data for a snapshot's files; they are snapshot files too (in the manifest, byte-stable). */
export function browserFiles(files: ReadonlyMap<string, Buffer>): Map<string, Buffer> {
  const out = new Map<string, Buffer>([
    [BROWSER_INDEX_FILE, Buffer.from(INDEX_HTML)],
    [`${BROWSER_DIR}/app.css`, Buffer.from(APP_CSS)],
    [`${BROWSER_DIR}/app.js`, Buffer.from(APP_JS)],
  ]);
  for (const [path, text] of browserData(files)) out.set(path, Buffer.from(text));
  return out;
}
