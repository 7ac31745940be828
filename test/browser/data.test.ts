/**
 * The page's pure data builders: table rows from a list item and a single view, column coding,
 * chunk scripts and fingerprints, the change history with values, data.js. No network, no files.
 */
import { describe, expect, it } from 'vitest';
import { emptyChangeSet } from '../../src/diff/engine.js';
import { bucketCount, bucketOf, bucketScript, dataScript, decodeBucketScript } from '../../src/browser/data.js';
import { connectionOf, databaseKeys, databaseMatcher, urlHost } from '../../src/browser/db-links.js';
import { addHistoryEntry, historyEntry, historyScript, parseHistoryScript } from '../../src/browser/history.js';
import { backLinks, bucketLinks, decodeTableScript, LINKS_KEPT, linksScript, type LinkInput } from '../../src/browser/links.js';
import { searchScript } from '../../src/browser/search-index.js';
import { chunkFingerprint, chunkOf, readChunkHeader, systemFacts, tableChunkCount, tableRow, tableScript, toColumns, viewColumn, withViewFacts } from '../../src/browser/table.js';

/** Runs a page script with the page's callback stubbed, returning what it was called with. */
function run(script: string, callback: string): unknown[] {
  const calls: unknown[] = [];
  new Function(callback, script)((...args: unknown[]) => calls.push(args));
  return calls;
}

describe('table rows', () => {
  it('merge the list item and the single view: the single view wins unless it holds null', () => {
    const item = { id: '1', name: 'stale-name', memory_GB: 8, virtual: true, ipaddress: '10.0.0.1', hypervisor_name: 'kvm-1' };
    const single = { id: '1', name: 'web-1', memory_GB: 16, ip: null, hypervisor_name: null, operating_system: { id: '24', name: 'FreeBSD 13.3', codename: null } };
    expect(tableRow(item, single)).toEqual({
      name: 'web-1',
      memory_GB: 16,
      ip: null,
      hypervisor_name: 'kvm-1',
      operating_system: 'FreeBSD 13.3',
      'operating_system.id': ['24'],
      virtual: true,
      ipaddress: '10.0.0.1',
    });
  });

  it('flatten objects into key columns, lists of records into names, ids and their text fields, lists of strings kept, other lists into counts', () => {
    const single = {
      id: 'd1',
      server_names: ['a', 'b'],
      servers: [
        { id: '7', name: 'a' },
        { id: '9', name: 'b' },
      ],
      instances: [{ id: 'i1', name: 'db_1', listen_address: '10.1.2.3', host_alias: 'db-1.example.net', config: { max: 1 } }],
      tags: [1, 2, 3],
      location: { site: '4', room: '41', extra: { deep: true } },
    };
    expect(tableRow(undefined, single)).toEqual({
      server_names: ['a', 'b'],
      servers: ['a', 'b'],
      'servers.id': ['7', '9'],
      instances: ['db_1'],
      'instances.id': ['i1'],
      'instances.listen_address': ['10.1.2.3'],
      'instances.host_alias': ['db-1.example.net'],
      tags: 3,
      'location.site': '4',
      'location.room': '41',
      'location.extra': '{"deep":true}',
    });
  });
});

