/**
 * The offline page's script: src/browser/page/ bundled by esbuild at build time into
 * dist/browser/page.js (scripts/bundle-page.mjs), read here to be written into each snapshot.
 * Looked for from this module's folder upwards, so it is found whether this module runs from
 * src/ (tests), dist/ (the CLI) or dist-bench/ (the bench).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InstallError } from '../errors.js';

const BUNDLE = join('dist', 'browser', 'page.js');

let cached: Buffer | undefined;

/** The bundled page script; an InstallError naming the file and the fix when the build did not make it. */
export function pageScript(): Buffer {
  if (cached) return cached;
  const here = dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = dirname(dir)) {
    const file = join(dir, BUNDLE);
    if (existsSync(file)) return (cached = readFileSync(file));
    if (dirname(dir) === dir) break;
  }
  throw new InstallError(`the offline page's script ${BUNDLE} is missing (looked upwards from ${here}); run \`npm run build\`, which bundles src/browser/page/`);
}
