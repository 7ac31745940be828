import { beforeAll, describe, expect, it } from 'vitest';
import { generateDataset, type ServerHidden } from '../../src/upstream/data.js';
import { systemAndDescendants } from '../../src/upstream/filters.js';
import { useUpstream } from '../helpers/upstream.js';
import { get, getJson, listIds } from './helpers.js';
import { pullAll, type Item, type Pull } from './pull.js';

// Seed 10 at scale 1000 holds at least one of every injected kind.
const SEED = 10;
const SCALE = 1000;
const upstream = await useUpstream({ seed: SEED, scale: SCALE, profile: 'realistic' });
// The hidden attributes (location, system, …) are the same in every profile.
const data = generateDataset(SEED, SCALE);
const hidden = (id: string): ServerHidden => data.servers.get(id)!;

let pull: Pull;
beforeAll(async () => {
  pull = await pullAll(upstream);
});

const SERVER_LIST = ['id', 'name', 'hypervisor_name', 'memory_GB', 'processor_system_count', 'processor_reference', 'processor_frequency_GHz', 'extended_attributes'];
const SERVER_SINGLE = ['id', 'name', 'hypervisor_name', 'ip', ...SERVER_LIST.slice(3)];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const share = (items: Item[], test: (item: Item) => boolean): number => items.filter(test).length / items.length;

describe('realistic profile: projections', () => {
  it('server list items carry arch, virtual, os_name and ipaddress; single views nest system, location, hardware and maintainer', () => {
    for (const item of pull.lists.servers) {
      const single = pull.singles.servers.get(item.id)!;
      const h = hidden(item.id);
      expect(Object.keys(item)).toEqual([...SERVER_LIST, 'arch', 'virtual', 'os_name', 'ipaddress', 'updated_at']);
      expect(Object.keys(single)).toEqual([...SERVER_SINGLE, 'operating_system', 'location', 'hardware', 'maintainer', 'created_at', 'updated_at']);
      expect(item.arch).toBe(h.arch);
      expect(item.virtual).toBe(h.virtual);
      const system = pull.singles.operating_systems.get(h.osId!)!;
      expect(item.os_name).toBe(system.name);
      expect(single.operating_system).toEqual({ id: system.id, name: system.name, codename: system.codename });
      expect(single.location).toEqual({ site: h.siteId, room: h.roomId, rack: h.rackId });
      expect(single.hardware).toEqual({ manufacturer: h.manufacturer, model: h.model, serial_number: h.serialNumber });
      expect((single.maintainer as { id: string }).id).toBe(h.maintainerId);
      expect(typeof item.ipaddress).toBe('string');
      if (single.ip !== null) expect(single.ip).toBe(item.ipaddress);
      expect(single.created_at).toMatch(ISO);
      expect(item.updated_at).toBe(single.updated_at);
      expect(single.created_at! <= single.updated_at!).toBe(true);
    }
  });

  it('other resources: timestamps in both views, created_at and associations only in single views; instances keep the spec split', () => {
    for (const resource of ['applications', 'databases', 'operating_systems', 'appservers'] as const) {
      for (const item of pull.lists[resource]) {
        const single = pull.singles[resource].get(item.id)!;
        expect(item.updated_at).toMatch(ISO);
        expect(single.updated_at).toBe(item.updated_at);
        expect('created_at' in item).toBe(false);
        expect(single.created_at).toMatch(ISO);
      }
    }
    for (const item of pull.lists.databases) {
      for (const instance of item.instances as Item[]) expect(Object.keys(instance)).toEqual(['id', 'name', 'listen_address', 'listen_port', 'host_alias', 'version']);
      for (const instance of pull.singles.databases.get(item.id)!.instances as Item[]) expect(Object.keys(instance).slice(-2)).toEqual(['config', 'databases']);
    }
    const servers = new Map(pull.lists.servers.map((s) => [s.id, pull.singles.servers.get(s.id)!.name]));
    for (const appserver of pull.singles.appservers.values()) {
      const id = appserver.server_id as string;
      expect(appserver.server).toEqual(servers.has(id) ? { id, name: servers.get(id) } : null);
    }
    for (const system of pull.singles.operating_systems.values()) expect(system).toHaveProperty('parent');
  });

  it('nulls in documented fields at realistic rates, the same value in both views', () => {
    const appservers = pull.lists.appservers;
    const withoutDb = share(appservers, (a) => a.dbconn_url === null);
    expect(withoutDb).toBeGreaterThan(0.24);
    expect(withoutDb).toBeLessThan(0.36);
    for (const a of appservers) {
      const nulls = ['dbconn_url', 'dbconn_server', 'dbconn_db', 'dbconn_user', 'dbconn_driver'].filter((f) => a[f] === null).length;
      expect([0, 5]).toContain(nulls);
      expect(a.dbconn_url).not.toBe('');
      expect(pull.singles.appservers.get(a.id)!.dbconn_url).toBe(a.dbconn_url);
    }
    const noDescription = share(pull.lists.applications, (a) => a.description === null);
    expect(noDescription).toBeGreaterThan(0.13);
    expect(noDescription).toBeLessThan(0.27);
    const noProcessor = share(pull.lists.servers, (s) => s.processor_reference === null);
    expect(noProcessor).toBeGreaterThan(0.09);
    expect(noProcessor).toBeLessThan(0.15);
    const noIp = share([...pull.singles.servers.values()], (s) => s.ip === null);
    expect(noIp).toBeGreaterThan(0.035);
    expect(noIp).toBeLessThan(0.085);
    for (const s of pull.lists.servers) expect(pull.singles.servers.get(s.id)!.processor_reference).toBe(s.processor_reference);
    const codenames = pull.lists.operating_systems.map((o) => o.codename);
    expect(codenames).toContain(null);
    expect(codenames).not.toContain('');
    expect(codenames.some((c) => typeof c === 'string')).toBe(true);
  });

  it('is deterministic for a seed: another service with the same seed and scale sends the same bytes', async () => {
    const twin = await useUpstream({ seed: SEED, scale: SCALE, profile: 'realistic' });
    for (const path of ['/servers.json', '/appservers.json', '/databases.json?include=servers', '/servers/1000.json', `/appservers/${pull.lists.appservers[7]!.id}.json`]) {
      const [a, b] = await Promise.all([upstream, twin].map(async (u) => (await get(u, path)).text()));
      expect(a, path).toBe(b);
    }
  });

  it('include=servers embeds each live server as its /servers.json item; the single view keeps {id, name}', async () => {
    const { databases } = await getJson<{ databases: Item[] }>(upstream, '/databases.json?include=servers');
    const serverItems = new Map(pull.lists.servers.map((s) => [s.id, s]));
    expect(databases.map((d) => d.id)).toEqual(pull.lists.databases.map((d) => d.id));
    for (const database of databases) {
      const { servers, ...rest } = database;
      expect(rest).toEqual(pull.lists.databases.find((d) => d.id === database.id));
      const single = pull.singles.databases.get(database.id)!;
      const references = single.servers as { id: string; name: string }[];
      expect(servers).toEqual(references.map((r) => serverItems.get(r.id)));
      for (const reference of references) expect(Object.keys(reference)).toEqual(['id', 'name']);
    }
  });
});