describe('facts from the filtered views', () => {
  it('give each server its most specific system and each system its parent, where the views can tell', () => {
    // Linux ⊃ Debian ⊃ Debian 12; Windows holds one server; Solaris none.
    const systems = [
      { id: '1', name: 'Linux', size: 3 },
      { id: '2', name: 'Debian', size: 2 },
      { id: '3', name: 'Debian 12', size: 1 },
      { id: '4', name: 'Windows', size: 1 },
      { id: '5', name: 'Solaris', size: 0 },
    ];
    const serverSystems = new Map([
      ['a', [0, 1, 2]],
      ['b', [0, 1]],
      ['c', [0]],
      ['d', [3]],
    ]);
    const { servers, parents } = systemFacts(systems, serverSystems);
    expect(Object.fromEntries(servers)).toEqual({ a: 2, b: 1, c: 0, d: 3 });
    expect(Object.fromEntries(parents)).toEqual({ 1: 0, 2: 1 });
  });

  it('fill a row only where the record says nothing', () => {
    const facts = { os: { id: '3', name: 'Debian 12' }, virtual: true };
    expect(withViewFacts({ name: 'a', virtual: null }, facts)).toEqual({ name: 'a', virtual: true, operating_system: 'Debian 12', 'operating_system.id': ['3'] });
    expect(withViewFacts({ operating_system: 'AIX', 'operating_system.id': ['9'], virtual: false }, facts)).toEqual({ operating_system: 'AIX', 'operating_system.id': ['9'], virtual: false });
  });

  it('give columns from the configured views: site, room, rack, maintainer, serial, arch, model (several terms a list)', () => {
    const views: [string, string][] = [
      ['by_location', 'site:4'],
      ['by_location', 'room:41'],
      ['by_location', 'rack:41-07'],
      ['by_maintainer', '112'],
      ['by_serial_number', 'SN1'],
      ['by_arch', 'x86_64'],
      ['by_fullmodel', 'Dell'],
      ['by_fullmodel', 'PowerEdge'],
    ];
    const columns = views.map(([param, value]) => viewColumn(param, value)!);
    expect(withViewFacts({ name: 'a', arch: 'arm64' }, { columns })).toEqual({ name: 'a', site: '4', room: '41', rack: '41-07', maintainer: '112', serial_number: 'SN1', arch: 'arm64', model: ['Dell', 'PowerEdge'] });
    expect(viewColumn('by_location', 'floor:2')).toBeUndefined();
    expect(viewColumn('by_system', '3')).toBeUndefined();
  });
});

describe('table chunks', () => {
  it('are a power of two, and a chunk holds whole detail buckets', () => {
    expect([0, 1, 4096, 4097, 20_000, 200_000].map(tableChunkCount)).toEqual([1, 1, 1, 2, 8, 64]);
    const chunks = tableChunkCount(20_000);
    const buckets = bucketCount(20_000);
    for (const id of ['1', '1000', 'x/y', 'é']) expect(bucketOf(id, buckets) % chunks).toBe(chunkOf(id, chunks));
  });

  it('code columns whose values repeat, and keep others as they are', () => {
    const rows = Array.from({ length: 9 }, (_, i) => ({ name: `s${i}`, os: i % 2 ? 'Linux' : 'AIX', ...(i === 0 ? { only: 'x' } : {}) }));
    const table = toColumns(
      rows.map((_, i) => String(i)),
      rows,
    );
    expect(table.columns).toEqual([
      ['name', rows.map((r) => r.name)],
      ['os', [0, 1, 0, 1, 0, 1, 0, 1, 0], ['AIX', 'Linux']],
      ['only', [0, 1, 1, 1, 1, 1, 1, 1, 1], ['x', null]],
    ]);
  });

  it('are scripts that hand ids and columns to IM_TABLE, a "__proto__" column included, behind a fingerprint header', () => {
    const fingerprint = chunkFingerprint([1, 1], [['1', 'digest', 'sha']]);
    const script = tableScript('servers', 0, fingerprint, toColumns(['1'], [{ __proto__: 'p', name: 'web' } as never]));
    expect(readChunkHeader(Buffer.from(script))).toBe(fingerprint);
    expect(run(script, 'IM_TABLE')).toEqual([['servers', 0, ['1'], [['name', ['web']]]]]);
    const odd = tableScript('servers', 0, fingerprint, toColumns(['1'], [JSON.parse('{"__proto__":"p"}') as never]));
    expect(run(odd, 'IM_TABLE')).toEqual([['servers', 0, ['1'], [['__proto__', ['p']]]]]);
  });

  it('fingerprints change with any member, its list item or its record file, and with the layout', () => {
    const base = chunkFingerprint([8, 128], [['1', 'a', 'x']]);
    expect(chunkFingerprint([8, 128], [['1', 'a', 'x']])).toBe(base);
    for (const other of [chunkFingerprint([8, 128], [['2', 'a', 'x']]), chunkFingerprint([8, 128], [['1', 'b', 'x']]), chunkFingerprint([8, 128], [['1', 'a', 'y']]), chunkFingerprint([16, 128], [['1', 'a', 'x']])])
      expect(other).not.toBe(base);
  });
});

