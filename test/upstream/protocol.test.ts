import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { TOKEN, useUpstream } from '../helpers/upstream.js';
import { get } from './helpers.js';

const upstream = await useUpstream({ scale: 50 });

describe('HTTP protocol', () => {
  it('401 without a token or with a wrong one, never echoing the token', async () => {
    for (const headers of [{} as Record<string, string>, { 'X-Api-Token': 'wrong' }, { 'X-Api-Token': `${TOKEN}x` }, { 'X-Api-Token': TOKEN.slice(1) }]) {
      const res = await fetch(`${upstream.url}/servers.json`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ error: 'unauthorized' });
      expect(text).not.toContain(TOKEN);
      expect([...res.headers.values()].join(' ')).not.toContain(TOKEN);
    }
  });

  it('404 JSON for unknown ids, unknown paths and the retired XML and CSV renderings', async () => {
    for (const path of ['/servers/999999.json', '/nothing.json', '/servers', '/servers/', '/applications.xml', '/applications.csv', '/applications/1.xml', '/servers/1000/x.json', '/', '/servers/%E0%A4%A.json']) {
      const res = await get(upstream, path);
      expect(res.status, path).toBe(404);
      expect(await res.json()).toEqual({ error: 'not found' });
    }
  });

  it('405 with Allow for methods other than GET and HEAD', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await get(upstream, '/servers.json', { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD');
    }
  });

  it('HEAD has the headers of GET and no body', async () => {
    const full = await get(upstream, '/servers.json');
    const head = await get(upstream, '/servers.json', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(full.headers.get('content-length'));
    expect(head.headers.get('etag')).toBe(full.headers.get('etag'));
    expect(await head.text()).toBe('');
    expect(Number(full.headers.get('content-length'))).toBe(Buffer.byteLength(await full.text()));
  });

  it('a weak ETag over the body; a matching If-None-Match answers 304 without a body', async () => {
    const res = await get(upstream, '/servers/1000.json');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"[0-9a-f]{32}"$/);
    expect(res.headers.get('last-modified')).toBeNull();
    const again = await get(upstream, '/servers/1000.json', { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const other = await get(upstream, '/servers/1000.json', { headers: { 'If-None-Match': 'W/"0000"' } });
    expect(other.status).toBe(200);
    const list = await get(upstream, '/servers.json?by_virtual=1');
    const listAgain = await get(upstream, '/servers.json?by_virtual=1', { headers: { 'If-None-Match': `"x", ${list.headers.get('etag')}` } });
    expect(listAgain.status).toBe(304);
  });

  it('keeps connections alive', async () => {
    const statuses = await new Promise<string | undefined>((resolve, reject) => {
      const req = request(`${upstream.url}/operating_systems.json`, { headers: { 'X-Api-Token': TOKEN } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.headers.connection));
      });
      req.on('error', reject);
      req.end();
    });
    expect(statuses).toBe('keep-alive');
  });

  it('counts requests', async () => {
    const before = upstream.requestCount();
    await get(upstream, '/applications.json');
    await fetch(`${upstream.url}/applications.json`);
    expect(upstream.requestCount()).toBe(before + 2);
  });
});

describe('determinism and extra fields', () => {
  const paths = ['/servers.json', '/databases.json', '/databases/3.json', '/appservers.json', '/applications.json', '/operating_systems.json', '/servers.json?by_system=2'];

  it('the same seed gives byte-identical bodies; another seed gives other data', async () => {
    const [a, b, c] = await Promise.all([useUpstream({ profile: 'exact', seed: 11, scale: 40 }), useUpstream({ profile: 'exact', seed: 11, scale: 40 }), useUpstream({ profile: 'exact', seed: 12, scale: 40 })]);
    for (const path of paths) {
      const [ta, tb, tc] = await Promise.all([a, b, c].map(async (u) => (await get(u, path)).text()));
      expect(ta, path).toBe(tb);
      if (path !== '/operating_systems.json') expect(tc, path).not.toBe(ta);
    }
  });

  it('the exact profile renders byte for byte as before profiles existed', async () => {
    // The digest was taken from the service before the realistic profile was added (ETags included).
    const exact = await useUpstream({ profile: 'exact', seed: 5, scale: 40 });
    const hash = createHash('sha256');
    for (const path of ['/servers.json', '/servers/1000.json', '/databases.json?include=servers', '/databases/1.json', '/appservers.json', '/appservers/1.json', '/operating_systems.json', '/applications.json', '/servers.json?by_system=2']) {
      const res = await get(exact, path);
      hash.update(`${path} ${res.headers.get('etag')} ${await res.text()}\n`);
    }
    expect(hash.digest('hex')).toBe('b008d66c2bdd2071abaaee823c2d7fe29d38ee24b6e87f16435312b0cf27362a');
  });

  it('extraFields adds unlisted fields to every record, list and single, after the documented ones', async () => {
    const plain = await useUpstream({ profile: 'exact', seed: 5, scale: 20 });
    const extra = await useUpstream({ profile: 'exact', seed: 5, scale: 20, extraFields: true });
    for (const path of ['/servers.json', '/servers/1000.json', '/databases.json?include=servers', '/databases/1.json', '/operating_systems.json', '/applications.json', '/appservers/1.json']) {
      const [p, e] = await Promise.all([plain, extra].map(async (u) => (await get(u, path)).json() as Promise<Record<string, unknown>>));
      const records = (body: Record<string, unknown>): Record<string, unknown>[] => {
        const value = Object.values(body)[0];
        return (Array.isArray(value) ? value : [value]) as Record<string, unknown>[];
      };
      const [plainRecords, extraRecords] = [records(p!), records(e!)];
      expect(extraRecords).toHaveLength(plainRecords.length);
      extraRecords.forEach((record, i) => {
        const documented = Object.keys(plainRecords[i]!);
        expect(Object.keys(record)).toEqual([...documented, 'updated_at', 'meta', 'tags']);
        expect(record.updated_at).toMatch(/^2026-/);
        expect(typeof record.meta).toBe('object');
        expect(Array.isArray(record.tags)).toBe(true);
      });
    }
  });
});
