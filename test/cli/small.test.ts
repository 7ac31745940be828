/**
 * Small things an operator meets (issue 31, point 11): the wrong-token message names the token
 * file given, Ctrl-C on a first sync does not speak of a previous snapshot, a closed pipe is not a
 * failure, the demo suggests a command that works before installing, and the library's settings
 * are named as the library calls them.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, sync } from '../../src/index.js';
import { CLI, runCli, startCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';

// Realistic: its findings make the quiet dry run's warnings longer than what head reads.
const upstream = await useUpstream({ scale: 20, profile: 'realistic' });

describe('small things', () => {
  it('a rejected token: the message names the --token-file given', async () => {
    const dir = tempDir();
    const file = join(dir, 'token');
    writeFileSync(file, 'not-the-token\n', { mode: 0o600 });
    const run = await runCli(['sync', '--base-url', upstream.url, '--out', join(dir, 'out'), '--token-file', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`check the token file ${file} (--token-file)`);
  });

  it('Ctrl-C during a first sync: the folder holds no snapshot, as before, and the message does not say otherwise', async () => {
    const slow = await useUpstream({ scale: 40, latencyMs: 50, workers: 2 });
    const out = join(tempDir(), 'out');
    const child = startCli(['sync', '--base-url', slow.url, '--out', out], { env: { INVENTORY_API_TOKEN: TOKEN } });
    try {
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      const until = Date.now() + 60_000;
      while (slow.requestCount() < 10 && Date.now() < until && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 20));
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stderr).toContain(`${out} holds no snapshot, as before`);
      expect(stderr).not.toContain('previous snapshot');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 120_000);

  it('sync --dry-run -q 2>&1 | head -2: the closed pipe is not a failure (exit 0)', async () => {
    const out = join(tempDir(), 'out');
    // Not spawnSync: the service runs in this process and must go on answering.
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn('bash', ['-c', `set -o pipefail; "${process.execPath}" "${CLI}" sync --base-url "${upstream.url}" --out "${out}" --dry-run -q 2>&1 | head -2 >/dev/null`], {
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', INVENTORY_API_TOKEN: TOKEN },
        timeout: 60_000,
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('close', (code) => resolve({ code, stderr }));
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  it('the demo suggests commands that work before the package is installed (npx)', async () => {
    const dir = tempDir();
    const run = await runCli(['sync', '--demo', '--out', join(dir, 'output')], { cwd: dir, timeoutMs: 120_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/look at it: npx inventory-mirror serve --dir output .*check it: npx inventory-mirror verify --dir output\n/);
  }, 120_000);

  it("the library names a bad setting by its option, settings, not the config file's sync", async () => {
    const error = await sync({ baseUrl: upstream.url, token: TOKEN, out: join(tempDir(), 'out'), settings: { concurrency: 0 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^sync options: settings\.concurrency: /);
  });
});
