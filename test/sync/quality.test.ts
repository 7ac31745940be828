/**
 * Real-shaped data: against the realistic simulator, the mirror's findings are exactly what the
 * service injected (nothing from fields only one view carries), accepted findings pass --strict,
 * the warnings file holds them all, run metadata stays bounded, and diff tells findings that
 * appeared or were fixed.
 */
import { cpSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HTTP_CACHE_FILE, LAST_SYNC_FILE, QUALITY_FILE } from '../../src/snapshot/paths.js';
import { RESOURCE_NAMES } from '../../src/spec/resources.js';
import type { InjectedReport, Upstream } from '../../src/upstream/index.js';
import { parseQuality, type Quality } from '../../src/validate/quality.js';
import { runCli } from '../helpers/cli.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { tokenFile, useUpstream } from '../helpers/upstream.js';

const key = (g: { resource: string; field: string; code: string }) => `${g.resource}.${g.field}:${g.code}`;
const byGroup = (groups: readonly { resource: string; field: string; code: string; ids: readonly string[] }[]) =>
  new Map(groups.map((g) => [key(g), [...g.ids].sort()]));

function quality(out: string): Quality {
  const parsed = parseQuality(readFileSync(join(out, QUALITY_FILE)));
  if (!parsed) throw new Error(`${out}: no quality report`);
  return parsed;
}

async function injected(upstream: Upstream): Promise<InjectedReport> {
  const response = await fetch(`${upstream.url}/_control/injected`);
  expect(response.status).toBe(200);
  return (await response.json()) as InjectedReport;
}

