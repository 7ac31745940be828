import { describe, expect, it } from 'vitest';
import { BodyFault } from '../../src/fetch/client.js';
import { ValidationError } from '../../src/errors.js';
import { appserverServerWarnings, databaseServerWarnings, disagreements } from '../../src/validate/crosscheck.js';
import { fieldWarnings } from '../../src/validate/fields.js';
import { listRecords, singleRecord } from '../../src/validate/structure.js';

const server = {
  id: '1',
  name: 'web01',
  hypervisor_name: null,
  memory_GB: 16,
  processor_system_count: 2,
  processor_reference: 'Xeon',
  processor_frequency_GHz: 2.4,
  extended_attributes: { rack: 'A1' },
};

describe('structural checks', () => {
  it('accepts a list and keeps its records untouched, extra fields included', () => {
    const body = { servers: [{ ...server, updated_at: 'x', nested: { a: [1] } }] };
    expect(listRecords(body, 'servers', '/servers.json')).toBe(body.servers);
  });

  it('treats a wrong envelope as a fault of the request (retried)', () => {
    expect(() => listRecords({ server: [] }, 'servers', '/servers.json')).toThrow(BodyFault);
    expect(() => listRecords({ servers: {} }, 'servers', '/servers.json')).toThrow(/"servers" is object, expected an array/);
    expect(() => listRecords([], 'servers', '/servers.json')).toThrow(BodyFault);
    expect(() => singleRecord({ servers: {} }, 'server', '1', '/servers/1.json')).toThrow(/envelope key "server" is missing/);
  });

  it('fails on bad records, ids and duplicates, naming where', () => {
    expect(() => listRecords({ servers: [1] }, 'servers', '/servers.json')).toThrow(ValidationError);
    expect(() => listRecords({ servers: [{ name: 'x' }] }, 'servers', '/servers.json')).toThrow(/servers\[0\] has no id/);
    expect(() => listRecords({ servers: [{ id: 7 }] }, 'servers', '/servers.json')).toThrow(/id is number 7, expected a string/);
    expect(() => listRecords({ servers: [{ id: 'a' }, { id: 'b' }, { id: 'a' }] }, 'servers', '/servers.json')).toThrow(/duplicate id "a" at servers\[0\] and servers\[2\]/);
    expect(() => singleRecord({ server: { id: '2' } }, 'server', '1', '/servers/1.json')).toThrow(/id is "2", not the "1" that was asked for/);
  });
});

describe('field-level warnings', () => {
  it('reports nothing for a record that follows the spec', () => {
    expect(fieldWarnings('servers', 'list', server)).toEqual([]);
    expect(fieldWarnings('servers', 'single', { ...server, ip: '10.0.0.1' })).toEqual([]);
  });

  it('names resource, id and field for each deviation', () => {
    const warnings = fieldWarnings('servers', 'single', { ...server, memory_GB: '16', name: null, ip: 'not-an-ip' });
    expect(warnings.map((w) => `${w.resource}/${w.id} ${w.field}`)).toEqual(['servers/1 name', 'servers/1 memory_GB', 'servers/1 ip']);
    expect(warnings[1]!.message).toMatch(/expected number.*got "16"/);
  });

  it('reports a missing documented field and nested paths', () => {
    const db = { id: 'd', name: 'n', type: 't', server_names: [], instances: [{ id: 'i', name: 'n', listen_address: '10.0.0.1', listen_port: '5432', host_alias: 'h', version: '1' }] };
    const warnings = fieldWarnings('databases', 'list', db);
    expect(warnings).toEqual([expect.objectContaining({ field: 'instances[0].listen_port' })]);
    expect(fieldWarnings('applications', 'list', { id: 'a', name: 'x' })[0]).toMatchObject({ field: 'description', message: 'missing (expected string)' });
  });
});

describe('cross-checks', () => {
  it('lets the single view add fields at any depth but not change them', () => {
    expect(disagreements({ a: 1, l: [{ x: 1 }] }, { a: 1, b: 2, l: [{ x: 1, y: 2 }] })).toEqual([]);
    expect(disagreements({ a: 1, l: [{ x: 1 }] }, { a: 2, l: [{ x: 3 }] })).toEqual(['a', 'l[0].x']);
    expect(disagreements({ l: [1, 2] }, { l: [1] })).toEqual(['l']);
  });

  it("checks a database's servers against its server_names", () => {
    expect(databaseServerWarnings({ id: 'd', server_names: ['a', 'b'], servers: [{ id: '1', name: 'a' }, { id: '2', name: 'b' }] })).toEqual([]);
    expect(databaseServerWarnings({ id: 'd', server_names: ['a', 'b'], servers: [{ id: '1', name: 'a' }] })[0]!.message).toMatch(/1 entries for 2 server_names; no entry for \["b"\]/);
  });

  it("checks an appserver's server exists", () => {
    expect(appserverServerWarnings({ id: 'x', server_id: '1' }, new Set(['1']))).toEqual([]);
    expect(appserverServerWarnings({ id: 'x', server_id: '9' }, new Set(['1']))[0]).toMatchObject({ resource: 'appservers', id: 'x', field: 'server_id' });
  });
});
