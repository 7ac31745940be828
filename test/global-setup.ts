/**
 * Vitest global setup: before any test runs, type-check everything (src, bench, test, and the
 * offline page against the DOM library) and build dist/ (with the page's and the CLI's bundles) and dist-bench/
 * afresh, since tests spawn the built CLI and bench. `npm test` and a bare `npx vitest run` thus both test the code as it is now; a type error stops the run.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** Runs a Node script with `args` in the project root; resolves with its exit status and output. */
function node(script: string, args: string[]): Promise<{ command: string; code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ command: [script === TSC ? 'tsc' : script, ...args].join(' '), code, output }));
  });
}

export default async function buildOnce(): Promise<void> {
  // Clean outputs, so no file of a moved or deleted source lingers for a test to find.
  for (const dir of ['dist', 'dist-bench']) rmSync(join(ROOT, dir), { recursive: true, force: true });
  // One full type check covers both builds (same compiler options), so they only emit; all
  // run side by side.
  const tsc = (args: string[]) => node(TSC, args);
  const runs = await Promise.all([
    tsc(['-p', 'tsconfig.json', '--noEmit']),
    // The offline page runs in a browser: checked against the DOM library, bundled by esbuild.
    tsc(['-p', 'src/browser/page/tsconfig.json']),
    tsc(['-p', 'tsconfig.build.json', '--noCheck']),
    tsc(['-p', 'tsconfig.bench.json', '--noCheck']),
    node('scripts/bundle-page.mjs', []),
  ]);
  // The CLI's bundle replaces tsc's dist/cli.js, so it comes after the build.
  if (runs.every((run) => run.code === 0)) runs.push(await node('scripts/bundle-cli.mjs', []));
  const failed = runs.filter((run) => run.code !== 0);
  if (failed.length > 0) {
    const report = failed.map((run) => `${run.command} exited with ${run.code}:\n${run.output.trim()}`).join('\n\n');
    throw new Error(`the TypeScript build failed, so no test ran:\n\n${report}\n`);
  }
}