describe('a realistic service', () => {
  it('at 20 000 servers: findings equal what the service injected, none from one-view fields, run metadata bounded', async () => {
    const upstream = await useUpstream({ profile: 'realistic', scale: 20_000, seed: 3 });
    const out = tempDir();
    const first = await syncInto(upstream, out);
    const report = await injected(upstream);
    const published = quality(out);

    // Every group the service injected is found, with exactly its records, and nothing else.
    expect(byGroup(published.findings)).toEqual(byGroup(report.findings));
    expect(report.findings.length).toBeGreaterThan(5);
    // Fields that only one view carries are a fact about the service, told once per resource.
    expect(published.shape).toEqual(report.shape);
    for (const group of published.findings) {
      const shape = published.shape[group.resource];
      const top = group.field.split(/[.[]/)[0]!;
      expect(shape?.listOnly.includes(top) || shape?.singleOnly.includes(top), `${key(group)} comes from a one-view field`).toBeFalsy();
    }
    // The summary groups them: a screenful at most, largest first, and the total is every finding.
    expect(first.findings.total).toBe(report.findings.reduce((n, g) => n + g.ids.length, 0) + first.findings.groups.filter((g) => g.code === 'gone').reduce((n, g) => n + g.count, 0));
    expect(first.findings.groups.map((g) => g.count)).toEqual([...first.findings.groups.map((g) => g.count)].sort((a, b) => b - a));

    const records = RESOURCE_NAMES.reduce((n, r) => n + (first.records[r] ?? 0), 0);
    expect(first.records.servers).toBe(20_000);
    expect(statSync(join(out, LAST_SYNC_FILE)).size).toBeLessThan(1_000_000);
    expect(statSync(join(out, HTTP_CACHE_FILE)).size / records).toBeLessThan(150);

    // A re-sync of the unchanged service carries the same findings and rewrites nothing.
    const second = await syncInto(upstream, out);
    expect(second.status).toBe('unchanged');
    expect(second.findings.groups).toEqual(first.findings.groups);
    expect(quality(out)).toEqual(published);
  }, 300_000);

  it('--strict fails naming the largest finding, passes once the config accepts them all; --warnings-file holds every finding', async () => {
    const upstream = await useUpstream({ profile: 'realistic', scale: 400, seed: 8 });
    const report = await injected(upstream);
    const out = tempDir();
    const warnings = join(tempDir(), 'findings.jsonl');
    const base = ['sync', '--base-url', upstream.url, '--token-file', tokenFile(), '--out', out];

    const strict = await runCli([...base, '--strict', '--warnings-file', warnings]);
    expect(strict.code).toBe(1);
    const line = strict.stderr.trim().split('\n').at(-1)!;
    expect(line).toContain('strict: ');
    expect(line).toContain('nothing was published');
    const largest = [...report.findings].sort((a, b) => b.ids.length - a.ids.length)[0]!;
    expect(line).toContain(`${largest.ids.length} `);
    expect(line).toContain(largest.resource);
    expect(() => statSync(join(out, QUALITY_FILE))).toThrow();

    // One JSON object per finding: as many lines, per group, as records the service spoiled.
    const lines = readFileSync(warnings, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { resource: string; id: string; field: string; code: string });
    expect(byGroup([...new Map(lines.map((l) => [key(l), l])).values()].map((l) => ({ ...l, ids: lines.filter((m) => key(m) === key(l)).map((m) => m.id) })))).toEqual(byGroup(report.findings));

    const config = join(tempDir(), 'mirror.json');
    writeFileSync(config, JSON.stringify({ quality: { accept: report.findings.map(key) } }));
    const accepted = await runCli([...base, '--strict', '--config', config]);
    expect(accepted.stderr).toBe('');
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toMatch(/findings: (\d+) in \d+ groups? \(\1 accepted\)/);
    expect(byGroup(quality(out).findings)).toEqual(byGroup(report.findings));

    // Without --strict, the same findings are one warning line; the summary tells how to accept them.
    const plain = await runCli(['sync', '--base-url', upstream.url, '--token-file', tokenFile(), '--out', tempDir()]);
    expect(plain.code).toBe(0);
    expect(plain.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^warning: \d+ data-quality findings not accepted, in \d+ groups/)]);
    expect(plain.stdout).toContain('"quality": {"accept": [...]}');
  }, 120_000);

  it('after the service changes through its control endpoint, diff tells the findings that appeared and were fixed', async () => {
    const upstream = await useUpstream({ profile: 'realistic', scale: 600, seed: 4 });
    const out = tempDir();
    await syncInto(upstream, out);
    const before = await injected(upstream);
    const old = tempDir();
    cpSync(out, old, { recursive: true });

    const mutated = await fetch(`${upstream.url}/_control/mutate?share=0.2&seed=9`, { method: 'POST' });
    expect(mutated.status).toBe(200);
    await syncInto(upstream, out);
    const after = await injected(upstream);

    const diff = await runCli(['diff', old, out, '--json']);
    expect(diff.stderr).toBe('');
    const changes = JSON.parse(diff.stdout) as Record<string, { findings: { appeared: { field: string; code: string; ids: string[] }[]; fixed: { field: string; code: string; ids: string[] }[] } }>;
    const delta = (from: InjectedReport, to: InjectedReport) => {
      const had = byGroup(from.findings);
      const out = new Map<string, string[]>();
      for (const [k, ids] of byGroup(to.findings)) {
        const gained = ids.filter((id) => !had.get(k)?.includes(id));
        if (gained.length) out.set(k, gained);
      }
      return out;
    };
    const told = (kind: 'appeared' | 'fixed') =>
      new Map(RESOURCE_NAMES.flatMap((r) => changes[r]!.findings[kind].map((d): [string, string[]] => [key({ resource: r, ...d }), [...d.ids].sort()])));
    const appeared = delta(before, after);
    const fixed = delta(after, before);
    expect(appeared.size + fixed.size).toBeGreaterThan(0);
    expect(told('appeared')).toEqual(appeared);
    expect(told('fixed')).toEqual(fixed);

    const text = await runCli(['diff', old, out]);
    expect(text.stdout).toContain('data-quality findings:');
  }, 120_000);
});
