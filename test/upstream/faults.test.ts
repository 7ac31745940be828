import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createFaultPlan } from '../../src/upstream/faults.js';
import type { Upstream } from '../../src/upstream/index.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';
import { get } from './helpers.js';

interface RawAnswer {
  status?: number;
  headers?: Record<string, unknown>;
  received: number;
  error?: string;
}

/** One GET on a fresh connection, reporting what arrived before the socket ended. */
function rawGet(upstream: Upstream, path: string): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const answer: RawAnswer = { received: 0 };
    const req = request(`${upstream.url}${path}`, { headers: { 'X-Api-Token': TOKEN }, agent: false }, (res) => {
      answer.status = res.statusCode;
      answer.headers = res.headers;
      res.on('data', (chunk: Buffer) => (answer.received += chunk.length));
      res.on('end', () => resolve(answer));
      res.on('error', (error) => resolve({ ...answer, error: error.message }));
      res.on('aborted', () => resolve({ ...answer, error: 'aborted' }));
    });
    req.on('error', (error) => resolve({ ...answer, error: error.message }));
    req.end();
  });
}

const upstream = await useUpstream({ scale: 20 });

describe('faults', () => {
  it("'5xx' answers 503 JSON, and only after the token check", async () => {
    upstream.setFaults({ rate: 1, kinds: ['5xx'] });
    const res = await get(upstream, '/servers.json');
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect((await fetch(`${upstream.url}/servers.json`)).status).toBe(401);
  });

  it("'429' answers with Retry-After", async () => {
    upstream.setFaults({ rate: 1, kinds: ['429'], retryAfterSeconds: 3 });
    const res = await get(upstream, '/servers.json');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
  });

  it("'html' answers 200 with a login page", async () => {
    upstream.setFaults({ rate: 1, kinds: ['html'] });
    const res = await get(upstream, '/servers.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toMatch(/<html[\s\S]*Sign in/);
  });

  it("'slow' delays the normal answer: a request sent after it, without the fault, is answered first", async () => {
    upstream.setFaults({ rate: 1, kinds: ['slow'], slowMs: 2_000 });
    const answered: string[] = [];
    const arrived = upstream.requestCount() + 1;
    const slow = get(upstream, '/operating_systems.json').then((res) => (answered.push('slow'), res));
    for (let i = 0; i < 1_000 && upstream.requestCount() < arrived; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    upstream.setFaults(undefined);
    const quick = await get(upstream, '/operating_systems.json');
    answered.push('quick');
    const res = await slow;
    expect(answered).toEqual(['quick', 'slow']);
    expect(quick.status).toBe(200);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(await quick.text());
  });

  it("'reset' closes the socket without an answer", async () => {
    upstream.setFaults({ rate: 1, kinds: ['reset'] });
    const answer = await rawGet(upstream, '/servers.json');
    expect(answer.status).toBeUndefined();
    expect(answer.error).toBeDefined();
  });

  it("'truncate' sends the full Content-Length, half the body, then closes", async () => {
    upstream.setFaults(undefined);
    const full = await rawGet(upstream, '/servers.json');
    upstream.setFaults({ rate: 1, kinds: ['truncate'] });
    const cut = await rawGet(upstream, '/servers.json');
    expect(cut.status).toBe(200);
    expect(cut.headers!['content-length']).toBe(String(full.received));
    expect(cut.received).toBeLessThan(full.received);
    expect(cut.error).toBeDefined();
  });

  it('failPaths always answer 500, other paths are untouched', async () => {
    upstream.setFaults({ failPaths: ['/servers/1001.json', '/servers.json?by_virtual=1'] });
    for (let i = 0; i < 3; i++) expect((await get(upstream, '/servers/1001.json')).status).toBe(500);
    expect((await get(upstream, '/servers.json?by_virtual=1')).status).toBe(500);
    expect((await get(upstream, '/servers.json?by_virtual=0')).status).toBe(200);
    expect((await get(upstream, '/servers/1000.json')).status).toBe(200);
    upstream.setFaults(undefined);
    expect((await get(upstream, '/servers/1001.json')).status).toBe(200);
  });

  it('draws the same faults for the same seed and request order, at about the given rate', async () => {
    const statuses = async (): Promise<number[]> => {
      upstream.setFaults({ rate: 0.3, kinds: ['5xx', '429'], seed: 42 });
      const out: number[] = [];
      for (let i = 0; i < 40; i++) out.push((await get(upstream, '/applications.json')).status);
      return out;
    };
    const first = await statuses();
    expect(await statuses()).toEqual(first);
    const faulted = first.filter((s) => s !== 200).length;
    expect(faulted).toBeGreaterThan(3);
    expect(faulted).toBeLessThan(25);
    expect(new Set(first)).toEqual(new Set([200, 503, 429]));
    upstream.setFaults(undefined);
  });

  it('rejects malformed fault options', () => {
    expect(() => createFaultPlan({ rate: 2 })).toThrow(/rate/);
    expect(() => createFaultPlan({ kinds: ['boom' as never] })).toThrow(/boom/);
  });
});