describe('the change history', () => {
  const records = { applications: 1, databases: 0, operating_systems: 0, servers: 2, appservers: 0 };

  it('keeps what each changed field was and became, and names added and removed records', () => {
    const changes = emptyChangeSet();
    changes.servers.added.push('3');
    changes.servers.removed.push('2');
    changes.servers.changed.push('1');
    changes.servers.names = { '1': 'web-1', '2': 'old-2', '3': 'new-3' };
    changes.servers.fields['1'] = [
      { path: 'memory_GB', old: 64, new: 128 },
      { path: 'extended_attributes.cost_center', new: 'CC-1' },
      { path: 'location', old: { site: '1' }, new: null },
    ];
    const entry = historyEntry('2026-01-02T03:04:05.000Z', changes, records, false);
    expect(entry.resources).toEqual({
      servers: {
        counts: { added: 1, removed: 1, changed: 1 },
        added: [['3', 'new-3']],
        removed: [['2', 'old-2']],
        changed: [
          [
            '1',
            'web-1',
            [
              ['memory_GB', 64, 128],
              ['extended_attributes.cost_center', null, 'CC-1'],
              ['location', '{"site":"1"}', null],
            ],
          ],
        ],
      },
    });
  });

  it('round-trips through its script, newest first and bounded; a script not ours reads as none', () => {
    let history = parseHistoryScript(undefined);
    expect(history).toBeUndefined();
    for (let i = 0; i < 40; i++) history = addHistoryEntry(history, historyEntry(`2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z`, emptyChangeSet(), records, i === 0));
    const script = historyScript(history!);
    expect(parseHistoryScript(Buffer.from(script))).toEqual(history);
    expect(history!.entries).toHaveLength(30);
    expect(history!.entries[0]!.at).toBe('2026-01-01T00:00:39.000Z');
    expect(run(script, 'IM_HISTORY')).toEqual([[history]]);
    expect(parseHistoryScript(Buffer.from('IM_HISTORY(JSON.parse("{}"));\n'))).toBeUndefined();
    expect(parseHistoryScript(Buffer.from('alert(1)'))).toBeUndefined();
  });
});

describe('data.js', () => {
  it('holds counts and file layout per resource and the findings, largest first', () => {
    const summary = { count: 0, chunks: 1, buckets: 1 };
    const quality = {
      findings: [
        { resource: 'servers', field: 'ip', code: 'null', count: 1, share: 0.5, ids: ['1'] },
        { resource: 'servers', field: 'name', code: 'missing', count: 2, share: 1, ids: ['1', '2'] },
      ],
      shape: {},
    } as never;
    const script = dataScript({ applications: summary, databases: summary, operating_systems: summary, servers: { count: 2, chunks: 1, buckets: 1 }, appservers: summary }, quality);
    const window: { IM_DATA?: { resources: Record<string, unknown>; quality: { findings: { code: string }[] } } } = {};
    new Function('window', script)(window);
    expect(window.IM_DATA!.resources.servers).toEqual({ singular: 'server', count: 2, chunks: 1, buckets: 1 });
    expect(window.IM_DATA!.quality.findings.map((f) => f.code)).toEqual(['missing', 'null']);
  });
});

