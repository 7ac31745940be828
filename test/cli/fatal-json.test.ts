/** --log-format json: the fatal error too is one JSON line, with its stable code, for a log collector. */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

it('a sync that cannot start prints its error as a JSON line, with the code, and exits as before', async () => {
  const dir = tempDir();
  const run = await runCli(['sync', '--base-url', 'http://127.0.0.1:9', '--out', join(dir, 'out'), '--token-file', join(dir, 'missing'), '--log-format', 'json']);
  expect(run.code).toBe(2);
  const lines = run.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  const line = JSON.parse(lines[0]!) as Record<string, unknown>;
  expect(line).toMatchObject({ level: 'error', command: 'sync', code: 'E_CONFIG' });
  expect(line.message).toMatch(/missing/);
});
