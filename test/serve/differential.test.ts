/**
 * The mirror served by `serve` answers like the service: the same status and the same parsed
 * body for every endpoint, filter, case variant and combination, from the folder alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeJson } from '../../src/json/encode.js';
import { startServe, type RunningServe } from '../../src/serve/index.js';
import { systemAndDescendants } from '../../src/upstream/filters.js';
import { TOKEN } from '../helpers/upstream.js';
import { buildMirror, fetchJson, type Mirror } from './helpers.js';

const mirror = await buildMirror({ seed: 7, scale: 120 });
let serve: RunningServe;

beforeAll(async () => {
  serve = await startServe({ dir: mirror.dir, quiet: true });
});

afterAll(async () => {
  await serve?.close();
});

const q = encodeURIComponent;

/** Every few items of a list, so the battery stays small but spread over the data. */
const spread = <T>(items: readonly T[], count: number): T[] => items.filter((_, i) => i % Math.max(1, Math.floor(items.length / count)) === 0).slice(0, count);

/** Case variants of a term: as is, upper, lower, and first letter flipped. */
const variants = (term: string): string[] => [...new Set([term, term.toUpperCase(), term.toLowerCase(), term[0]!.toUpperCase() + term.slice(1).toLowerCase()])];

function battery(m: Mirror): string[] {
  const { data } = m;
  const view = (resource: 'servers' | 'applications' | 'databases' | 'appservers', id: string): Record<string, unknown> => data.views[resource].get(id)!;
  const paths: string[] = ['/applications.json', '/databases.json', '/operating_systems.json', '/servers.json', '/appservers.json'];
  for (const resource of ['applications', 'databases', 'operating_systems', 'servers', 'appservers'] as const) {
    for (const id of spread(data.order[resource], 6)) paths.push(`/${resource}/${q(id)}.json`);
    paths.push(`/${resource}/999999.json`, `/${resource}/no-such-id.json`);
  }
  paths.push('/servers/' + q(data.order.servers[0]!) + '.json?by_system=3&anything=1');
  paths.push('/applications.xml', '/applications.csv', '/nothing.json', '/servers/../applications.json');

  // by_system: every operating system, parents included, and ids that are none.
  for (const id of data.order.operating_systems) paths.push(`/servers.json?by_system=${id}`);
  paths.push('/servers.json?by_system=999', '/servers.json?by_system=abc');
  paths.push('/servers.json?by_virtual=0', '/servers.json?by_virtual=1');
  for (const type of new Set([...data.views.databases.values()].map((d) => String(d.type)))) paths.push(`/databases.json?by_type=${q(type)}`);
  paths.push('/databases.json?by_type=oracle', '/databases.json?include=servers', '/databases.json?include=servers,servers');
  for (const [param, values] of Object.entries(m.filters)) for (const value of values) paths.push(`/servers.json?${param}=${q(value)}`);

  // Substring filters, with case variants of terms taken from the data.
  const serverWord = String(view('servers', data.order.servers[3]!).name).split('-')[1]!;
  const city = String(view('servers', data.order.servers[8]!).name).split('-')[0]!;
  for (const term of [...variants(serverWord), ...variants(city), 'zzz-none', '', '日本']) paths.push(`/servers.json?search=${q(term)}`);
  const appWord = String(view('applications', data.order.applications[2]!).name).split(' ')[0]!;
  for (const term of [...variants(appWord), 'süd', 'SÜD']) paths.push(`/applications.json?search=${q(term)}`);
  paths.push('/applications.json?search=gestion+des');
  const dbWord = String(view('databases', data.order.databases[1]!).name).split('_')[0]!;
  for (const term of [...variants(dbWord), '_pg_', '_MY_']) paths.push(`/databases.json?by_name=${q(term)}`);
  const app = view('appservers', data.order.appservers[4]!);
  for (const term of variants(String(app.name).split('-')[0]!)) paths.push(`/appservers.json?by_name=${q(term)}`);
  for (const term of ['apps.example', 'APPS.EXAMPLE', String(app.dns).slice(0, 6)]) paths.push(`/appservers.json?by_dns=${q(term)}`);
  for (const term of [String(app.runtime_version).slice(0, 3), 'zzz']) paths.push(`/appservers.json?by_runtime_version=${q(term)}`);
  for (const term of variants(String(app.server_name).split('-')[0]!)) paths.push(`/appservers.json?by_server_name=${q(term)}`);

  // Several parameters together: views intersected with each other and with substrings.
  const parents = ['1', '2', '5', '14'];
  for (const os of parents) {
    paths.push(`/servers.json?by_system=${os}&search=${q(serverWord.toUpperCase())}`);
    paths.push(`/servers.json?by_virtual=1&by_system=${os}`);
    paths.push(`/servers.json?by_system=${os}&by_virtual=0&search=${q(city.toLowerCase())}`);
  }
  paths.push(`/servers.json?by_system=999&search=${q(serverWord)}`);
  paths.push(`/servers.json?by_location=${q(m.filters.by_location![0]!)}&by_virtual=1`);
  paths.push(`/servers.json?by_arch=x86_64&by_system=2&search=${q(city)}`);
  paths.push(`/servers.json?by_maintainer=${q(m.filters.by_maintainer![0]!)}&by_fullmodel=${q(m.filters.by_fullmodel![0]!)}`);
  paths.push(`/databases.json?include=servers&by_type=pgsql`, `/databases.json?include=servers&by_name=${q(dbWord.toUpperCase())}`);
  paths.push(`/databases.json?by_type=mysql&by_name=${q(dbWord)}`, '/databases.json?by_type=oracle&by_name=a');
  paths.push(`/appservers.json?by_name=${q(String(app.name).slice(0, 3))}&by_dns=example&by_server_name=${q(String(app.server_name).slice(0, 4))}`);
  // Unknown parameters are ignored; the last repeat of a parameter wins.
  paths.push('/servers.json?foo=bar', '/operating_systems.json?search=linux', '/servers.json?by_system=1&by_system=13', `/applications.json?search=x&search=${q(appWord)}`);
  return paths;
}