describe('realistic profile: filters work as the API document says', () => {
  const servers = (): Item[] => pull.lists.servers;
  const where = (test: (item: Item, h: ServerHidden) => boolean): string[] => servers().filter((s) => test(s, hidden(s.id))).map((s) => s.id);
  const q = encodeURIComponent;

  it('by_system (with descendants), by_virtual, by_location, by_maintainer, by_serial_number, by_arch, by_fullmodel', async () => {
    for (const id of data.order.operating_systems) {
      const tree = systemAndDescendants(data, id);
      expect(await listIds(upstream, `/servers.json?by_system=${id}`)).toEqual(where((_, h) => tree.has(h.osId!)));
    }
    expect(await listIds(upstream, '/servers.json?by_virtual=1')).toEqual(where((s) => s.virtual === true));
    expect(await listIds(upstream, '/servers.json?by_virtual=0')).toEqual(where((s) => s.virtual === false));
    const first = pull.singles.servers.get(servers()[0]!.id)!;
    const location = first.location as { site: string; room: string; rack: string };
    expect(await listIds(upstream, `/servers.json?by_location=site:${location.site}`)).toEqual(where((_, h) => h.siteId === location.site));
    expect(await listIds(upstream, `/servers.json?by_location=room:${location.room}`)).toEqual(where((_, h) => h.roomId === location.room));
    expect(await listIds(upstream, `/servers.json?by_location=rack:${location.rack}`)).toEqual(where((_, h) => h.rackId === location.rack));
    const maintainer = (first.maintainer as { id: string }).id;
    expect(await listIds(upstream, `/servers.json?by_maintainer=${maintainer}`)).toEqual(where((_, h) => h.maintainerId === maintainer));
    const serial = (first.hardware as { serial_number: string }).serial_number;
    expect(await listIds(upstream, `/servers.json?by_serial_number=${q(serial)}`)).toEqual([first.id]);
    expect(await listIds(upstream, '/servers.json?by_arch=aarch64')).toEqual(where((s) => s.arch === 'aarch64'));
    expect(await listIds(upstream, '/servers.json?by_fullmodel=dell')).toEqual(where((_, h) => /dell/i.test(h.manufacturer) || /dell/i.test(h.model)));
  });

  it('substring filters match the values the list shows, nulls and stale copies included', async () => {
    const contains = (value: unknown, term: string): boolean => typeof value === 'string' && value.toLowerCase().includes(term.toLowerCase());
    const stale = servers().find((s) => s.name !== pull.singles.servers.get(s.id)!.name);
    for (const term of ['web', 'MÜNCHEN', ...(stale ? [stale.name as string] : [])]) {
      expect(await listIds(upstream, `/servers.json?search=${q(term)}`)).toEqual(servers().filter((s) => contains(s.name, term)).map((s) => s.id));
    }
    const retired = pull.lists.appservers.find((a) => !pull.singles.servers.has(a.server_id as string));
    expect(retired).toBeDefined();
    expect(await listIds(upstream, `/appservers.json?by_server_name=${q(retired!.server_name as string)}`)).toContain(retired!.id);
    expect(await listIds(upstream, '/applications.json?search=crm')).toEqual(pull.lists.applications.filter((a) => contains(a.name, 'crm')).map((a) => a.id));
    expect(await listIds(upstream, '/databases.json?by_type=mysql')).toEqual(pull.lists.databases.filter((d) => d.type === 'mysql').map((d) => d.id));
  });
});

