import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import type { CommandIo } from '../../src/cli/command.js';
import { CLI } from '../helpers/cli.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';

function captureIo(env: NodeJS.ProcessEnv = {}): CommandIo & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return { stdout, stderr, env, cwd: process.cwd(), isTTY: false, out: () => out, err: () => err };
}

async function until(test: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('upstream command', () => {
  it('serves until SIGTERM, printing one line without the token', async () => {
    const io = captureIo({ INVENTORY_API_TOKEN: 'env-token-123' });
    const running = main(['upstream', '--port', '0', '--scale', '20', '--seed', '4'], io);
    await until(() => io.out().includes('\n'));
    const line = io.out();
    expect(line).toMatch(/^upstream listening on http:\/\/127\.0\.0\.1:\d+ \(seed 4, scale 20, realistic profile: 20 servers, 4 applications, 2 databases, 25 operating_systems, 10 appservers\)\n$/);
    expect(line).not.toContain('env-token-123');
    const url = /(http:\/\/\S+)/.exec(line)![1]!;
    expect((await fetch(`${url}/servers.json`, { headers: { 'X-Api-Token': 'env-token-123' } })).status).toBe(200);
    // process.emit only calls listeners; the command's must be the only one, so no real shutdown happens.
    expect(process.listenerCount('SIGTERM')).toBe(1);
    process.emit('SIGTERM', 'SIGTERM');
    expect(await running).toBe(0);
    expect(process.listenerCount('SIGINT')).toBe(0);
    await expect(fetch(`${url}/servers.json`)).rejects.toThrow();
  });

  it('in another process, serves the same realistic bytes for a seed, and changes through its control endpoint', async () => {
    const here = await useUpstream({ scale: 30, seed: 4, profile: 'realistic' });
    const child = spawn(process.execPath, [CLI, 'upstream', '--port', '0', '--scale', '30', '--seed', '4', '--token', TOKEN], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      expect(line).toContain('realistic profile');
      const url = /(http:\/\/\S+)/.exec(line!)![1]!;
      const bodies = (base: string): Promise<string[]> =>
        Promise.all(['/servers.json', '/servers/1003.json', '/databases.json?include=servers', '/appservers.json'].map(async (path) => (await fetch(base + path, { headers: { 'X-Api-Token': TOKEN } })).text()));
      expect(await bodies(url)).toEqual(await bodies(here.url));
      const report = await (await fetch(`${url}/_control/mutate?share=0.1&seed=5`, { method: 'POST' })).json();
      expect(report).toEqual(here.mutate({ share: 0.1, seed: 5 }));
      expect(await bodies(url)).toEqual(await bodies(here.url));
      expect(await (await fetch(`${url}/_control/injected`)).json()).toEqual(here.injected());
    } finally {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('usage errors exit 2 with a one-line reason', async () => {
    const cases: [string[], RegExp][] = [
      [['upstream', '--port', '0'], /token is required/],
      [['upstream', '--token', 't', '--port', 'http'], /--port/],
      [['upstream', '--token', 't', '--scale', '0'], /--scale/],
      [['upstream', '--token', 't', '--fault-rate', '1.5'], /--fault-rate/],
      [['upstream', '--token', 't', '--fault-kinds', '5xx,boom'], /boom/],
      [['upstream', '--token', 't', '--profile', 'fancy'], /--profile: expected realistic or exact/],
      [['upstream', '--token', 't', '--workers', '0'], /--workers/],
      [['upstream', '--token', 't', '--latency-ms', '-5'], /--latency-ms/],
    ];
    for (const [argv, reason] of cases) {
      const io = captureIo();
      expect(await main(argv, io)).toBe(2);
      expect(io.err()).toMatch(reason);
      expect(io.err().trim().split('\n')).toHaveLength(1);
    }
  });

  it('lists its options in --help', async () => {
    const io = captureIo();
    expect(await main(['upstream', '--help'], io)).toBe(0);
    for (const flag of ['--port', '--token', '--seed', '--scale', '--extra-fields', '--fault-rate', '--fault-kinds', '--fault-slow-ms', '--fail-path', '--profile', '--latency-ms', '--workers', '--rate-limit', '--no-control']) {
      expect(io.out()).toContain(flag);
    }
    for (const endpoint of ['GET  /_control ', 'POST /_control/mutate?share=', 'GET  /_control/injected', 'POST /_control/faults?rate=', 'POST /_control/pacing?latency_ms=']) expect(io.out()).toContain(endpoint);
  });
});
