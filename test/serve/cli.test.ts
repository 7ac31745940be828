/** The built CLI: `serve` starts, logs, stops on SIGTERM with status 0; a folder without a manifest exits 2. */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { buildMirror } from './helpers.js';

const CLI = join(import.meta.dirname, '../../dist/cli.js');
const mirror = await buildMirror({ seed: 3, scale: 50 });

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
    const empty = tempDir('im-empty-');
    const result = spawnSync(process.execPath, [CLI, 'serve', '--dir', empty, '--port', '0'], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('not a published snapshot');
  });

  it('nginx-conf prints a server block for the folder', () => {
    const result = spawnSync(process.execPath, [CLI, 'nginx-conf', '--dir', mirror.dir, '--port', '9090', '--server-name', 'mirror.example'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('listen 9090;');
    expect(result.stdout).toContain('server_name mirror.example;');
    expect(result.stdout).toContain(`root ${mirror.dir};`);
  });

  it('nginx-conf --listen takes an address and port, IPv6 in brackets, and refuses anything else', async () => {
    // In process: a dozen spawned CLIs would cost a second each on a busy machine.
    const conf = async (...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> => {
      const out = { stdout: '', stderr: '' };
      const sink = (key: 'stdout' | 'stderr'): Writable => new Writable({ write: (chunk, _enc, done) => ((out[key] += String(chunk)), done()) });
      const status = await main(['nginx-conf', '--dir', mirror.dir, ...args], { stdout: sink('stdout'), stderr: sink('stderr'), env: {}, cwd: mirror.dir, isTTY: false });
      return { status, ...out };
    };
    for (const listen of ['127.0.0.1:8080', '[::1]:8080', '*:8080', 'localhost:8080', '8080']) {
      const result = await conf('--listen', listen);
      expect(result.status, listen).toBe(0);
      expect(result.stdout).toContain(`listen ${listen};`);
    }
    for (const listen of [':8080', '127.0.0.1', '127.0.0.1:0', '127.0.0.1:65536', '300.1.1.1:80', '[::zz]:80', '::1:8080', 'unix:/tmp/x', 'a;b:80', '127.0.0.1:80; include /etc/passwd']) {
      const result = await conf('--listen', listen);
      expect(result.status, listen).toBe(2);
      expect(result.stderr, listen).toContain('--listen');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    const both = await conf('--listen', '127.0.0.1:8080', '--port', '8080');
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('pass one');
  });
});
