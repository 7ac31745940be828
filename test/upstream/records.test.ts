import { describe, expect, it } from 'vitest';
import { RESOURCE_NAMES, singlePath, type ResourceName } from '../../src/spec/resources.js';
import type { Upstream } from '../../src/upstream/index.js';
import { useUpstream } from '../helpers/upstream.js';
import { get, getJson, listIds } from './helpers.js';

const upstream = await useUpstream({ seed: 2, scale: 30 });

describe('putRecord, removeRecord, hideSingle, override', () => {
  const ODD_IDS = ['../x', 'a/b', '.', '..', '%2e%2e', 'sp ace', 'q?x', 'semi;colon', '日本', 'Case', 'case', '#frag', 'plus+sign', 'x'.repeat(300)];

  it('stores records under any id, each reachable at its encodeURIComponent path and listed in order', async () => {
    for (const id of ODD_IDS) upstream.putRecord('applications', { id, name: `app ${id}`, description: 'odd id' });
    for (const id of ODD_IDS) {
      const body = await getJson<{ application: Record<string, unknown> }>(upstream, singlePath('applications', id));
      expect(body).toEqual({ application: { id, name: `app ${id}`, description: 'odd id' } });
    }
    const ids = await listIds(upstream, '/applications.json');
    for (const id of ODD_IDS) expect(ids).toContain(id);
    expect(ids.indexOf('Case')).toBeLessThan(ids.indexOf('case'));
    // A raw slash is a path separator, never part of an id.
    expect((await get(upstream, '/applications/a/b.json')).status).toBe(404);
  });

  it('replaces a record and derives the list item by dropping single-only fields', async () => {
    const record = {
      id: '1000',
      name: 'Replaced-Ünïcode',
      hypervisor_name: null,
      ip: '192.0.2.7',
      memory_GB: 1.5,
      processor_system_count: 2,
      processor_reference: 'test cpu',
      processor_frequency_GHz: 1.2,
      extended_attributes: { a: 1 },
    };
    upstream.putRecord('servers', record, { virtual: true, arch: 'riscv64', siteId: 'lab' });
    expect(await getJson(upstream, '/servers/1000.json')).toEqual({ server: record });
    const { servers } = await getJson<{ servers: Record<string, unknown>[] }>(upstream, '/servers.json');
    const { ip: _ip, ...item } = record;
    expect(servers.find((s) => s.id === '1000')).toEqual(item);
    expect(await listIds(upstream, '/servers.json?by_arch=RISCV64')).toEqual(['1000']);
    expect(await listIds(upstream, '/servers.json?by_location=site:lab')).toEqual(['1000']);
    expect(await listIds(upstream, '/servers.json?by_virtual=1')).toContain('1000');
  });

  it('a new database without servers gets them from its server_names', async () => {
    const { servers } = await getJson<{ servers: { id: string; name: string }[] }>(upstream, '/servers.json');
    const host = servers[3]!;
    upstream.putRecord('databases', { id: 'db-new', name: 'new', type: 'pgsql', server_names: [host.name], instances: [] });
    expect((await getJson<{ database: { servers: unknown } }>(upstream, '/databases/db-new.json')).database.servers).toEqual([{ id: host.id, name: host.name }]);
  });

  it('an operating system put under a parent is found by by_system on the parent', async () => {
    upstream.putRecord('operating_systems', { id: 'deb13', name: 'Debian 13', codename: 'trixie' }, { parentId: '2' });
    const { servers } = await getJson<{ servers: (Record<string, unknown> & { id: string })[] }>(upstream, '/servers.json');
    const target = servers[5]!;
    upstream.putRecord('servers', { ...target, ip: '192.0.2.9' }, { osId: 'deb13' });
    expect(await listIds(upstream, '/servers.json?by_system=deb13')).toEqual([target.id]);
    expect(await listIds(upstream, '/servers.json?by_system=2')).toContain(target.id);
    expect(await listIds(upstream, '/servers.json?by_system=1')).toContain(target.id);
  });

  it('removeRecord drops the record from list and single view', async () => {
    expect(upstream.removeRecord('applications', 'sp ace')).toBe(true);
    expect(upstream.removeRecord('applications', 'sp ace')).toBe(false);
    expect((await get(upstream, singlePath('applications', 'sp ace'))).status).toBe(404);
    expect(await listIds(upstream, '/applications.json')).not.toContain('sp ace');
  });

  it('hideSingle: 404 on the single view while the list still shows the record', async () => {
    const [id] = await listIds(upstream, '/appservers.json');
    upstream.hideSingle('appservers', id!);
    expect((await get(upstream, `/appservers/${id}.json`)).status).toBe(404);
    expect(await listIds(upstream, '/appservers.json')).toContain(id);
  });

  it('override forces one exact path+query; undefined clears it', async () => {
    upstream.override('/servers.json?by_virtual=1', { status: 502, body: '<h1>Bad Gateway</h1>', contentType: 'text/html' });
    const forced = await get(upstream, '/servers.json?by_virtual=1');
    expect(forced.status).toBe(502);
    expect(forced.headers.get('content-type')).toBe('text/html');
    expect(await forced.text()).toBe('<h1>Bad Gateway</h1>');
    expect((await get(upstream, '/servers.json?by_virtual=0')).status).toBe(200);
    upstream.override('/servers.json?by_virtual=1', undefined);
    expect((await get(upstream, '/servers.json?by_virtual=1')).status).toBe(200);
  });
});

