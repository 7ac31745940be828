import { describe, expect, it } from 'vitest';
import { buildChangeSet, classifyTables, diffValues, emptyChangeSet, withFindings } from '../../src/diff/engine.js';
import { commitMessage } from '../../src/git/message.js';
import type { Quality } from '../../src/validate/quality.js';
import { changeSetOf } from '../../src/diff/read.js';
import { sha256 } from '../../src/snapshot/manifest.js';
import { FileTable } from '../../src/snapshot/table.js';
import { findingLines, formatChangeLine, formatReport } from '../../src/diff/format.js';
import { addEntry, changeEntry, initialEntry } from '../../src/diff/history.js';
import { encodeJson } from '../../src/json/encode.js';
import { recordFile } from '../../src/snapshot/paths.js';

const server = (id: string, extra: Record<string, unknown> = {}): Buffer => encodeJson({ server: { id, name: `srv-${id}`, memory_GB: 16, extended_attributes: { cost_center: 'CC-1' }, ...extra } });

describe('diffValues', () => {
  it('gives nested paths, array indexes and absent sides', () => {
    expect(
      diffValues(
        { memory_GB: 16, extended_attributes: { cost_center: 'CC-1', 'odd key': 1 }, instances: [{ version: '8.0' }, { version: '5.7' }, { version: '1' }], gone: true },
        { memory_GB: 32, extended_attributes: { cost_center: 'CC-1', 'odd key': 2 }, instances: [{ version: '8.0' }, { version: '5.8' }], added: null },
      ),
    ).toEqual([
      { path: 'added', new: null },
      { path: 'extended_attributes["odd key"]', old: 1, new: 2 },
      { path: 'gone', old: true },
      { path: 'instances[1].version', old: '5.7', new: '5.8' },
      { path: 'instances[2]', old: { version: '1' } },
      { path: 'memory_GB', old: 16, new: 32 },
    ]);
  });

  it('finds nothing in equal values', () => {
    expect(diffValues({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toEqual([]);
  });
});

describe('change sets', () => {
  const longId = 'x'.repeat(300);
  const before = new Map<string, Buffer>([
    [recordFile('servers', '1'), server('1')],
    [recordFile('servers', '2'), server('2')],
    [recordFile('servers', longId), server(longId)],
    ['servers.json', encodeJson({ servers: [{ id: '1' }, { id: '2' }] })],
  ]);
  const after = new Map<string, Buffer>([
    [recordFile('servers', '1'), server('1', { memory_GB: 32 })],
    [recordFile('servers', '10'), server('10')],
    [recordFile('servers', longId), server(longId)],
    ['servers.json', encodeJson({ servers: [{ id: '10' }, { id: '1' }] })],
    ['_meta/changes.json', encodeJson({})],
  ]);
  const table = (files: Map<string, Buffer>): FileTable => {
    const out = new FileTable();
    for (const [path, bytes] of files) out.set(path, sha256(bytes), bytes.length);
    return out;
  };
  /** A reader that records what it was asked for. */
  const reader = (files: Map<string, Buffer>, asked: string[]) => async (path: string) => {
    asked.push(path);
    return files.get(path);
  };

  it('lists ids added, removed and changed from record files only, with field details and names', async () => {
    const paths = classifyTables(table(before), table(after));
    const read: string[] = [];
    const changes = await changeSetOf(paths, reader(before, read), reader(after, read));
    expect(changes.servers).toEqual({ added: ['10'], removed: ['2'], changed: ['1'], fields: { '1': [{ path: 'memory_GB', old: 16, new: 32 }] }, names: { '1': 'srv-1', '2': 'srv-2', '10': 'srv-10' }, findings: { appeared: [], fixed: [] } });
    expect(changes.databases).toEqual({ added: [], removed: [], changed: [], fields: {}, names: {}, findings: { appeared: [], fixed: [] } });
    // Lists and other files are never read; only record files that changed, came or went.
    expect(read.every((p) => p.startsWith('servers/'))).toBe(true);
    expect(formatChangeLine(changes)).toBe('servers +1 -1 ~1');
    expect(formatReport(changes, 'a', 'b')).toContain('      memory_GB: 16 → 32');
  });

  it('a first snapshot reads no file but those whose name is a shortened long id, whose id comes from the record', async () => {
    const read: string[] = [];
    const changes = await changeSetOf(classifyTables(undefined, table(before)), reader(new Map(), read), reader(before, read), { initial: true });
    expect(read).toEqual([recordFile('servers', longId)]);
    expect(changes.servers.added).toEqual(['1', '2', longId]);
  });

  it('keeps a bounded history, newest first', () => {
    const changes = buildChangeSet(classifyTables(table(before), table(after)), before, after);
    let history = addEntry(undefined, initialEntry('t0', { applications: 1, databases: 0, operating_systems: 0, servers: 3, appservers: 0 }), 2);
    history = addEntry(history, changeEntry('t1', changes), 2);
    history = addEntry(history, changeEntry('t2', changes), 2);
    expect(history.changes.map((e) => e.at)).toEqual(['t2', 't1']);
    expect(history.changes[0]).toEqual({
      at: 't2',
      counts: { servers: { added: 1, removed: 1, changed: 1 } },
      resources: { servers: { added: ['10'], removed: ['2'], changed: [{ id: '1', fields: ['memory_GB'] }] } },
    });
    expect(formatChangeLine(buildChangeSet(classifyTables(table(before), table(before)), before, before))).toBe('none');
  });
});

describe('finding changes', () => {
  const quality = (groups: Array<[string, string, string[]]>): Quality => ({
    format: 1,
    records: { applications: 0, databases: 0, operating_systems: 0, servers: 9, appservers: 0 },
    shape: {},
    findings: groups.map(([field, code, ids]) => ({ resource: 'servers' as const, field, code: code as Quality['findings'][number]['code'], count: ids.length, share: 0, ids })),
  });

  it('tells the records that gained and lost a finding, per field and code', () => {
    const before = quality([['hostname', 'null', ['1', '2']], ['os_id', 'dangling_ref', ['5']]]);
    const after = quality([['hostname', 'null', ['2', '3', '4']]]);
    const changes = withFindings(emptyChangeSet(), before, after);
    expect(changes.servers.findings).toEqual({
      appeared: [{ field: 'hostname', code: 'null', ids: ['3', '4'] }],
      fixed: [{ field: 'hostname', code: 'null', ids: ['1'] }, { field: 'os_id', code: 'dangling_ref', ids: ['5'] }],
    });
    expect(findingLines(changes)).toEqual(['+ servers hostname null: 2 records (3, 4)', '- servers hostname null: 1 record (1)', '- servers os_id dangling_ref: 1 record (5)']);
    // Records unchanged, findings moved: the report and the commit body both say so.
    expect(formatReport(changes, 'a', 'b')).toContain('data-quality findings:\n  + servers hostname null: 2 records (3, 4)');
    expect(commitMessage(changes, { prefix: 'inventory:', initial: false })).toContain('no record changed\n\ndata-quality findings:\n+ servers hostname null');
    expect(withFindings(emptyChangeSet(), after, after).servers.findings).toEqual({ appeared: [], fixed: [] });
  });

  it('tells them alike from ids in id order and from a report that lists them otherwise', () => {
    const sorted = quality([['hostname', 'null', ['2', '9', '10', '300', 'a-1', 'b']]]);
    const moved = (): Quality => quality([['hostname', 'null', ['9', '11', '300', '1000', 'b', 'c']]]);
    const expected = { appeared: [{ field: 'hostname', code: 'null', ids: ['11', '1000', 'c'] }], fixed: [{ field: 'hostname', code: 'null', ids: ['2', '10', 'a-1'] }] };
    expect(withFindings(emptyChangeSet(), sorted, moved()).servers.findings).toEqual(expected);
    // Written by hand, out of order: the same records, in the report's order.
    const unsorted = quality([['hostname', 'null', ['b', '300', '10', 'a-1', '2', '9']]]);
    expect(withFindings(emptyChangeSet(), unsorted, moved()).servers.findings).toEqual({ ...expected, fixed: [{ ...expected.fixed[0], ids: ['10', 'a-1', '2'] }] });
  });
});
