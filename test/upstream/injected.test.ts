import { describe, expect, it } from 'vitest';
import { compareIds } from '../../src/spec/ids.js';
import { RESOURCE_NAMES, type ResourceName } from '../../src/spec/resources.js';
import type { InjectedReport } from '../../src/upstream/index.js';
import { useUpstream } from '../helpers/upstream.js';
import { pullAll, type Item, type Pull } from './pull.js';

/**
 * The documented fields and their types, written out from the API document apart from the
 * zod schemas the service uses, so that the report is checked against an independent reading.
 */
type Kind = 'string' | 'nullable string' | 'number' | 'integer' | 'boolean' | 'object' | 'string array' | 'instances';
const APPSERVER_FIELDS: Record<string, Kind> = Object.fromEntries(
  ['id', 'name', 'vip', 'dns', 'directory', 'appserver_version', 'runtime_version', 'runtime_xms', 'runtime_xmx', 'dbconn_url', 'dbconn_server', 'dbconn_db', 'dbconn_user', 'dbconn_driver', 'server_id', 'server_name']
    .map((f): [string, Kind] => [f, 'string'])
    .concat([['guard', 'boolean'], ['guard_csac', 'boolean']]),
);
const SERVER_FIELDS: Record<string, Kind> = {
  id: 'string',
  name: 'string',
  hypervisor_name: 'nullable string',
  memory_GB: 'number',
  processor_system_count: 'integer',
  processor_reference: 'string',
  processor_frequency_GHz: 'number',
  extended_attributes: 'object',
};
const DATABASE_FIELDS: Record<string, Kind> = { id: 'string', name: 'string', type: 'string', server_names: 'string array', instances: 'instances' };
const INSTANCE_FIELDS: Record<string, Kind> = { id: 'string', name: 'string', listen_address: 'string', listen_port: 'integer', host_alias: 'string', version: 'string' };
const DOCUMENTED: Record<ResourceName, { list: Record<string, Kind>; single: Record<string, Kind> }> = {
  applications: { list: { id: 'string', name: 'string', description: 'string' }, single: { id: 'string', name: 'string', description: 'string' } },
  operating_systems: { list: { id: 'string', name: 'string', codename: 'string' }, single: { id: 'string', name: 'string', codename: 'string' } },
  servers: { list: SERVER_FIELDS, single: { ...SERVER_FIELDS, ip: 'string' } },
  databases: { list: DATABASE_FIELDS, single: { ...DATABASE_FIELDS, servers: 'object' } },
  appservers: { list: APPSERVER_FIELDS, single: APPSERVER_FIELDS },
};
const SINGLE_ONLY_BY_SPEC: Partial<Record<ResourceName, string[]>> = { servers: ['ip'], databases: ['servers'] };

function fits(kind: Kind, value: unknown): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'nullable string':
      return value === null || typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'string array':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
    default:
      return typeof value === 'object' && value !== null;
  }
}

/** The list value is the single one, or for objects and arrays contained in it (a single view adds keys). */
function agrees(list: unknown, single: unknown): boolean {
  if (Array.isArray(list)) return Array.isArray(single) && list.length === single.length && list.every((v, i) => agrees(v, single[i]));
  if (typeof list === 'object' && list !== null) {
    return typeof single === 'object' && single !== null && Object.entries(list).every(([k, v]) => k in single && agrees(v, (single as Record<string, unknown>)[k]));
  }
  return list === single;
}

