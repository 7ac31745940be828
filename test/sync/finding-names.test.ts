/**
 * Findings name records by name beside id: the summary's examples (`12 (web-01)`), each line of
 * --warnings-file, and a `names` array beside `ids` in _meta/quality.json, which stays
 * byte-identical on a re-sync of unchanged data.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeGroup } from '../../src/sync/result.js';
import { formatSummary } from '../../src/sync/summary.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { treeState } from '../helpers/tree.js';
import { useUpstream } from '../helpers/upstream.js';

interface Group {
  resource: string;
  field: string;
  code: string;
  ids: string[];
  names?: string[];
}

/** Each record's name by id, from the published list. */
function listNames(out: string, resource: string): Map<string, string> {
  const body = JSON.parse(readFileSync(join(out, `${resource}.json`), 'utf8')) as Record<string, { id: string; name?: unknown }[]>;
  return new Map(body[resource]!.flatMap((item) => (typeof item.name === 'string' && item.name ? [[item.id, item.name] as [string, string]] : [])));
}

describe('names beside ids in findings', () => {
  it('in _meta/quality.json, --warnings-file and the summary; quality.json byte-stable', async () => {
    const upstream = await useUpstream({ scale: 60, profile: 'realistic' });
    const out = tempDir();
    const warnings = join(tempDir(), 'warnings.jsonl');
    const result = await syncInto(upstream, out, { warningsFile: warnings });

    const quality = JSON.parse(readFileSync(join(out, '_meta/quality.json'), 'utf8')) as { findings: Group[] };
    const named = quality.findings.filter((g) => g.names);
    expect(named.length).toBeGreaterThan(0);
    for (const group of named) {
      const names = listNames(out, group.resource);
      expect(group.names).toEqual(group.ids.map((id) => names.get(id) ?? ''));
    }

    // Every line of a record that has a name carries it, right after the id.
    const lines = readFileSync(warnings, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { resource: string; id: string; name?: string });
    const servers = listNames(out, 'servers');
    const serverLines = lines.filter((line) => line.resource === 'servers' && servers.has(line.id));
    expect(serverLines.length).toBeGreaterThan(0);
    for (const line of serverLines) {
      expect(line.name).toBe(servers.get(line.id));
      expect(Object.keys(line).slice(0, 3)).toEqual(['resource', 'id', 'name']);
    }

    // The summary's examples: `12 (web-01)`, the name from the list.
    const example = result.findings.groups.flatMap((g) => g.examples.map((e) => ({ ...e, resource: g.resource }))).find((e) => e.name !== undefined)!;
    expect(example.name).toBe(listNames(out, example.resource).get(example.id));
    const top = result.findings.groups[0]!.examples[0]!;
    const summary = formatSummary(result, 'sim');
    expect(summary).toContain(`e.g. ${top.id}${top.name === undefined ? '' : ` (${top.name}`}`);
    expect(describeGroup({ ...result.findings.groups[0]!, examples: [{ id: '12', name: 'web-01' }, { id: '15', name: 'web-02', value: '"x"' }, { id: '19' }] })).toMatch(/e\.g\. 12 \(web-01\), 15 \(web-02: "x"\), 19$/);

    const before = (await treeState(out)).get('_meta/quality.json');
    const again = await syncInto(upstream, out);
    expect(again.status).toBe('unchanged');
    expect((await treeState(out)).get('_meta/quality.json')).toEqual(before);
  });
});

describe('a damaged _meta/quality.json', () => {
  it('is not carried from: the re-sync checks every record again and writes the report back as it was', async () => {
    const upstream = await useUpstream({ scale: 60, profile: 'realistic' });
    const out = tempDir();
    await syncInto(upstream, out);
    const path = join(out, '_meta/quality.json');
    const before = readFileSync(path);
    // Same length, one id changed: only the manifest's digest tells.
    writeFileSync(path, before.toString('utf8').replace(/"ids": \[\n(\s+)"(\d)/, (_, indent: string, digit: string) => `"ids": [\n${indent}"${(Number(digit) + 1) % 10}`));
    expect(readFileSync(path).equals(before)).toBe(false);

    // Findings cannot be carried from it: no record may be kept on a 304.
    const again = await syncInto(upstream, out);
    expect(again.notModified).toBeLessThan(again.fetch.records / 2);
    expect(readFileSync(path).equals(before)).toBe(true);
    const third = await syncInto(upstream, out);
    expect(third.status).toBe('unchanged');
    expect(third.notModified).toBeGreaterThanOrEqual(third.fetch.records);
  });
});
