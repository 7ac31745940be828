/**
 * Bundles the command-line entry (src/cli.ts) and the threads it starts, with esbuild, into dist/
 * after tsc: dist/cli.js becomes the bundle, the code its lazily loaded commands share goes into
 * dist/chunk-*.js, and each thread's entry lies beside them (dist/record-thread.js, ...), where
 * `new URL('./record-thread.js', import.meta.url)` in the bundle finds it. Resolving and loading
 * some 350 modules one by one (ours, zod's, undici's) took about a third of every command's
 * start: `sync --help` 0.77 s against 0.54 s bundled on the bench machine. The library
 * (dist/index.js and what it imports) stays tsc's output, a module per source file.
 */
import { build } from 'esbuild';

await build({
  entryPoints: {
    cli: 'src/cli.ts',
    'record-thread': 'src/sync/record-thread.ts',
    'file-thread': 'src/publish/file-thread.ts',
    'digest-thread': 'src/snapshot/digest-thread.ts',
  },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Loaded from node_modules as before: graceful-fs (under fs-extra) patches Node's fs once per
  // process, and the tests' fault-injecting children (test/robust/*-child.mjs) patch the one
  // fs-extra the CLI writes through.
  external: ['fs-extra'],
  // The CommonJS package bundled (undici) calls require() for Node's own modules.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  // Maps that name the sources, as tsc's do, rather than carry a copy of them (7 MB).
  sourcemap: true,
  sourcesContent: false,
  logLevel: 'warning',
});
