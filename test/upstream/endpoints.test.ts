import { describe, expect, it } from 'vitest';
import { compareIds } from '../../src/spec/ids.js';
import { RESOURCE_NAMES, RESOURCES, singlePath } from '../../src/spec/resources.js';
import { SCHEMAS } from '../../src/spec/schemas.js';
import { generateDataset } from '../../src/upstream/data.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';
import { getJson } from './helpers.js';

const upstream = await useUpstream({ seed: 7, scale: 50 });
const data = generateDataset(7, 50);

const FIELDS = {
  applications: { list: ['id', 'name', 'description'], single: ['id', 'name', 'description'] },
  operating_systems: { list: ['id', 'name', 'codename'], single: ['id', 'name', 'codename'] },
  servers: {
    list: ['id', 'name', 'hypervisor_name', 'memory_GB', 'processor_system_count', 'processor_reference', 'processor_frequency_GHz', 'extended_attributes'],
    single: ['id', 'name', 'hypervisor_name', 'ip', 'memory_GB', 'processor_system_count', 'processor_reference', 'processor_frequency_GHz', 'extended_attributes'],
  },
  databases: { list: ['id', 'name', 'type', 'server_names', 'instances'], single: ['id', 'name', 'type', 'server_names', 'instances', 'servers'] },
  appservers: {
    list: ['id', 'name', 'vip', 'dns', 'directory', 'appserver_version', 'runtime_version', 'runtime_xms', 'runtime_xmx', 'dbconn_url', 'dbconn_server', 'dbconn_db', 'dbconn_user', 'dbconn_driver', 'guard', 'guard_csac', 'server_id', 'server_name'],
    single: ['id', 'name', 'vip', 'dns', 'directory', 'appserver_version', 'runtime_version', 'runtime_xms', 'runtime_xmx', 'dbconn_url', 'dbconn_server', 'dbconn_db', 'dbconn_user', 'dbconn_driver', 'guard', 'guard_csac', 'server_id', 'server_name'],
  },
} as const;

const INSTANCE_LIST = ['id', 'name', 'listen_address', 'listen_port', 'host_alias', 'version'];

type Item = Record<string, unknown> & { id: string };

describe('endpoints', () => {
  it('has the documented sizes for the scale', () => {
    expect(upstream.counts()).toEqual({ servers: 50, appservers: 25, applications: 10, databases: 5, operating_systems: 25 });
  });

  for (const resource of RESOURCE_NAMES) {
    it(`${resource}: list and single envelopes, fields in spec order, valid against the schemas`, async () => {
      const list = await getJson<Record<string, Item[]>>(upstream, `/${resource}.json`);
      expect(Object.keys(list)).toEqual([resource]);
      const items = list[resource]!;
      expect(items.map((i) => i.id)).toEqual(data.order[resource]);
      expect([...items.map((i) => i.id)].sort(compareIds)).toEqual(items.map((i) => i.id));
      expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
      for (const item of items) {
        expect(Object.keys(item)).toEqual(FIELDS[resource].list);
        expect(SCHEMAS[resource].list.safeParse(item).success).toBe(true);
      }
      for (const item of items) {
        const single = await getJson<Record<string, Item>>(upstream, singlePath(resource, item.id));
        const singular = RESOURCES[resource].singular;
        expect(Object.keys(single)).toEqual([singular]);
        const record = single[singular]!;
        expect(Object.keys(record)).toEqual(FIELDS[resource].single);
        expect(SCHEMAS[resource].single.safeParse(record).success).toBe(true);
        for (const field of FIELDS[resource].list) expect(record[field as string]).toEqual(resource === 'databases' && field === 'instances' ? expect.anything() : item[field as string]);
      }
    });
  }

  it('servers: ip only in the single view, hypervisor_name null exactly for physical servers', async () => {
    const { servers } = await getJson<{ servers: Item[] }>(upstream, '/servers.json');
    expect(servers.some((s) => 'ip' in s)).toBe(false);
    for (const server of servers) expect(server.hypervisor_name === null).toBe(!data.servers.get(server.id)!.virtual);
    expect(servers.some((s) => s.hypervisor_name === null) && servers.some((s) => s.hypervisor_name !== null)).toBe(true);
    const { server } = await getJson<{ server: Item }>(upstream, `/servers/${servers[0]!.id}.json`);
    expect(typeof server.ip).toBe('string');
    const keyCounts = new Set(servers.map((s) => Object.keys(s.extended_attributes as object).join(',')));
    expect(keyCounts.size).toBeGreaterThan(3);
    expect(servers.some((s) => /[^\x00-\x7f]/.test(s.name as string))).toBe(true);
  });

  it('databases: the single view adds servers, and config and databases per instance', async () => {
    const { databases } = await getJson<{ databases: Item[] }>(upstream, '/databases.json');
    const serverNames = new Map([...data.views.servers.values()].map((s) => [s.name, s.id]));
    expect(new Set(databases.map((d) => d.type))).toEqual(new Set(['pgsql', 'mysql']));
    for (const item of databases) {
      for (const instance of item.instances as Item[]) expect(Object.keys(instance)).toEqual(INSTANCE_LIST);
      const { database } = await getJson<{ database: Item }>(upstream, `/databases/${item.id}.json`);
      const names = database.server_names as string[];
      expect(database.servers).toEqual(names.map((name) => ({ id: serverNames.get(name), name })));
      const instances = database.instances as Item[];
      expect(instances.map((i) => ({ ...i, config: undefined, databases: undefined }))).toEqual((item.instances as Item[]).map((i) => ({ ...i, config: undefined, databases: undefined })));
      for (const instance of instances) {
        expect(Object.keys(instance)).toEqual([...INSTANCE_LIST, 'config', 'databases']);
        const config = instance.config as Record<string, unknown>;
        expect(Number.isInteger(config.max_connections)).toBe(true);
        expect(config.shared_buffers).toMatch(/^\d+[MG]B$/);
        for (const [name, size] of Object.entries(instance.databases as object)) {
          expect(name).not.toMatch(/^\d+$/);
          expect(Number.isInteger(size)).toBe(true);
        }
      }
    }
  });

  it('appservers and databases refer to existing servers', async () => {
    const { appservers } = await getJson<{ appservers: Item[] }>(upstream, '/appservers.json');
    for (const a of appservers) expect(data.views.servers.get(a.server_id as string)?.name).toBe(a.server_name);
    const names = new Set([...data.views.servers.values()].map((s) => s.name));
    for (const d of data.views.databases.values()) for (const name of d.server_names as string[]) expect(names.has(name)).toBe(true);
  });

  it('renders compact JSON', async () => {
    const res = await fetch(`${upstream.url}/operating_systems.json`, { headers: { 'X-Api-Token': TOKEN } });
    const text = await res.text();
    expect(text).toBe(JSON.stringify(JSON.parse(text)));
    expect(text.startsWith('{"operating_systems":[{"id":"1","name":"Linux","codename":""}')).toBe(true);
  });
});
