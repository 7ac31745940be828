/**
 * `--max-rps N` counted where the service counts: by when each request reaches it. The service
 * here takes 300 ms to accept each new connection (a TLS handshake, a busy accept queue), so the
 * first requests arrive late and bunch with the ones sent later on warm connections; whatever the
 * delays, no 1000 ms window of arrivals may hold more than N (issue 29: N + 1, and here N + 2).
 */
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Client } from '../../src/fetch/client.js';
import { atTeardown } from '../helpers/teardown.js';

const ACCEPT_DELAY_MS = 300;

/** The most arrivals within any window of 1000 ms (sorted times, milliseconds). */
function busiestSecond(arrivals: readonly number[]): number {
  let most = 0;
  for (let i = 0, j = 0; i < arrivals.length; i++) {
    while (arrivals[i]! - arrivals[j]! >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

async function countArrivals(rate: number, requests: number): Promise<{ arrivals: number[]; answered: number }> {
  const arrivals: number[] = [];
  const http: Server = createServer((_req, res) => {
    arrivals.push(performance.now());
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"servers":[]}');
  });
  // Each new connection reaches the HTTP server only after a delay; a kept-alive one at once.
  const front: TcpServer = createTcpServer((socket) => setTimeout(() => http.emit('connection', socket), ACCEPT_DELAY_MS));
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  atTeardown(async () => {
    await new Promise((resolve) => front.close(resolve));
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });
  const client = new Client({
    baseUrl: `http://127.0.0.1:${(front.address() as AddressInfo).port}`,
    token: 't0ken-for-rate-tests',
    concurrency: 8,
    adaptive: false,
    maxRequestsPerSecond: rate,
    timeoutMs: 10_000,
    deadlineMs: 60_000,
    maxBodyBytes: 1_000_000,
    retry: { retries: 2, baseMs: 1, maxMs: 5 },
  });
  try {
    const read = async (body: AsyncIterable<Buffer>): Promise<number> => {
      for await (const _ of body);
      return 1;
    };
    const results = await Promise.all(Array.from({ length: requests }, (_, i) => client.get(`/servers.json?n=${i}`, read)));
    return { arrivals, answered: results.filter((r) => r.status === 200).length };
  } finally {
    await client.close();
  }
}

describe('--max-rps N, counted by arrivals at the service', () => {
  for (const rate of [10, 20]) {
    it(`N = ${rate}: no 1000 ms window holds more than ${rate} arrivals, with new connections slow to be accepted`, async () => {
      const { arrivals, answered } = await countArrivals(rate, rate * 3);
      expect(answered).toBe(rate * 3);
      expect(arrivals).toHaveLength(rate * 3);
      expect(busiestSecond(arrivals)).toBeLessThanOrEqual(rate);
    }, 120_000);
  }
});