describe('back links and the search index', () => {
  const chunk = (resource: 'applications' | 'appservers' | 'databases' | 'operating_systems', rows: [string, Record<string, unknown>][]) =>
    decodeTableScript(tableScript(resource, 0, 'f', toColumns(rows.map(([id]) => id), rows.map(([, single]) => tableRow(undefined, single)))))!;
  const none: Omit<LinkInput, 'servers'> = { applications: [], appservers: [], databases: [], operatingSystems: [], databaseKeys: new Map(), systemServers: new Map() };
  const plain = (m: Map<string, Map<string, [string, string][]>>) => Object.fromEntries([...m].map(([id, kinds]) => [id, Object.fromEntries(kinds)]));

  it('a server gets the applications whose instances name it, the appservers on it and the databases it hosts; an application and an appserver their servers', () => {
    const servers: [string, string][] = [['1', 'web-1'], ['2', 'db-1'], ['3', 'twin'], ['4', 'twin']];
    const links = backLinks({
      ...none,
      servers,
      applications: [chunk('applications', [['a1', { name: 'billing', application_instances: [{ name: 'billing-prd', servers: ['web-1', 'twin', 'gone'] }] }]])],
      appservers: [chunk('appservers', [['x1', { name: 'tomcat-1', server_id: '1' }], ['x2', { name: 'orphan', server_id: '99' }]])],
      databases: [chunk('databases', [['d1', { name: 'pg', servers: [{ id: '2', name: 'db-1' }] }]])],
    });
    expect(plain(links.servers)).toEqual({
      '1': { applications: [['a1', 'billing']], appservers: [['x1', 'tomcat-1']] },
      '2': { databases: [['d1', 'pg']] },
      '3': { applications: [['a1', 'billing']] },
      '4': { applications: [['a1', 'billing']] },
    });
    expect(plain(links.applications)).toEqual({ a1: { servers: [['1', 'web-1'], ['3', 'twin'], ['4', 'twin']] } });
    expect(plain(links.appservers)).toEqual({ x1: { servers: [['1', 'web-1']] } });
    expect(plain(links.databases)).toEqual({ d1: { servers: [['2', 'db-1']] } });
    // Split by the detail buckets' hash, sorted by id in each script: the same links, the same bytes.
    const buckets = bucketLinks(links.servers, 2);
    expect(buckets.reduce((n, b) => n + b.size, 0)).toBe(4);
    for (const [b, bucket] of buckets.entries()) for (const id of bucket.keys()) expect(bucketOf(id, 2)).toBe(b);
    const [[, , rows]] = run(linksScript('servers', 0, links.servers), 'IM_LINKS') as [[string, number, [string, unknown][]]];
    expect(rows.map(([id]) => id)).toEqual(['1', '2', '3', '4']);
  });

  it('a database gets the appservers whose dbconn_* name one of its hosts and schemas, and their servers; an appserver its databases', () => {
    const dbs = [
      { id: 'd1', name: 'sales-db', servers: [{ id: '2', name: 'db-1' }], instances: [{ id: 'i1', name: 'pg1', host_alias: 'DB-1.example.net', listen_address: '10.0.0.9', databases: { sales: 1 } }] },
      { id: 'd2', name: 'hr-db', server_names: ['db-2'], instances: [] },
    ];
    const links = backLinks({
      ...none,
      servers: [['1', 'web-1'], ['2', 'db-1'], ['3', 'web-3']],
      databases: [chunk('databases', dbs.map((d) => [d.id, d]))],
      appservers: [
        chunk('appservers', [
          ['x1', { name: 'by-server', dbconn_server: 'db-1.example.net:5432', dbconn_db: 'sales', server_id: '1' }],
          ['x2', { name: 'by-url', dbconn_url: 'kind://u@10.0.0.9:5432/sales', server_id: '3' }],
          ['x3', { name: 'other-schema', dbconn_server: 'db-1.example.net', dbconn_db: 'hr', server_id: '1' }],
          ['x4', { name: 'on-db-2', dbconn_server: 'DB-2', dbconn_db: 'anything', server_id: '3' }],
        ]),
      ],
      databaseKeys: new Map(dbs.map((d) => [d.id, databaseKeys(d)])),
    });
    expect(plain(links.databases)).toEqual({
      d1: { servers: [['2', 'db-1']], appservers: [['x1', 'by-server'], ['x2', 'by-url']], appserver_servers: [['1', 'web-1'], ['3', 'web-3']] },
      d2: { appservers: [['x4', 'on-db-2']], appserver_servers: [['3', 'web-3']] },
    });
    expect(plain(links.appservers).x2).toEqual({ servers: [['3', 'web-3']], databases: [['d1', 'sales-db']] });
    // Forty appservers on twenty servers reach one database: each server listed once.
    const hosts = Array.from({ length: 20 }, (_, i): [string, string] => [`s${i}`, `app-${i}`]);
    const many = backLinks({
      ...none,
      servers: hosts,
      databases: [chunk('databases', [['d2', dbs[1]!]])],
      appservers: [chunk('appservers', Array.from({ length: 40 }, (_, i): [string, Record<string, unknown>] => [`y${i}`, { name: `y${i}`, dbconn_server: 'db-2', server_id: `s${i % 20}` }]))],
      databaseKeys: new Map([['d2', databaseKeys(dbs[1]!)]]),
    });
    expect(plain(many.databases).d2!.appservers).toHaveLength(40);
    expect(plain(many.databases).d2!.appserver_servers).toEqual(hosts);
    expect(urlHost('dbconn:kind://db-x.example.net:1521/app')).toBe('db-x.example.net');
    expect(connectionOf(null, 'jdbc:thin:@db-y:1521:X', 'APP')).toEqual({ host: 'db-y', schema: 'app' });
    expect(databaseMatcher(new Map([['d', databaseKeys({ server_names: ['h'] })]]))({ host: 'h', schema: 'x' })).toEqual(['d']);
  });

  it('an operating system gets the servers of its by_system view and its child systems; a links file keeps the first LINKS_KEPT and the count', () => {
    const many = Array.from({ length: LINKS_KEPT + 5 }, (_, i): [string, string] => [`s${i}`, `host-${i}`]);
    const links = backLinks({
      ...none,
      servers: many,
      operatingSystems: [chunk('operating_systems', [['debian', { name: 'Debian' }], ['deb11', { name: 'Debian 11', parent: { id: 'debian', name: 'Debian' } }], ['self', { name: 'Loop', parent: { id: 'self', name: 'Loop' } }]])],
      systemServers: new Map([
        ['debian', { first: many.map(([id]) => id).concat('gone'), count: many.length + 1 }],
        ['deb11', { first: ['s1'], count: 1 }],
        ['unknown', { first: ['s2'], count: 1 }],
      ]),
    });
    expect(plain(links.operating_systems).deb11).toEqual({ servers: [['s1', 'host-1']] });
    expect(plain(links.operating_systems).debian!.children).toEqual([['deb11', 'Debian 11']]);
    expect(plain(links.operating_systems).debian!.servers).toHaveLength(LINKS_KEPT);
    expect([...links.operating_systems.keys()].sort()).toEqual(['deb11', 'debian']);
    const [[, , rows]] = run(linksScript('operating_systems', 0, links.operating_systems), 'IM_LINKS') as [[string, number, [string, [string, unknown[], number?][]][]]];
    const debian = new Map(rows.find(([id]) => id === 'debian')![1].map(([kind, refs, total]) => [kind, { shown: refs.length, total }]));
    // The count is the view's: a server the list lacks (`gone`) is counted, not linked.
    expect(debian.get('servers')).toEqual({ shown: LINKS_KEPT, total: LINKS_KEPT + 6 });
    expect(debian.get('children')).toEqual({ shown: 1, total: undefined });
  });

  it('reads a detail bucket back, ids such as __proto__ included', () => {
    const records = new Map<string, unknown>([['__proto__', { name: 'odd' }], ['7', { name: 'seven' }]]);
    expect(decodeBucketScript(bucketScript('databases', 3, records))).toEqual(records);
    expect(decodeBucketScript('not a bucket').size).toBe(0);
  });

  it('the search index holds the searched fields only, per field one text per row, coded where few values repeat', () => {
    const rows = [
      tableRow(undefined, { name: 'web-1', ip: '10.0.0.1', memory_GB: 8, dns: null, hypervisor_name: 'kvm-1' }),
      tableRow(undefined, { ip: '10.0.0.2', memory_GB: 16, server_names: ['a', 'b'], hypervisor_name: 'kvm-1' }),
      tableRow(undefined, { name: 'web-3', ip: '10.0.0.3', hypervisor_name: 'kvm-1' }),
    ];
    const [call] = run(searchScript('servers', 3, ['1', '2', '3'], rows), 'IM_SEARCH');
    expect(call).toEqual(['servers', 3, ['1', '2', '3'], ['name', 'ip', 'hypervisor_name', 'server_names'], [[['web-1', '2', 'web-3']], [['10.0.0.1', '10.0.0.2', '10.0.0.3']], [[0, 0, 0], ['kvm-1']], [['', 'a, b', '']]]]);
  });
});
