import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { isControlPath, isLoopback } from '../../src/upstream/control.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';
import { get } from './helpers.js';

/** A non-loopback IPv4 address of this machine, if it has one. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((i) => i?.family === 'IPv4' && !i.internal)?.address;

describe('control endpoint: address and path rules', () => {
  it('loopback means 127/8 and ::1, also mapped into IPv6', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '::FFFF:127.0.0.2']) expect(isLoopback(address), address).toBe(true);
    for (const address of [undefined, '', '10.0.0.1', '192.168.1.2', '::ffff:10.0.0.1', 'fe80::1', '::2', '1127.0.0.1', '127.0.0.1.evil']) expect(isLoopback(address), address).toBe(false);
  });

  it('owns /_control and what is below it, and no API path', () => {
    expect(isControlPath('/_control')).toBe(true);
    expect(isControlPath('/_control/mutate')).toBe(true);
    for (const path of ['/_controls', '/_control.json', '/servers.json', '/servers/_control.json', '/']) expect(isControlPath(path), path).toBe(false);
  });
});

const upstream = await useUpstream({ seed: 4, scale: 40 });

describe('control endpoint over HTTP', () => {
  const control = (path: string, method = 'GET'): Promise<Response> => fetch(`${upstream.url}${path}`, { method });

  it('GET /_control lists the endpoints, without a token and without counting as an API request', async () => {
    const before = upstream.requestCount();
    const res = await control('/_control');
    expect(res.status).toBe(200);
    const { endpoints } = (await res.json()) as { endpoints: { method: string; path: string }[] };
    expect(endpoints.map((e) => `${e.method} ${e.path.split('?')[0]}`)).toEqual(['GET /_control', 'POST /_control/mutate', 'GET /_control/injected', 'POST /_control/faults', 'POST /_control/pacing', 'POST /_control/limit', 'GET /_control/traffic', 'POST /_control/traffic/reset']);
    expect(upstream.requestCount()).toBe(before);
  });

  it('GET /_control/traffic counts the API requests (not its own), and POST /_control/traffic/reset starts again', async () => {
    await control('/_control/traffic/reset', 'POST');
    for (let i = 0; i < 3; i++) await get(upstream, '/servers.json');
    const res = await control('/_control/traffic');
    expect(await res.json()).toMatchObject({ requests: 3, busiestSecond: 3, refused: 0 });
    expect((await control('/_control/traffic/reset')).status).toBe(405);
    expect(await (await control('/_control/traffic/reset', 'POST')).json()).toEqual({ requests: 0, busiestSecond: 0, peakInFlight: 0, refused: 0, throttled: 0 });
  });

  it('POST /_control/mutate applies the same batch as mutate() and answers its report', async () => {
    const twin = await useUpstream({ seed: 4, scale: 40, profile: 'exact' });
    const res = await control('/_control/mutate?share=0.1&seed=6', 'POST');
    expect(res.status).toBe(200);
    const report = await res.json();
    expect(report).toEqual(twin.mutate({ share: 0.1, seed: 6 }));
    for (const path of ['/servers.json', '/appservers.json', '/databases.json?include=servers']) {
      expect(await (await get(upstream, path)).text(), path).toBe(await (await get(twin, path)).text());
    }
  });

  it('GET /_control/injected answers the report of the current data', async () => {
    const res = await control('/_control/injected');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(upstream.injected());
  });

  it('POST /_control/faults sets faults on the API, not on itself; rate=0 clears them', async () => {
    let res = await control('/_control/faults?rate=1&kinds=5xx&seed=2', 'POST');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ faults: { rate: 1, kinds: ['5xx'], seed: 2 } });
    expect((await get(upstream, '/servers.json')).status).toBe(503);
    expect((await control('/_control')).status).toBe(200);
    res = await control('/_control/faults?rate=0', 'POST');
    expect(await res.json()).toEqual({ faults: null });
    expect((await get(upstream, '/servers.json')).status).toBe(200);
  });

  it('POST /_control/pacing narrows a running service (503 with Retry-After beyond its queue), and no parameters restore it', async () => {
    const burst = async (): Promise<number[]> => (await Promise.all(Array.from({ length: 30 }, () => get(upstream, '/operating_systems.json')))).map((r) => r.status);
    let res = await control('/_control/pacing?latency_ms=40&workers=1', 'POST');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ latencyMs: 40, workers: 1 });
    try {
      // One worker and 4 waiting: 30 at once cannot all be held.
      expect((await burst()).filter((status) => status === 503).length).toBeGreaterThan(0);
    } finally {
      res = await control('/_control/pacing', 'POST');
    }
    expect(await res.json()).toEqual({ latencyMs: 0, workers: null });
    expect(await burst()).toEqual(Array(30).fill(200));
  });

  it('POST /_control/limit puts a rate limiter in front: 429 with Retry-After: 1 above N a second, counted; per_second=0 removes it', async () => {
    const burst = async (): Promise<Response[]> => Promise.all(Array.from({ length: 12 }, () => get(upstream, '/operating_systems.json')));
    await control('/_control/traffic/reset', 'POST');
    let res = await control('/_control/limit?per_second=5', 'POST');
    expect(await res.json()).toEqual({ perSecond: 5 });
    try {
      // Twelve at once: the first five within the second pass, seven are refused.
      const answers = await burst();
      expect(answers.filter((r) => r.status === 200)).toHaveLength(5);
      const refused = answers.filter((r) => r.status === 429);
      expect(refused).toHaveLength(7);
      for (const r of refused) expect(r.headers.get('retry-after')).toBe('1');
      expect(await (await control('/_control/traffic')).json()).toMatchObject({ requests: 12, throttled: 7, refused: 0 });
    } finally {
      res = await control('/_control/limit?per_second=0', 'POST');
    }
    expect(await res.json()).toEqual({ perSecond: null });
    expect((await burst()).map((r) => r.status)).toEqual(Array(12).fill(200));
    expect((await control('/_control/limit?per_second=x', 'POST')).status).toBe(400);
  });

  it('malformed parameters are a 400 naming the parameter; a wrong method a 405; an unknown endpoint a 404', async () => {
    const cases: [string, string, number, RegExp][] = [
      ['/_control/mutate?share=2', 'POST', 400, /^mutate: share: expected a number from 0 to 1$/],
      ['/_control/mutate?share=0.1&seed=x', 'POST', 400, /^mutate: seed: /],
      ['/_control/mutate?shares=0.1', 'POST', 400, /^mutate: query: .*shares/],
      ['/_control/faults?rate=0.5&kinds=5xx,boom', 'POST', 400, /^faults: kinds: expected a comma-separated list of 5xx, reset/],
      ['/_control/faults', 'POST', 400, /^faults: rate: /],
      ['/_control/pacing?workers=0', 'POST', 400, /^pacing: workers: expected an integer from 1 to 999999$/],
      ['/_control/pacing?latency_ms=-5', 'POST', 400, /^pacing: latency_ms: /],
      ['/_control/mutate', 'GET', 405, /takes POST/],
      ['/_control/injected', 'POST', 405, /takes GET/],
      ['/_control/reboot', 'POST', 404, /no control endpoint/],
    ];
    for (const [path, method, status, message] of cases) {
      const res = await control(path, method);
      expect(res.status, `${method} ${path}`).toBe(status);
      expect(((await res.json()) as { error: string }).error, `${method} ${path}`).toMatch(message);
    }
  });

  it.skipIf(outsideAddress === undefined)('answers 404 to a client that is not on the loopback', async () => {
    const service = await useUpstream({ scale: 10, host: '0.0.0.0', profile: 'realistic' });
    const base = `http://${outsideAddress}:${service.port}`;
    for (const [path, method] of [['/_control', 'GET'], ['/_control/mutate?share=0.5', 'POST'], ['/_control/injected', 'GET']] as const) {
      const res = await fetch(base + path, { method });
      expect(res.status, path).toBe(404);
      expect(await res.json()).toEqual({ error: 'not found' });
    }
    expect((await fetch(`${base}/servers.json`, { headers: { 'X-Api-Token': TOKEN } })).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${service.port}/_control`)).status).toBe(200);
  });

  it('with control: false, /_control is an ordinary unknown path behind the token', async () => {
    const service = await useUpstream({ scale: 10, control: false, profile: 'realistic' });
    expect((await fetch(`${service.url}/_control`)).status).toBe(401);
    expect((await get(service, '/_control')).status).toBe(404);
    expect((await get(service, '/_control/mutate?share=0.5', { method: 'POST' })).status).toBe(405);
  });
});
