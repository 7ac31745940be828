/**
 * serve under a connection flood: clients that open a connection and send nothing, or half a
 * request line, and keep it open. A real request must still be answered, and the idle
 * connections must be closed once the header timeout has passed.
 */
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServe } from '../../src/serve/index.js';
import { buildMirror } from './helpers.js';

const CLI = join(import.meta.dirname, '../../dist/cli.js');
const mirror = await buildMirror({ seed: 5, scale: 10 });

interface Flood {
  /** Settles when every socket has been closed (by the server, or by stop()). */
  closed: Promise<void>;
  stop(): void;
}

/** Opens `count` connections to `port`: even ones send nothing, odd ones half a request line. */
async function flood(port: number, count: number): Promise<Flood> {
  const sockets: Socket[] = [];
  const closes: Promise<void>[] = [];
  const opened: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.on('data', () => undefined);
    sockets.push(socket);
    closes.push(new Promise((done) => socket.once('close', () => done())));
    opened.push(
      new Promise((done) => {
        socket.once('connect', () => {
          if (i % 2 === 1) socket.write('GET /servers.json HTTP/1.1\r\nHo');
          done();
        });
        socket.once('close', () => done());
      }),
    );
  }
  await Promise.all(opened);
  return { closed: Promise.all(closes).then(() => undefined), stop: () => sockets.forEach((s) => s.destroy()) };
}

describe('serve under a connection flood', () => {
  it('answers a real request among idle and half-sent connections, and closes those after the header timeout', async () => {
    const serve = await startServe({ dir: mirror.dir, quiet: true, limits: { headersTimeoutMs: 300, maxConnections: 40 } });
    const open = await flood(serve.port, 100);
    try {
      const response = await fetch(`${serve.url}/servers.json`);
      expect(response.status).toBe(200);
      expect(((await response.json()) as { servers: unknown[] }).servers.length).toBeGreaterThan(0);
      // No sleep and no clock: every idle socket must be closed by the server before the test's timeout.
      await open.closed;
    } finally {
      open.stop();
      await serve.close();
    }
  }, 30_000);

  it('the CLI with 128 file descriptors still answers while 300 connections sit idle', async () => {
    // The shell lowers the limit, then becomes the CLI.
    const child = spawn('/bin/sh', ['-c', 'ulimit -n 128 && exec "$0" "$@"', process.execPath, CLI, 'serve', '--dir', mirror.dir, '--port', '0', '--quiet'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.once('exit', done));
    let open: Flood | undefined;
    try {
      for (let i = 0; i < 100 && !/on http:\/\/\S+\n/.test(out); i++) await new Promise((done) => setTimeout(done, 100));
      const url = /on (http:\/\/\S+)\n/.exec(out)![1]!;
      open = await flood(Number(new URL(url).port), 300);
      const response = await fetch(`${url}/servers.json`);
      expect(response.status).toBe(200);
      expect(((await response.json()) as { servers: unknown[] }).servers.length).toBeGreaterThan(0);
    } finally {
      open?.stop();
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 30_000);
});
