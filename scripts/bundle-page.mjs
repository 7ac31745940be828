/**
 * Bundles the offline page's TypeScript (src/browser/page/main.ts) into one script,
 * dist/browser/page.js, which a sync copies into each snapshot as `_browser/app.js`. esbuild
 * bundles; it does not type-check: `npm run typecheck` and the test setup check the page with
 * src/browser/page/tsconfig.json (the DOM library). Run by `npm run build` after tsc.
 */
import { build } from 'esbuild';

await build({
  entryPoints: ['src/browser/page/main.ts'],
  outfile: 'dist/browser/page.js',
  bundle: true,
  format: 'iife',
  // Browsers of the last few years; a snapshot is opened on whatever desktop the reader has.
  target: ['es2022'],
  platform: 'browser',
  charset: 'utf8',
  legalComments: 'none',
  minify: false,
  logLevel: 'warning',
});
