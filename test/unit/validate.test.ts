/** Structural checks and the findings of one record, pure. */
import { describe, expect, it } from 'vitest';
import { BodyFault, ValidationError } from '../../src/errors.js';
import { appserverServerFindings, databaseNameFindings, publishedValue, serverListFindings, serverNames } from '../../src/validate/crosscheck.js';
import { decodingFindings } from '../../src/validate/decode.js';
import { checkRecord } from '../../src/validate/record.js';
import { checkRecord as checkStructure, singleRecord } from '../../src/validate/structure.js';
import { keyCount } from '../../src/json/scan.js';
import type { RawRecord } from '../../src/spec/schemas.js';

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

/** Findings of a record whose list item is `item` and single view `single` (no redaction). */
const check = (resource: Parameters<typeof checkRecord>[0], item: Record<string, unknown>, single: Record<string, unknown>) => checkRecord(resource, item as RawRecord, single as RawRecord, single as RawRecord);

describe('structural checks', () => {
  it('treats a wrong envelope as a fault of the request (retried)', () => {
    expect(() => singleRecord({ servers: {} }, 'server', '1', '/servers/1.json')).toThrow(BodyFault);
    expect(() => singleRecord({ servers: {} }, 'server', '1', '/servers/1.json')).toThrow(/envelope key "server" is missing/);
    expect(() => singleRecord([], 'server', '1', '/servers/1.json')).toThrow(BodyFault);
  });

  it('fails on bad records and ids, naming where', () => {
    expect(() => checkStructure(1, 'GET /servers.json: servers[0]')).toThrow(ValidationError);
    expect(() => checkStructure({ name: 'x' }, 'GET /servers.json: servers[0]')).toThrow(/servers\[0\] has no id/);
    expect(() => checkStructure({ id: 7 }, 'x')).toThrow(/id is number 7, expected a string/);
    expect(() => checkStructure({ id: 'a\ud800' }, 'x')).toThrow(/lone UTF-16 surrogate/);
    expect(() => singleRecord({ server: { id: '2' } }, 'server', '1', '/servers/1.json')).toThrow(/id is "2", not the "1" that was asked for/);
  });
});

describe('the findings of one record', () => {
  it('finds nothing in a record that follows the API document', () => {
    expect(check('servers', server, { ...server, ip: '10.0.0.1' }).findings).toEqual([]);
  });

  it('judges the record as both views give it: null, wrong type, missing, with the field and id', () => {
    const { findings } = check('servers', { ...server, memory_GB: '16' }, { ...server, memory_GB: '16', name: null, ip: 'not-an-ip' });
    // The list says "web01", the single view null: both a disagreement and a null.
    expect(findings.map((f) => `${f.id} ${f.field} ${f.code}`).sort()).toEqual(['1 ip wrong_type', '1 memory_GB wrong_type', '1 name null', '1 name view_mismatch']);
    expect(findings.find((f) => f.field === 'memory_GB')!.value).toBe('16');
    const app = check('applications', { id: 'a', name: 'x' }, { id: 'a', name: 'x' }).findings;
    expect(app).toEqual([{ resource: 'applications', id: 'a', field: 'description', code: 'missing' }]);
  });

  it('never reports a field that only one view carries, and collects it as the shape instead', () => {
    const item = { ...server, arch: 'x86_64', virtual: true, ipaddress: '10.0.0.1' };
    const single = { ...server, ip: '10.0.0.1', operating_system: { id: '3', name: 'Debian 12' } };
    const result = check('servers', item, single);
    expect(result.findings).toEqual([]);
    expect([...result.shape.listOnly].sort()).toEqual(['arch', 'ipaddress', 'virtual']);
    // ip is single-only by the API document: not a fact worth reporting.
    expect([...result.shape.singleOnly]).toEqual(['operating_system']);
  });

  it('reports where both views carry a field with different values, down through objects and arrays', () => {
    const { findings } = check('servers', { ...server, name: 'old', extended_attributes: { rack: 'A1' } }, { ...server, ip: '10.0.0.1', extended_attributes: { rack: 'B2', more: 1 } });
    expect(findings).toEqual([
      { resource: 'servers', id: '1', field: 'name', code: 'view_mismatch', value: { list: 'old', single: 'web01' } },
      { resource: 'servers', id: '1', field: 'extended_attributes.rack', code: 'view_mismatch', value: { list: 'A1', single: 'B2' } },
    ]);
  });

  it('normalizes array positions in field paths, once per record', () => {
    const instance = { id: 'i', name: 'n', listen_address: '10.0.0.1', listen_port: '5432', host_alias: 'h', version: '1' };
    const db = { id: 'd', name: 'n', type: 't', server_names: [], instances: [instance, { ...instance, id: 'j' }] };
    const single = { ...db, servers: [], instances: db.instances.map((i) => ({ ...i, config: {}, databases: {} })) };
    const { findings } = check('databases', db, single);
    expect(findings).toEqual([{ resource: 'databases', id: 'd', field: 'instances[].listen_port', code: 'wrong_type', value: '5432' }]);
  });

  it('withholds the value of a field the redaction policy covers, and does not call a dropped field missing', () => {
    const redacted = (field: string) => field === 'description';
    const { findings } = checkRecord('applications', { id: 'a', name: 'x' } as RawRecord, { id: 'a', name: 7 } as unknown as RawRecord, { id: 'a', name: 7 } as unknown as RawRecord, { redacted });
    expect(findings).toEqual([{ resource: 'applications', id: 'a', field: 'name', code: 'view_mismatch', value: { list: 'x', single: 7 } }, { resource: 'applications', id: 'a', field: 'name', code: 'wrong_type', value: 7 }]);
  });
});

