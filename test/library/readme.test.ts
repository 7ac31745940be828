/** The library example in the README runs as written, importing the package by its name. */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const upstream = await useUpstream({ scale: 30 });

it('the README library example syncs and verifies', async () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const example = /## Using it as a library[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(example).toMatch(/from 'inventory-mirror'/);
  // Inside the package's own folder, so the import resolves to it by name (self-reference), as from a project that installed it.
  const folder = join(ROOT, 'test', '.library-example');
  mkdirSync(folder, { recursive: true });
  const script = join(folder, `example-${process.pid}.mjs`);
  writeFileSync(script, example!);
  const cwd = tempDir();
  try {
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [script], { cwd, env: { PATH: process.env.PATH ?? '', INVENTORY_BASE_URL: upstream.url, INVENTORY_API_TOKEN: TOKEN }, timeout: 60_000 }, (error, out, err) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout: out, stderr: err }),
      );
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^published: 30 servers, \d+ findings\nverified\n$/);
  } finally {
    rmSync(script, { force: true });
  }
});
