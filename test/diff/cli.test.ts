import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MutationReport } from '../../src/upstream/index.js';
import { RESOURCE_NAMES } from '../../src/spec/resources.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';


const upstream = await useUpstream({ scale: 60, seed: 3 });

describe('diff OLD NEW --json (built CLI)', () => {
  it('lists exactly the ids the mutation touched, with field details, and empty arrays for an unchanged pair', async () => {
    const root = tempDir();
    const out = join(root, 'out');
    const env = { INVENTORY_API_TOKEN: TOKEN };
    const first = await runCli(['sync', '--base-url', upstream.url, '--out', out], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('changes: first snapshot of this folder');
    const before = join(root, 'before');
    cpSync(out, before, { recursive: true });

    const report: MutationReport = upstream.mutate({ seed: 7, share: 0.05 });
    const reportFile = join(root, 'run-report.json');
    const second = await runCli(['sync', '--base-url', upstream.url, '--out', out, '--report', reportFile], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/changes: .*servers \+\d+ -\d+ ~\d+/);

    const diff = await runCli(['diff', before, out, '--json']);
    expect(diff.code, diff.stderr).toBe(0);
    const json = JSON.parse(diff.stdout) as Record<string, { added: string[]; removed: string[]; changed: string[]; fields: Record<string, { path: string }[]> }>;
    for (const r of RESOURCE_NAMES) {
      expect(json[r]!.added, r).toEqual(report.added[r]);
      expect(json[r]!.removed, r).toEqual(report.removed[r]);
      expect(json[r]!.changed, r).toEqual(report.changed[r]);
      for (const id of json[r]!.changed) expect(json[r]!.fields[id]!.length, `${r} ${id}`).toBeGreaterThan(0);
    }
    const changedServer = report.changed.servers[0]!;
    expect(json.servers!.fields[changedServer]!.map((f) => f.path).join(' ')).toMatch(/memory_GB|extended_attributes\.cost_center/);
    // The sync's own report is the same diff.
    expect(JSON.parse(readFileSync(reportFile, 'utf8'))).toEqual(json);

    const text = await runCli(['diff', before, out]);
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')[0]).toContain('changes from');

    const same = await runCli(['diff', out, out, '--json']);
    expect(same.code).toBe(0);
    expect(JSON.parse(same.stdout)).toEqual(Object.fromEntries(RESOURCE_NAMES.map((r) => [r, { added: [], removed: [], changed: [], fields: {}, names: {}, findings: { appeared: [], fixed: [] } }])));

    const notSnapshot = await runCli(['diff', root, out]);
    expect(notSnapshot.code).toBe(2);
    expect(notSnapshot.stderr).toContain('not a published snapshot');
  });
});
