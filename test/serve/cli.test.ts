/** The built CLI: `serve` starts, logs, stops on SIGTERM with status 0; a folder without a manifest exits 2. */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMirror, type Mirror } from './helpers.js';

const CLI = join(import.meta.dirname, '../../dist/cli.js');
let mirror: Mirror;

beforeAll(async () => {
  mirror = await buildMirror({ seed: 3, scale: 50 });
});

afterAll(async () => {
  await mirror?.close();
});

describe('inventory-mirror serve', () => {
  it('serves with a token from the environment, logs requests, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [CLI, 'serve', '--dir', mirror.dir, '--port', '0'], { env: { ...process.env, MIRROR_API_TOKEN: 'cli-secret' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.once('exit', done));
    try {
      for (let i = 0; i < 100 && !/on http:\/\/\S+\n/.test(out); i++) await new Promise((done) => setTimeout(done, 100));
      const url = /on (http:\/\/\S+)\n/.exec(out)![1]!;
      expect((await fetch(`${url}/servers.json`)).status).toBe(401);
      expect((await fetch(`${url}/servers.json`, { headers: { 'X-Api-Token': 'cli-secret' } })).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(out).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z serving .+ \(\d+ files, snapshot of .+\) on http:\/\/127\.0\.0\.1:\d+\n/);
    expect(out).toMatch(/Z 127\.0\.0\.1 GET \/servers\.json 401 \d+ /);
    expect(out).toMatch(/Z 127\.0\.0\.1 GET \/servers\.json 200 \d+ /);
    expect(out).not.toContain('cli-secret');
  });

  it('exits 2 with a one-line reason for a folder that is not a snapshot', () => {
    const empty = mkdtempSync(join(tmpdir(), 'im-empty-'));
    try {
      const result = spawnSync(process.execPath, [CLI, 'serve', '--dir', empty, '--port', '0'], { encoding: 'utf8' });
      expect(result.status).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain('not a published snapshot');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('nginx-conf prints a server block for the folder', () => {
    const result = spawnSync(process.execPath, [CLI, 'nginx-conf', '--dir', mirror.dir, '--port', '9090', '--server-name', 'mirror.example'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('listen 9090;');
    expect(result.stdout).toContain('server_name mirror.example;');
    expect(result.stdout).toContain(`root ${mirror.dir};`);
  });
});