describe('mutate', () => {
  const MUTATED: ResourceName[] = ['applications', 'databases', 'servers', 'appservers'];

  async function snapshot(service: Upstream): Promise<Record<ResourceName, Map<string, string>>> {
    const out = {} as Record<ResourceName, Map<string, string>>;
    for (const resource of RESOURCE_NAMES) {
      const ids = await listIds(service, `/${resource}.json`);
      const bodies = new Map<string, string>();
      for (const id of ids) bodies.set(id, await (await get(service, singlePath(resource, id))).text());
      out[resource] = bodies;
    }
    return out;
  }

  it('reports exactly the ids it added, removed and changed, and keeps references valid', async () => {
    const service = await useUpstream({ profile: 'exact', seed: 9, scale: 40 });
    const before = await snapshot(service);
    const report = service.mutate({ seed: 4, share: 0.1 });
    const after = await snapshot(service);
    for (const resource of RESOURCE_NAMES) {
      const added = [...after[resource].keys()].filter((id) => !before[resource].has(id));
      const removed = [...before[resource].keys()].filter((id) => !after[resource].has(id));
      const changed = [...after[resource].keys()].filter((id) => before[resource].has(id) && before[resource].get(id) !== after[resource].get(id));
      expect(report.added[resource].slice().sort(), resource).toEqual(added.sort());
      expect(report.removed[resource].slice().sort(), resource).toEqual(removed.sort());
      expect(report.changed[resource].slice().sort(), resource).toEqual(changed.sort());
      if (MUTATED.includes(resource)) {
        expect(added.length, resource).toBeGreaterThanOrEqual(1);
        expect(removed.length, resource).toBeGreaterThanOrEqual(1);
        expect(changed.length, resource).toBeGreaterThanOrEqual(1);
      } else {
        // The tree stays; one system's codename changes (the servers embedding it with it).
        expect(added.length + removed.length, resource).toBe(0);
        expect(changed.length, resource).toBe(resource === 'operating_systems' ? 1 : 0);
      }
    }
    const servers = new Map([...after.servers.values()].map((text) => JSON.parse(text).server).map((s) => [s.id, s.name]));
    const names = new Set(servers.values());
    for (const text of after.appservers.values()) {
      const { appserver } = JSON.parse(text);
      expect(servers.get(appserver.server_id)).toBe(appserver.server_name);
    }
    for (const text of after.databases.values()) {
      const { database } = JSON.parse(text);
      for (const name of database.server_names) expect(names.has(name)).toBe(true);
      expect(database.servers.map((s: { name: string }) => s.name)).toEqual(database.server_names);
    }
  });

  it('is deterministic for the same seed, and a later call without a seed draws a new batch', async () => {
    const [a, b] = await Promise.all([useUpstream({ profile: 'exact', seed: 9, scale: 40 }), useUpstream({ profile: 'exact', seed: 9, scale: 40 })]);
    expect(a.mutate({ seed: 8, share: 0.05 })).toEqual(b.mutate({ seed: 8, share: 0.05 }));
    const [ta, tb] = await Promise.all([a, b].map(async (u) => (await get(u, '/servers.json')).text()));
    expect(ta).toBe(tb);
    expect(a.mutate({})).not.toEqual(a.mutate({}));
  });
});
