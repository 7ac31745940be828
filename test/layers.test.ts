/**
 * The layer rule (.dependency-cruiser.cjs): no module of src/ imports from a layer above its own,
 * nothing imports in a circle, and the simulated service stands apart.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// Its package exports no bin path, so the CLI is found where npm puts it.
const CRUISER = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

it('src/ imports only downward: no upward arrow, no cycle', async () => {
  const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(process.execPath, [CRUISER, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], { cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
  });
  expect(output).toContain('no dependency violations found');
  expect(code).toBe(0);
});