describe('realistic profile: changes', () => {
  const data3 = generateDataset(3, 60);
  const hidden3 = (id: string): ServerHidden => data3.servers.get(id)!;
  /** A server single view reduced to the fields the API document lists, as putRecord takes it. */
  const documentedServer = (server: Item): Item => Object.fromEntries(SERVER_SINGLE.map((field) => [field, server[field]])) as Item;

  it('a record changed by mutate or putRecord gets a later updated_at, in both views', async () => {
    const service = await useUpstream({ seed: 3, scale: 60, profile: 'realistic' });
    const before = await getJson<{ application: Item }>(service, '/applications/1.json');
    service.putRecord('applications', { id: '1', name: 'Renamed', description: 'after an edit' });
    const after = await getJson<{ application: Item }>(service, '/applications/1.json');
    expect(after.application.updated_at! > before.application.updated_at!).toBe(true);
    expect(after.application.created_at).toBe(before.application.created_at);
    const listed = (await getJson<{ applications: Item[] }>(service, '/applications.json')).applications.find((a) => a.id === '1')!;
    expect(listed.updated_at).toBe(after.application.updated_at);

    const report = service.mutate({ seed: 4, share: 0.1 });
    const id = report.changed.servers[0]!;
    const mutated = await getJson<{ server: Item }>(service, `/servers/${id}.json`);
    expect(mutated.server.updated_at! > after.application.updated_at!).toBe(true);
  });

  it('views that show another record follow its changes: a renamed system in its servers, a renamed server in its appservers', async () => {
    const service = await useUpstream({ seed: 3, scale: 60, profile: 'realistic' });
    const { appservers } = await getJson<{ appservers: Item[] }>(service, '/appservers.json');
    const appserver = appservers.find((a) => a.server_id !== undefined)!;
    const serverId = appserver.server_id as string;
    const systemId = hidden3(serverId).osId!;
    // Rendered once before the changes, so that stale cached bodies would show.
    await getJson(service, `/appservers/${appserver.id}.json`);
    const { server } = await getJson<{ server: Item }>(service, `/servers/${serverId}.json`);
    await getJson(service, '/servers.json');

    const system = (await getJson<{ operating_system: Item }>(service, `/operating_systems/${systemId}.json`)).operating_system;
    service.putRecord('operating_systems', { id: systemId, name: 'Renamed OS', codename: system.codename as string });
    service.putRecord('servers', { ...documentedServer(server), name: 'renamed-server' });

    expect((await getJson<{ appserver: Item }>(service, `/appservers/${appserver.id}.json`)).appserver.server).toEqual({ id: serverId, name: 'renamed-server' });
    const after = (await getJson<{ server: Item }>(service, `/servers/${serverId}.json`)).server;
    expect((after.operating_system as Item).name).toBe('Renamed OS');
    const listed = (await getJson<{ servers: Item[] }>(service, '/servers.json')).servers.filter((s) => hidden3(s.id).osId === systemId);
    expect(listed.map((s) => s.os_name)).toEqual(listed.map(() => 'Renamed OS'));
  });
});