describe('cross-checks', () => {
  it("checks a database's servers against its server_names", () => {
    expect(serverListFindings({ id: 'd', server_names: ['a', 'b'], servers: [{ id: '1', name: 'a' }, { id: '2', name: 'b' }] })).toEqual([]);
    expect(serverListFindings({ id: 'd', server_names: ['a', 'b'], servers: [{ id: '1', name: 'a' }] })).toEqual([
      { resource: 'databases', id: 'd', field: 'servers', code: 'server_list_mismatch', value: { server_names: 2, servers: 1, missing: ['b'] } },
    ]);
  });

  it('finds references to servers that do not exist', () => {
    expect(appserverServerFindings({ id: 'x', server_id: '1' }, new Set(['1']))).toEqual([]);
    expect(appserverServerFindings({ id: 'x', server_id: '9' }, new Set(['1']))).toEqual([{ resource: 'appservers', id: 'x', field: 'server_id', code: 'dangling_ref', value: '9' }]);
    expect(databaseNameFindings({ id: 'd', server_names: ['a', 'gone'] }, new Set(['a']))).toEqual([{ resource: 'databases', id: 'd', field: 'server_names', code: 'dangling_ref', value: ['gone'] }]);
  });

  it('judges references by what the published record carries where the views disagree', () => {
    // The list shows an outdated name for server 7; a database naming its current name is fine.
    const renamed = new Map([['7', { list: 'old-7', single: 'web-7' }]]);
    const names = serverNames(new Set(['a', 'old-7']), renamed);
    expect(databaseNameFindings({ id: 'd', server_names: ['a', 'web-7'] }, names)).toEqual([]);
    expect(databaseNameFindings({ id: 'd', server_names: ['web-8'] }, names)).toHaveLength(1);
    // An appserver whose list item names another server than its single view: the single view counts.
    const moved = new Map([['x', { list: '9', single: '1' }]]);
    expect(appserverServerFindings({ id: 'x', server_id: publishedValue(moved, 'x', '9') }, new Set(['1']))).toEqual([]);
    expect(publishedValue(moved, 'y', '9')).toBe('9');
  });
});

describe('what decoding changes without a word', () => {
  const findings = (text: string | Buffer) => {
    const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
    return decodingFindings('servers', '1', bytes, JSON.parse(bytes.toString('utf8')), keyCount(bytes), 'server');
  };

  it('a repeated key, a number out of range, bytes that are not UTF-8', () => {
    expect(findings('{"server":{"id":"1","name":"a","name":"b"}}')).toEqual([{ resource: 'servers', id: '1', field: 'name', code: 'duplicate_key' }]);
    expect(findings('{"server":{"id":"1","extended_attributes":{"x":{"a":1,"a":2}}}}')).toEqual([{ resource: 'servers', id: '1', field: 'extended_attributes.x.a', code: 'duplicate_key' }]);
    expect(findings('{"server":{"id":"1","memory_GB":1e400}}')).toEqual([{ resource: 'servers', id: '1', field: 'memory_GB', code: 'out_of_range' }]);
    expect(findings(Buffer.concat([Buffer.from('{"server":{"id":"1","name":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}}')]))).toEqual([{ resource: 'servers', id: '1', field: '', code: 'invalid_utf8' }]);
    expect(findings('{"server":{"id":"1","name":"a:b","note":"x\\"y:"}}')).toEqual([]);
  });
});
