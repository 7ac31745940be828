/** Adds the offline browser page (index.html, _browser/*) to a sync's file map; pure. */
import { APP_CSS, APP_JS, INDEX_HTML } from './assets.js';
import { BROWSER_DIR, browserData } from './data.js';

export const BROWSER_INDEX_FILE = 'index.html';

/** Puts the page and its data into `files`; they are snapshot files (in the manifest, byte-stable). */
export function addBrowserFiles(files: Map<string, Buffer>): void {
  const data = browserData(files);
  files.set(BROWSER_INDEX_FILE, Buffer.from(INDEX_HTML));
  files.set(`${BROWSER_DIR}/app.css`, Buffer.from(APP_CSS));
  files.set(`${BROWSER_DIR}/app.js`, Buffer.from(APP_JS));
  for (const [path, text] of data) files.set(path, Buffer.from(text));
}
