/**
 * Redaction: the pure functions, the config's errors, and a real sync (and its archive) in which
 * the removed values, planted in the simulated service, appear in no byte of any file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { packSnapshot } from '../../src/archive/pack.js';
import { parseConfig } from '../../src/config/load.js';
import { REDACTION_FILE } from '../../src/snapshot/paths.js';
import { maskUrlCredentials, redactRecord, isRedacted } from '../../src/redact/redact.js';
import { undocumentedFields } from '../../src/redact/policy.js';
import { verifyFolder } from '../../src/verify/verify.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { allBytes, snapshotData } from '../helpers/tree.js';
import { upstreamGet, useUpstream } from '../helpers/upstream.js';

const upstream = await useUpstream({ scale: 40 });

const policy = parseConfig(
  {
    redact: {
      appservers: { drop: ['dbconn_user'], maskUrlCredentials: ['dbconn_url'] },
      servers: { drop: ['extended_attributes.owner_team'], mask: ['ip'] },
      databases: { mask: ['instances[].config.secret_word'] },
    },
  },
  'test',
).redact;

describe('redactRecord', () => {
  it('drops, masks and masks URL credentials, nested and in arrays, without touching its input', () => {
    const record = { id: '1', dbconn_user: 'u', dbconn_url: 'pg://bob:pw@h:5/db', extended_attributes: { owner_team: 't', env: 'prod' }, ip: '10.0.0.1' };
    const copy = structuredClone(record);
    expect(redactRecord('appservers', record, policy)).toEqual({ id: '1', dbconn_url: 'pg://[redacted]@h:5/db', extended_attributes: { owner_team: 't', env: 'prod' }, ip: '10.0.0.1' });
    expect(redactRecord('servers', record, policy)).toEqual({ id: '1', dbconn_user: 'u', dbconn_url: 'pg://bob:pw@h:5/db', extended_attributes: { env: 'prod' }, ip: '[redacted]' });
    expect(record).toEqual(copy);
    const db = { id: 'd', instances: [{ id: 'i1', config: { secret_word: 'x', max: 3 } }, { id: 'i2' }] };
    expect(redactRecord('databases', db, policy)).toEqual({ id: 'd', instances: [{ id: 'i1', config: { secret_word: '[redacted]', max: 3 } }, { id: 'i2' }] });
    // Idempotent: a body published by an earlier run comes out the same.
    const once = redactRecord('appservers', record, policy);
    expect(redactRecord('appservers', once, policy)).toEqual(once);
    expect(redactRecord('applications', record, policy)).toBe(record);
  });

  it('masks credentials in the usual connection URL forms', () => {
    expect(maskUrlCredentials('jdbc:postgresql://alice:s3cret@db:5432/app')).toBe('jdbc:postgresql://[redacted]@db:5432/app');
    expect(maskUrlCredentials('jdbc:oracle:thin:scott/tiger@db:1521:ORCL')).toBe('jdbc:oracle:thin:[redacted]@db:1521:ORCL');
    expect(maskUrlCredentials('jdbc:sqlserver://db:1433;user=sa;password=hunter2;db=x')).toBe('jdbc:sqlserver://db:1433;user=[redacted];password=[redacted];db=x');
    expect(maskUrlCredentials('mysql://db/app?user=a&password=b&ssl=1')).toBe('mysql://db/app?user=[redacted]&password=[redacted]&ssl=1');
    expect(maskUrlCredentials('dbconn:pg://db1:5432/app')).toBe('dbconn:pg://db1:5432/app');
  });

  it('tells which finding fields the policy covers (their values are withheld)', () => {
    expect(isRedacted('appservers', 'dbconn_user', policy)).toBe(true);
    expect(isRedacted('databases', 'instances[].config', policy)).toBe(true);
    expect(isRedacted('appservers', 'vip', policy)).toBe(false);
    expect(isRedacted('servers', 'name', policy)).toBe(false);
  });
});

describe('the redact config', () => {
  const problem = (redact: unknown): string => {
    try {
      parseConfig({ redact }, 'cfg.json');
    } catch (error) {
      return (error as Error).message;
    }
    return 'no error';
  };
  it('names the path and the fix', () => {
    // A field the spec does not list may be one the service sends (issue 29): accepted, and named in a warning.
    expect(problem({ appservers: { drop: ['dbconn_usr'] }, servers: { drop: ['ipaddress'] } })).toBe('no error');
    expect(undocumentedFields({ appservers: { drop: ['dbconn_usr'], mask: [], maskUrlCredentials: [] } })).toEqual([
      expect.stringMatching(/^redact\.appservers\.drop\[0\]: "dbconn_usr" is not a field the spec lists for appservers \(id, name, vip.*\); it is redacted wherever the service sends it/),
    ]);
    expect(problem({ servers: { drop: ['name'] } })).toBe('cfg.json: redact.servers.drop[0]: "name" cannot be redacted: serve answers the filter search from it');
    expect(problem({ servers: { mask: ['id'] } })).toMatch(/"id" cannot be redacted: it names the record's file/);
    expect(problem({ servers: { hide: ['ip'] } })).toMatch(/unknown key redact\.servers\.hide/);
    expect(problem({ hosts: {} })).toMatch(/unknown key redact\.hosts/);
    expect(problem({ servers: { drop: ['ip', 'ip..x'] } })).toMatch(/redact\.servers\.drop\[1\]: expected a field path/);
    expect(problem({ servers: { drop: ['ip'], mask: ['ip'] } })).toMatch(/"ip" is already in servers\.drop/);
  });
});

describe('a redacted sync', () => {
  it('removed values appear in no file of the folder nor of its archive; the snapshot records the policy', async () => {
    const secrets = { user: 'zq_user_7731', password: 'Pw_9f8e7d6c', team: 'team-zq-4410', ip: '10.251.77.13' };
    const { body } = (await upstreamGet(upstream, '/appservers.json')) as { body: { appservers: Record<string, unknown>[] } };
    const app = body.appservers[0]!;
    upstream.putRecord('appservers', { ...app, id: app.id as string, dbconn_user: secrets.user, dbconn_url: `dbconn:pg://${secrets.user}:${secrets.password}@db9:5432/app` });
    const server = ((await upstreamGet(upstream, `/servers/${encodeURIComponent(app.server_id as string)}.json`)).body as { server: Record<string, unknown> }).server;
    upstream.putRecord('servers', { ...server, id: server.id as string, ip: secrets.ip, extended_attributes: { ...(server.extended_attributes as object), owner_team: secrets.team } });

    const plain = tempDir();
    await syncInto(upstream, plain);
    const plainBytes = await allBytes(plain);
    for (const value of Object.values(secrets)) expect(plainBytes).toContain(value);

    const out = tempDir();
    await syncInto(upstream, out, { redact: policy });
    const bytes = await allBytes(out);
    for (const value of Object.values(secrets)) expect(bytes).not.toContain(value);
    expect(await verifyFolder(out)).toMatchObject({ missing: [], altered: [], extra: [] });
    const single = JSON.parse(readFileSync(join(out, 'appservers', `${app.id as string}.json`), 'utf8')) as { appserver: Record<string, unknown> };
    expect(single.appserver.dbconn_url).toBe('dbconn:pg://[redacted]@db9:5432/app');
    expect('dbconn_user' in single.appserver).toBe(false);
    expect(JSON.parse(readFileSync(join(out, REDACTION_FILE), 'utf8'))).toEqual({
      format: 1,
      redacted: {
        databases: { mask: ['instances[].config.secret_word'] },
        servers: { drop: ['extended_attributes.owner_team'], mask: ['ip'] },
        appservers: { drop: ['dbconn_user'], maskUrlCredentials: ['dbconn_url'] },
      },
    });
    const manifest = JSON.parse(readFileSync(join(out, '_meta/manifest.json'), 'utf8')) as { files: Record<string, unknown> };
    expect(manifest.files[REDACTION_FILE]).toBeDefined();

    // A second run with the same policy asks "changed since?", reuses the redacted files, writes
    // nothing, and still leaks nothing (cache and run metadata included).
    const again = await syncInto(upstream, out, { redact: policy });
    expect(again.files.written).toBe(0);
    expect(again.notModified).toBe(again.requests);
    const afterResync = await allBytes(out);
    for (const value of Object.values(secrets)) expect(afterResync).not.toContain(value);

    const archive = join(tempDir(), 'r.tar.gz');
    await packSnapshot({ dir: out, out: archive });
    const tar = gunzipSync(readFileSync(archive)).toString('latin1');
    for (const value of Object.values(secrets)) expect(tar).not.toContain(value);
  });

  it('a policy added, changed or removed between syncs applies to every file at once, 304 or not', async () => {
    const { body } = (await upstreamGet(upstream, '/servers.json')) as { body: { servers: Record<string, unknown>[] } };
    const first = body.servers[0]!;
    const server = ((await upstreamGet(upstream, `/servers/${encodeURIComponent(first.id as string)}.json`)).body as { server: Record<string, unknown> }).server;
    const ip = '10.199.88.77';
    upstream.putRecord('servers', { ...server, id: server.id as string, ip });
    const out = tempDir();
    await syncInto(upstream, out);
    expect(await allBytes(out)).toContain(ip);

    const dropIp = parseConfig({ redact: { servers: { drop: ['ip'] } } }, 'test').redact;
    await syncInto(upstream, out, { redact: dropIp });
    expect(await allBytes(out)).not.toContain(ip);
    const fresh = tempDir();
    await syncInto(upstream, fresh, { redact: dropIp });
    expect(await snapshotData(out)).toEqual(await snapshotData(fresh));

    await syncInto(upstream, out);
    expect(await allBytes(out)).toContain(ip);
    const plain = tempDir();
    await syncInto(upstream, plain);
    expect(await snapshotData(out)).toEqual(await snapshotData(plain));
  });
});


describe('fields only the data carries (issue 29, break 6)', () => {
  it('the realistic service\'s list items hold the IP as ipaddress: naming it redacts every IP, the page included', async () => {
    const { useUpstream } = await import('../helpers/upstream.js');
    const realistic = await useUpstream({ scale: 20, profile: 'realistic' });
    const list = (await upstreamGet(realistic, '/servers.json')).body as { servers: { ipaddress?: string }[] };
    const ips = list.servers.map((s) => s.ipaddress).filter((ip): ip is string => typeof ip === 'string' && ip.length > 6);
    expect(ips.length).toBeGreaterThan(0);
    const redact = parseConfig({ redact: { servers: { drop: ['ip', 'ipaddress'] } } }, 'test').redact;
    const out = tempDir();
    await syncInto(realistic, out, { redact, browser: true });
    // Every file that holds servers: lists, records, views, and the page's tables, buckets, search index and links of them.
    const { listFiles } = await import('../../src/verify/verify.js');
    const files = (await listFiles(out)).filter((path) => /^servers[./]|^_browser\/(tables|records|search|links)\/servers\//.test(path));
    expect(files.length).toBeGreaterThan(20);
    const bytes = files.map((path) => readFileSync(join(out, path), 'utf8')).join('\n');
    for (const ip of ips) expect(bytes).not.toContain(ip);
  });
});

describe('redaction by value (issue 29, point 6: "these values wherever they appear")', () => {
  it('masks a value inside longer strings, but not inside a longer run of letters and digits', async () => {
    const { ValueSet, maskValues } = await import('../../src/redact/values.js');
    const values = new ValueSet();
    for (const value of ['10.0.0.1', 'db-7.example.org', 'n/a']) values.add(value);
    const record = { id: '7', ip: 'n/a', url: 'pg://10.0.0.1:5432/x', other: '10.0.0.12', near: 'a10.0.0.1', list: ['see db-7.example.org.', 'n/a'], n: 5 };
    expect(maskValues(record, new Set(['ip']), values)).toEqual({
      id: '7',
      ip: '[redacted]',
      url: 'pg://[redacted]:5432/x',
      other: '10.0.0.12',
      near: 'a10.0.0.1',
      // "n/a" is too short to be hunted for inside other strings: masked only in its own field.
      list: ['see [redacted].', 'n/a'],
      n: 5,
    });
    expect(maskValues({ id: '8', name: 'x' }, new Set(['ip']), values)).toEqual({ id: '8', name: 'x' });
    // An id names the record's file: it is never rewritten, even when it is one of the values.
    expect(maskValues({ id: '10.0.0.1', ip: '10.0.0.1', host: { id: '10.0.0.1' } }, new Set(['ip']), values)).toEqual({ id: '10.0.0.1', ip: '[redacted]', host: { id: '10.0.0.1' } });
  });

  it('the config names the fields; "id" and unknown keys are refused with the path', () => {
    const problem = (redact: unknown): string => {
      try {
        parseConfig({ redact }, 'cfg.json');
      } catch (error) {
        return (error as Error).message;
      }
      return 'no error';
    };
    expect(problem({ values: { fields: ['ipaddress', 'ip'] } })).toBe('no error');
    expect(problem({ values: { fields: ['id'] } })).toMatch(/^cfg\.json: redact\.values\.fields\[0\]: "id" cannot be redacted/);
    expect(problem({ values: { field: ['ip'] } })).toMatch(/unknown key redact\.values\.field/);
    expect(problem({ values: { fields: ['a.b'] } })).toMatch(/redact\.values\.fields\[0\]: expected a field name/);
  });

  it('every IP of the realistic service is masked in every file, wherever it appears (database listen_address, a URL, the page); a re-sync writes nothing', async () => {
    const { useUpstream } = await import('../helpers/upstream.js');
    const realistic = await useUpstream({ scale: 20, profile: 'realistic' });
    const list = (await upstreamGet(realistic, '/servers.json')).body as { servers: { ipaddress?: string }[] };
    const ips = list.servers.map((s) => s.ipaddress).filter((ip): ip is string => typeof ip === 'string' && ip.length > 6);
    expect(ips.length).toBeGreaterThan(0);
    // An IP inside a string of another resource, which no field rule could name.
    const apps = (await upstreamGet(realistic, '/appservers.json')).body as { appservers: Record<string, unknown>[] };
    const app = apps.appservers[0]!;
    realistic.putRecord('appservers', { ...app, id: app.id as string, description: `talks to jdbc:postgresql://${ips[0]}:5432/app` });
    // A finding quotes a value of the wrong type: the quality report, the page and the run record carry it.
    realistic.putRecord('applications', { id: 'w1', name: 'warned', description: [`runs on ${ips[1]}`] });

    const plain = tempDir();
    await syncInto(realistic, plain);
    const plainBytes = await allBytes(plain);
    // The IPs are there beyond the servers' own files (databases' listen_address), else the test proves nothing.
    const { listFiles } = await import('../../src/verify/verify.js');
    const elsewhere = (await listFiles(plain)).filter((path) => /^databases[./]/.test(path)).map((path) => readFileSync(join(plain, path), 'utf8')).join('\n');
    expect(ips.some((ip) => elsewhere.includes(ip))).toBe(true);
    expect(plainBytes).toContain(`jdbc:postgresql://${ips[0]}:5432/app`);
    expect(readFileSync(join(plain, '_meta/quality.json'), 'utf8')).toContain(ips[1]);

    const redact = parseConfig({ redact: { values: { fields: ['ipaddress', 'ip'] } } }, 'test').redact;
    const out = tempDir();
    const result = await syncInto(realistic, out, { redact, browser: true });
    expect(JSON.stringify(result)).not.toContain(ips[1]);
    const bytes = await allBytes(out);
    for (const ip of ips) expect(bytes).not.toContain(ip);
    expect(bytes).toContain('jdbc:postgresql://[redacted]:5432/app');
    expect(await verifyFolder(out)).toMatchObject({ missing: [], altered: [], extra: [] });
    expect(JSON.parse(readFileSync(join(out, REDACTION_FILE), 'utf8'))).toEqual({ format: 1, redacted: { values: { fields: ['ip', 'ipaddress'] } } });

    const again = await syncInto(realistic, out, { redact, browser: true });
    expect(again.files.written).toBe(0);
    for (const ip of ips) expect(await allBytes(out)).not.toContain(ip);
  }, 120_000);
});

describe('a redacted value left in another field (issue 29, point 6: the check)', () => {
  it('warns once, naming the resource, the rule and how many records, when a masked value still appears unredacted in the same record', async () => {
    const local = await (await import('../helpers/upstream.js')).useUpstream({ scale: 20 });
    const { body } = (await upstreamGet(local, '/servers.json')) as { body: { servers: { id: string }[] } };
    const ips = ['10.201.7.31', '10.201.7.32'];
    for (const [n, item] of body.servers.slice(0, 2).entries()) {
      const server = ((await upstreamGet(local, `/servers/${encodeURIComponent(item.id)}.json`)).body as { server: Record<string, unknown> }).server;
      local.putRecord('servers', { ...server, id: item.id, ip: ips[n]!, description: `reach it at ${ips[n]!}` });
    }
    const run = async (redact: unknown): Promise<string[]> => {
      const warnings: string[] = [];
      const log = { warn: (line: string) => warnings.push(line), info: () => undefined, detail: () => undefined };
      await syncInto(local, tempDir(), { redact: parseConfig({ redact }, 'test').redact, log });
      return warnings.filter((line) => line.includes('still appears'));
    };
    expect(await run({ servers: { mask: ['ip'] } })).toEqual([
      'redact.servers.mask "ip": its value still appears in another field of 2 servers records; name that field too, or add "ip" to redact.values.fields to mask the value wherever it appears',
    ]);
    // Naming the other field too, or masking the value wherever it appears, ends the warning.
    expect(await run({ servers: { mask: ['ip'], drop: ['description'] } })).toEqual([]);
    expect(await run({ servers: { mask: ['ip'] }, values: { fields: ['ip'] } })).toEqual([]);
  }, 120_000);
});