/** The report, worked out from the bodies alone. */
function expectedReport(pull: Pull): InjectedReport {
  const found = new Map<string, Set<string>>();
  const note = (resource: string, field: string, code: string, id: string): void => {
    const key = JSON.stringify([resource, field, code]);
    found.set(key, (found.get(key) ?? new Set()).add(id));
  };
  const judge = (resource: ResourceName, fields: Record<string, Kind>, record: Item): void => {
    for (const [field, kind] of Object.entries(fields)) {
      const value = record[field];
      if (kind === 'instances') {
        for (const instance of value as Item[]) {
          for (const [f, k] of Object.entries(INSTANCE_FIELDS)) if (!fits(k, instance[f])) note(resource, `instances[].${f}`, instance[f] === null ? 'null' : 'wrong_type', record.id);
        }
      } else if (!fits(kind, value)) {
        note(resource, field, value === null ? 'null' : 'wrong_type', record.id);
      }
    }
  };
  const shape: InjectedReport['shape'] = {};
  const serverIds = new Set(pull.lists.servers.map((s) => s.id));
  const serverNames = new Set([...pull.singles.servers.values()].map((s) => s.name));
  for (const resource of RESOURCE_NAMES) {
    const listOnly = new Set<string>();
    const singleOnly = new Set<string>();
    for (const item of pull.lists[resource]) {
      const single = pull.singles[resource].get(item.id)!;
      judge(resource, DOCUMENTED[resource].list, item);
      judge(resource, DOCUMENTED[resource].single, single);
      for (const key of Object.keys(item)) {
        if (!(key in single)) listOnly.add(key);
        else if (!agrees(item[key], single[key])) note(resource, key, 'view_mismatch', item.id);
      }
      for (const key of Object.keys(single)) if (!(key in item) && !SINGLE_ONLY_BY_SPEC[resource]?.includes(key)) singleOnly.add(key);
      if (resource === 'appservers' && !serverIds.has(single.server_id as string)) note(resource, 'server_id', 'dangling_ref', item.id);
      if (resource === 'databases') {
        const names = single.server_names as string[];
        if (names.some((n) => !serverNames.has(n))) note(resource, 'server_names', 'dangling_ref', item.id);
        const listed = (single.servers as { name: string }[]).map((s) => s.name);
        if (listed.length !== names.length || names.some((n) => !listed.includes(n))) note(resource, 'servers', 'server_list_mismatch', item.id);
      }
    }
    if (listOnly.size + singleOnly.size > 0) shape[resource] = { listOnly: [...listOnly].sort(), singleOnly: [...singleOnly].sort() };
  }
  const findings = [...found]
    .map(([key, ids]) => {
      const [resource, field, code] = JSON.parse(key) as [ResourceName, string, InjectedReport['findings'][number]['code']];
      return { resource, field, code, ids: [...ids].sort(compareIds) };
    })
    .sort((a, b) => (a.resource + '\u0000' + a.field + '\u0000' + a.code < b.resource + '\u0000' + b.field + '\u0000' + b.code ? -1 : 1));
  return { findings, shape: Object.fromEntries(Object.entries(shape).sort(([a], [b]) => (a < b ? -1 : 1))) };
}

const codes = (report: InjectedReport): string[] => [...new Set(report.findings.map((f) => `${f.resource} ${f.field} ${f.code}`))];

describe('injected()', () => {
  it('matches what the realistic bodies contain, before and after a mutation', async () => {
    const upstream = await useUpstream({ seed: 10, scale: 1000, profile: 'realistic' });
    const report = upstream.injected();
    expect(report).toEqual(expectedReport(await pullAll(upstream)));
    expect(codes(report)).toEqual(
      expect.arrayContaining([
        'applications description null',
        'appservers dbconn_url null',
        'appservers server_id dangling_ref',
        'databases instances[].listen_port wrong_type',
        'databases server_names dangling_ref',
        'databases servers server_list_mismatch',
        'operating_systems codename null',
        'servers ip null',
        'servers memory_GB view_mismatch',
        'servers memory_GB wrong_type',
        'servers name view_mismatch',
        'servers processor_reference null',
      ]),
    );
    expect(report.shape.servers).toEqual({ listOnly: ['arch', 'ipaddress', 'os_name', 'virtual'], singleOnly: ['created_at', 'hardware', 'location', 'maintainer', 'operating_system'] });
    expect(codes(report).some((c) => c.startsWith('servers hypervisor_name'))).toBe(false);
    // Every database with a retired server name has a servers list one short.
    const dangling = report.findings.find((f) => f.field === 'server_names')!.ids;
    expect(report.findings.find((f) => f.field === 'servers')!.ids).toEqual(dangling);

    upstream.mutate({ seed: 3, share: 0.05 });
    expect(upstream.injected()).toEqual(expectedReport(await pullAll(upstream)));
  });

  it('is the same report in every process for a seed and scale, and answers the same through GET /_control/injected', async () => {
    const a = await useUpstream({ seed: 10, scale: 300, profile: 'realistic' });
    const b = await useUpstream({ seed: 10, scale: 300, profile: 'realistic' });
    const report = a.injected();
    expect(b.injected()).toEqual(report);
    expect(await (await fetch(`${a.url}/_control/injected`)).json()).toEqual(report);
  });

  it('is empty for the exact profile, also after a mutation', async () => {
    const upstream = await useUpstream({ seed: 10, scale: 300, profile: 'exact' });
    expect(upstream.injected()).toEqual({ findings: [], shape: {} });
    upstream.mutate({ seed: 2, share: 0.1 });
    expect(upstream.injected()).toEqual({ findings: [], shape: {} });
  });
});