describe('serve answers like the service', () => {
  it('the same status and parsed body for a battery of requests generated from the data', async () => {
    const paths = battery(mirror);
    expect(paths.length).toBeGreaterThanOrEqual(100);
    const nonEmpty = { lists: 0 };
    for (const path of paths) {
      const [theirs, ours] = await Promise.all([fetchJson(mirror.upstream.url, path, { 'X-Api-Token': TOKEN }), fetchJson(serve.url, path)]);
      expect({ path, status: ours.status }).toEqual({ path, status: theirs.status });
      expect(ours.body, path).toEqual(theirs.body);
      // Answers cut from the list files are byte for byte what encodeJson writes for the service's body.
      if (ours.status === 200) expect(ours.bytes.equals(encodeJson(theirs.body)), path).toBe(true);
      const [items] = theirs.status === 200 ? Object.values(theirs.body as Record<string, unknown>) : [];
      if (Array.isArray(items) && items.length > 0) nonEmpty.lists += 1;
    }
    // The battery is not a set of empty answers agreeing with each other.
    expect(nonEmpty.lists).toBeGreaterThan(paths.length / 2);
  });

  it('a parent system answers its children too, from the folder alone', async () => {
    const tree = systemAndDescendants(mirror.data, '1');
    const res = await fetchJson(serve.url, '/servers.json?by_system=1&by_virtual=1');
    const ids = (res.body as { servers: { id: string }[] }).servers.map((s) => s.id);
    const expected = mirror.data.order.servers.filter((id) => {
      const hidden = mirror.data.servers.get(id)!;
      return hidden.virtual && hidden.osId !== null && tree.has(hidden.osId);
    });
    expect(ids).toEqual(expected);
    expect(ids.length).toBeGreaterThan(0);
  });

  it('values the mirror does not hold answer 400 naming the parameter and how to configure it', async () => {
    const cases: [string, string][] = [
      ['/servers.json?by_location=site:999', 'by_location'],
      ['/servers.json?by_location=site:999&search=a', 'by_location'],
      ['/servers.json?by_maintainer=999', 'by_maintainer'],
      ['/servers.json?by_serial_number=NOPE', 'by_serial_number'],
      ['/servers.json?by_arch=ppc64&by_system=1', 'by_arch'],
      ['/servers.json?by_fullmodel=nothing', 'by_fullmodel'],
      ['/servers.json?by_virtual=2', 'by_virtual'],
      ['/servers.json?by_virtual=', 'by_virtual'],
      ['/databases.json?include=other', 'include'],
      ['/databases.json?include=servers,other&by_type=pgsql', 'include'],
    ];
    for (const [path, param] of cases) {
      const res = await fetchJson(serve.url, path);
      expect(res.status, path).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const body = res.body as { error: string; parameter: string };
      expect(body.parameter, path).toBe(param);
      expect(body.error).toContain(param);
    }
    const configured = (await fetchJson(serve.url, '/servers.json?by_location=site:999')).body as { error: string };
    expect(configured.error).toContain('filters.servers.by_location');
    expect(configured.error).toContain('sync again');
  });

  it('caseSensitive makes substring filters match case exactly', async () => {
    const strict = await startServe({ dir: mirror.dir, quiet: true, caseSensitive: true });
    try {
      const name = String(mirror.data.views.servers.get(mirror.data.order.servers[0]!)!.name);
      const upper = (await fetchJson(strict.url, `/servers.json?search=${q(name.toUpperCase())}`)).body as { servers: unknown[] };
      const exact = (await fetchJson(strict.url, `/servers.json?search=${q(name)}`)).body as { servers: unknown[] };
      expect(upper.servers).toHaveLength(name.toUpperCase() === name ? 1 : 0);
      expect(exact.servers.length).toBeGreaterThanOrEqual(1);
    } finally {
      await strict.close();
    }
  });
});
