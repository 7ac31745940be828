/**
 * Starts a worker thread from a module of this package. Built, the module is the `.js` file the
 * caller names, beside it in dist/. Run from the TypeScript sources (the test runner), a thread
 * cannot load `.ts`, and the `.js` named is not there: the same module is taken from dist/,
 * which the test setup builds before any test runs.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** The built module for `module` (a `.js` URL beside a source or built file). */
export function builtModule(module: URL): URL {
  if (existsSync(fileURLToPath(module))) return module;
  const built = new URL(module.href.replace(/\/src\/(?!.*\/src\/)/, '/dist/'));
  if (built.href === module.href || !existsSync(fileURLToPath(built))) {
    throw new Error(`the worker module ${fileURLToPath(module)} is missing; run \`npm run build\``);
  }
  return built;
}

/** A worker thread running `module` (see builtModule). */
export function startWorker(module: URL, options?: WorkerOptions): Worker {
  return new Worker(builtModule(module), options);
}
