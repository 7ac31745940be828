import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Client } from '../../src/fetch/client.js';
import { atTeardown } from '../helpers/teardown.js';

/** A service whose answers the test writes by hand, chunk by chunk (no Content-Length); closed when the test ends. */
async function serve(answer: (attempt: number, res: import('node:http').ServerResponse) => void): Promise<{ url: string; attempts: () => number; connections: () => number }> {
  let attempts = 0;
  let connections = 0;
  const server = createServer((_req, res) => answer(++attempts, res));
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  atTeardown(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, attempts: () => attempts, connections: () => connections };
}

const client = (url: string, maxBodyBytes = 1_000_000) =>
  new Client({ baseUrl: url, token: 't0ken-for-tests', concurrency: 2, adaptive: false, timeoutMs: 5_000, deadlineMs: 30_000, maxBodyBytes, retry: { retries: 2, baseMs: 1, maxMs: 5 } });

describe('a single record read whole', () => {
  it('joins a body sent in many chunks byte for byte', async () => {
    const pieces = ['{"server":', '{"id":"7",', '"name":"wébhost"', '}}'];
    const { url } = await serve((_n, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (const piece of pieces) res.write(piece);
      res.end();
    });
    const c = client(url);
    const result = await c.getWhole('/servers/7.json', async (bytes) => bytes.toString('utf8')).finally(() => c.close());
    expect(result).toMatchObject({ status: 200, value: pieces.join('') });
  });

  it('cuts off a chunked body over sync.maxBodyBytes, naming the path and the limit', async () => {
    const { url } = await serve((_n, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"server":{"id":"7","blob":"${'x'.repeat(3000)}`);
      res.write(`${'y'.repeat(3000)}"}}`);
      res.end();
    });
    const c = client(url, 4000);
    try {
      await expect(c.getWhole('/servers/7.json', async (bytes) => bytes)).rejects.toThrow('GET /servers/7.json sent more than 4000 bytes (sync.maxBodyBytes)');
    } finally {
      await c.close();
    }
  });

  it('retries a body the connection dropped half-way, and keeps the whole one', async () => {
    const { url, attempts } = await serve((n, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"server":{"id":"7",');
      if (n === 1) setTimeout(() => res.socket?.destroy(), 20);
      else res.end('"name":"a"}}');
    });
    const c = client(url);
    const result = await c.getWhole('/servers/7.json', async (bytes) => JSON.parse(bytes.toString('utf8')) as unknown).finally(() => c.close());
    expect(result).toMatchObject({ status: 200, value: { server: { id: '7', name: 'a' } } });
    expect(attempts()).toBe(2);
    expect(c.stats.retries).toBe(1);
  });
});

describe('answers without a record to read', () => {
  it('a 304 keeps the record unread and its connection serves the next request', async () => {
    const { url, connections } = await serve((_n, res) => {
      res.writeHead(304, { etag: '"v1"' });
      res.end();
    });
    const c = new Client({ baseUrl: url, token: 't0ken-for-tests', concurrency: 1, adaptive: false, timeoutMs: 5_000, deadlineMs: 30_000, maxBodyBytes: 1000, retry: { retries: 0, baseMs: 1, maxMs: 5 } });
    try {
      for (const id of [1, 2, 3, 4]) {
        expect(await c.getWhole(`/servers/${id}.json`, async () => 'read', { etag: '"v1"' })).toEqual({ status: 304 });
      }
      expect(c.stats.notModified).toBe(4);
      expect(connections()).toBe(1);
    } finally {
      await c.close();
    }
  });

  it('an error page is read past when short (the connection stays) and cut off when long (the connection goes)', async () => {
    const sizes = [100, 200_000, 100];
    const { url, connections } = await serve((n, res) => {
      const size = sizes[n - 1];
      if (size === undefined) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"server":{"id":"7"}}');
        return;
      }
      res.writeHead(503, { 'content-type': 'text/html' });
      res.end('x'.repeat(size));
    });
    const c = new Client({ baseUrl: url, token: 't0ken-for-tests', concurrency: 1, adaptive: false, timeoutMs: 5_000, deadlineMs: 30_000, maxBodyBytes: 1000, retry: { retries: 3, baseMs: 1, maxMs: 5 } });
    try {
      const result = await c.getWhole('/servers/7.json', async (bytes) => bytes.toString('utf8'));
      expect(result).toMatchObject({ status: 200, value: '{"server":{"id":"7"}}' });
      expect(c.stats.retries).toBe(3);
      // A new connection only after the long page.
      expect(connections()).toBe(2);
    } finally {
      await c.close();
    }
  });

  it('a record that drips is cut off by sync.requestDeadlineMs, naming it', async () => {
    const { url } = await serve((_n, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(timer));
    });
    const c = new Client({ baseUrl: url, token: 't0ken-for-tests', concurrency: 1, adaptive: false, timeoutMs: 5_000, requestDeadlineMs: 600, deadlineMs: 30_000, maxBodyBytes: 1000, retry: { retries: 1, baseMs: 1, maxMs: 5 } });
    try {
      await expect(c.getWhole('/servers/7.json', async (bytes) => bytes)).rejects.toThrow(/GET \/servers\/7\.json .*did not arrive whole within 1s \(sync\.requestDeadlineMs\)|GET \/servers\/7\.json got no usable answer within 1s/);
    } finally {
      await c.close();
    }
  });
});

describe('requests in flight when the sync must stop', () => {
  // The service holds every answer: only the deadline or the caller's signal can end these requests.
  const silent = () => serve(() => undefined);

  it('end at the sync deadline with a DeadlineError naming the path, long before their own timeout', async () => {
    const { url } = await silent();
    const c = new Client({ baseUrl: url, token: 't0ken-for-tests', concurrency: 2, adaptive: false, timeoutMs: 20_000, deadlineMs: 300, maxBodyBytes: 1000, retry: { retries: 2, baseMs: 1, maxMs: 5 } });
    const started = Date.now();
    try {
      const paths = ['/servers/1.json', '/servers/2.json', '/servers/3.json'];
      const settled = await Promise.allSettled(paths.map((path) => c.getWhole(path, async (bytes) => bytes)));
      for (const [i, outcome] of settled.entries()) {
        expect(outcome).toMatchObject({ status: 'rejected', reason: { code: 'E_DEADLINE', message: expect.stringContaining(`GET ${paths[i]}`) } });
      }
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await c.close();
    }
  });

  it('end when the caller aborts, with an AbortedError', async () => {
    const { url } = await silent();
    const stop = new AbortController();
    const c = new Client({ baseUrl: url, token: 't0ken-for-tests', concurrency: 2, adaptive: false, timeoutMs: 20_000, deadlineMs: 60_000, maxBodyBytes: 1000, retry: { retries: 2, baseMs: 1, maxMs: 5 }, signal: stop.signal });
    try {
      const request = c.get('/servers.json', async () => 'read');
      setTimeout(() => stop.abort(), 100);
      await expect(request).rejects.toMatchObject({ code: 'E_ABORTED' });
    } finally {
      await c.close();
    }
  });
});
