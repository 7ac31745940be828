import { describe, expect, it } from 'vitest';
import { generateDataset, type ServerHidden, type View } from '../../src/upstream/data.js';
import { systemAndDescendants } from '../../src/upstream/filters.js';
import { useUpstream } from '../helpers/upstream.js';
import { get, getJson, listIds } from './helpers.js';

const upstream = await useUpstream({ seed: 3, scale: 60 });
const data = generateDataset(3, 60);

const servers = data.order.servers.map((id) => ({ view: data.views.servers.get(id)!, hidden: data.servers.get(id)! }));
const whereServers = (test: (view: View, hidden: ServerHidden) => boolean): string[] => servers.filter((s) => test(s.view, s.hidden)).map((s) => s.view.id);
const whereViews = (resource: 'applications' | 'databases' | 'appservers', test: (view: View) => boolean): string[] =>
  data.order[resource].filter((id) => test(data.views[resource].get(id)!));
const contains = (value: unknown, term: string): boolean => String(value).toLowerCase().includes(term.toLowerCase());
const q = encodeURIComponent;

describe('list filters', () => {
  it('search on servers and applications: case-insensitive substring of the name', async () => {
    for (const term of ['WEB', 'münchen', 'MÜNCHEN', '日本', 'proxy-10']) {
      expect(await listIds(upstream, `/servers.json?search=${q(term)}`)).toEqual(whereServers((v) => contains(v.name, term)));
    }
    expect(await listIds(upstream, '/servers.json?search=m%C3%BCnchen')).not.toHaveLength(0);
    for (const term of ['crm', 'Süd', 'GESTION des']) {
      expect(await listIds(upstream, `/applications.json?search=${q(term)}`)).toEqual(whereViews('applications', (v) => contains(v.name, term)));
    }
  });

  it("decodes '+' as a space, as form encoding does", async () => {
    expect(await listIds(upstream, '/applications.json?search=gestion+des')).toEqual(whereViews('applications', (v) => contains(v.name, 'gestion des')));
  });

  it('by_system keeps the system and all its descendants; an unknown id keeps nothing', async () => {
    const linux = systemAndDescendants(data, '1');
    expect(linux.size).toBeGreaterThan(10);
    const expected = whereServers((_, h) => h.osId !== null && linux.has(h.osId));
    expect(expected.length).toBeGreaterThan(0);
    expect(await listIds(upstream, '/servers.json?by_system=1')).toEqual(expected);
    // Servers sit on inner nodes as well as on leaves.
    const osIds = new Set(servers.map((s) => s.hidden.osId));
    expect(['1', '2', '5', '9', '12', '14', '18', '21', '23'].some((inner) => osIds.has(inner))).toBe(true);
    for (const id of data.order.operating_systems) {
      const tree = systemAndDescendants(data, id);
      expect(await listIds(upstream, `/servers.json?by_system=${id}`)).toEqual(whereServers((_, h) => tree.has(h.osId!)));
    }
    expect(await listIds(upstream, '/servers.json?by_system=999')).toEqual([]);
  });

  it('by_virtual 0 and 1 split the servers; any other value is a 400 JSON error', async () => {
    const virtual = await listIds(upstream, '/servers.json?by_virtual=1');
    const physical = await listIds(upstream, '/servers.json?by_virtual=0');
    expect(virtual).toEqual(whereServers((_, h) => h.virtual));
    expect(physical).toEqual(whereServers((_, h) => !h.virtual));
    for (const bad of ['true', '2', '', 'yes']) {
      const res = await get(upstream, `/servers.json?by_virtual=${bad}`);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(((await res.json()) as { error: string }).error).toContain('by_virtual');
    }
  });

  it('by_location by site, room or rack; malformed is a 400', async () => {
    const first = servers[0]!.hidden;
    expect(await listIds(upstream, `/servers.json?by_location=site:${first.siteId}`)).toEqual(whereServers((_, h) => h.siteId === first.siteId));
    expect(await listIds(upstream, `/servers.json?by_location=room:${first.roomId}`)).toEqual(whereServers((_, h) => h.roomId === first.roomId));
    expect(await listIds(upstream, `/servers.json?by_location=rack:${first.rackId}`)).toEqual(whereServers((_, h) => h.rackId === first.rackId));
    expect(await listIds(upstream, '/servers.json?by_location=site:nowhere')).toEqual([]);
    for (const bad of ['1', 'site:', 'building:1', 'SITE:1']) {
      const res = await get(upstream, `/servers.json?by_location=${q(bad)}`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toContain('by_location');
    }
  });

  it('by_maintainer and by_serial_number match exactly', async () => {
    const { maintainerId, serialNumber } = servers[4]!.hidden;
    expect(await listIds(upstream, `/servers.json?by_maintainer=${maintainerId}`)).toEqual(whereServers((_, h) => h.maintainerId === maintainerId));
    expect(await listIds(upstream, `/servers.json?by_serial_number=${q(serialNumber!)}`)).toEqual([servers[4]!.view.id]);
    expect(await listIds(upstream, `/servers.json?by_serial_number=${q(serialNumber!.slice(1))}`)).toEqual([]);
  });

  it('by_arch matches exactly ignoring case; servers of unknown arch never match', async () => {
    const expected = whereServers((_, h) => h.arch === 'x86_64');
    expect(expected.length).toBeGreaterThan(0);
    expect(await listIds(upstream, '/servers.json?by_arch=x86_64')).toEqual(expected);
    expect(await listIds(upstream, '/servers.json?by_arch=X86_64')).toEqual(expected);
    expect(await listIds(upstream, '/servers.json?by_arch=x86')).toEqual([]);
    expect(servers.some((s) => s.hidden.arch === null)).toBe(true);
    expect(await listIds(upstream, '/servers.json?by_arch=unknown')).toEqual([]);
  });

  it('by_fullmodel: substring of manufacturer or model, ignoring case', async () => {
    for (const term of ['dell', 'VIRTUAL', 'PowerEdge', 'q35']) {
      expect(whereServers((_, h) => contains(h.manufacturer, term) || contains(h.model, term))).not.toHaveLength(0);
      expect(await listIds(upstream, `/servers.json?by_fullmodel=${q(term)}`)).toEqual(whereServers((_, h) => contains(h.manufacturer, term) || contains(h.model, term)));
    }
  });

  it('databases: by_name, by_type (unknown type: empty), include=servers', async () => {
    expect(await listIds(upstream, '/databases.json?by_name=_PG_')).toEqual(whereViews('databases', (v) => contains(v.name, '_pg_')));
    expect(await listIds(upstream, '/databases.json?by_type=mysql')).toEqual(whereViews('databases', (v) => v.type === 'mysql'));
    expect(await listIds(upstream, '/databases.json?by_type=oracle')).toEqual([]);
    const { databases } = await getJson<{ databases: Record<string, unknown>[] }>(upstream, '/databases.json?include=servers');
    for (const item of databases) {
      expect(Object.keys(item)).toEqual(['id', 'name', 'type', 'server_names', 'instances', 'servers']);
      expect(item.servers).toEqual(data.views.databases.get(item.id as string)!.servers);
      expect(Object.keys((item.instances as object[])[0]!)).not.toContain('config');
    }
    const plain = await get(upstream, '/databases.json');
    expect(await (await get(upstream, '/databases.json?include=owners')).text()).toBe(await plain.text());
  });

  it('appservers: by_name, by_dns, by_runtime_version, by_server_name', async () => {
    const cases: [string, string, string][] = [
      ['by_name', 'name', 'PRD'],
      ['by_dns', 'dns', 'Billing'],
      ['by_runtime_version', 'runtime_version', '17.0'],
      ['by_server_name', 'server_name', 'köln'],
    ];
    for (const [param, field, term] of cases) {
      expect(whereViews('appservers', (v) => contains(v[field], term))).not.toHaveLength(0);
      expect(await listIds(upstream, `/appservers.json?${param}=${q(term)}`)).toEqual(whereViews('appservers', (v) => contains(v[field], term)));
    }
  });

  it('several filters combine with AND; unknown parameters are ignored; a repeated parameter takes its last value', async () => {
    const expected = whereServers((v, h) => h.virtual && contains(v.name, 'a'));
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(whereServers((_, h) => h.virtual).length);
    expect(await listIds(upstream, '/servers.json?by_virtual=1&search=A')).toEqual(expected);
    expect(await listIds(upstream, '/servers.json?search=A&by_virtual=1&page=2&format=xml')).toEqual(expected);
    expect(await listIds(upstream, '/servers.json?by_virtual=0&by_virtual=1&search=A')).toEqual(expected);
    expect(await listIds(upstream, '/operating_systems.json?search=debian')).toEqual(data.order.operating_systems);
  });
});
