/**
 * The metrics file as monitoring reads it: a run that fails early (exit 2) is a failure, a failed
 * run keeps the snapshot's series, the run's retries and changes are there, a label tells two
 * mirrors apart, and a folder that does not exist is named as the user wrote it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';

const upstream = await useUpstream({ scale: 20 });
const env = { INVENTORY_API_TOKEN: TOKEN };

describe('--metrics-file', () => {
  it('a run that exits 2 (a missing token file) records a failure and keeps the records and findings of the snapshot', async () => {
    const dir = tempDir();
    const metrics = join(dir, 'inventory.prom');
    const out = join(dir, 'out');
    expect((await runCli(['sync', '--base-url', upstream.url, '--out', out, '-q', '--metrics-file', metrics], { env })).code).toBe(0);
    const ok = readFileSync(metrics, 'utf8');
    const records = ok.split('\n').filter((line) => line.startsWith('inventory_mirror_records{'));
    expect(records.length).toBeGreaterThan(0);
    const run = await runCli(['sync', '--base-url', upstream.url, '--out', out, '-q', '--metrics-file', metrics, '--token-file', join(dir, 'missing-token')]);
    expect(run.code).toBe(2);
    const failed = readFileSync(metrics, 'utf8');
    expect(failed).toMatch(/^inventory_mirror_last_run_success 0$/m);
    expect(failed).toMatch(/^inventory_mirror_last_run_status\{status="failed"\} 1$/m);
    for (const line of records) expect(failed).toContain(`${line}\n`);
    expect(failed).toMatch(/^inventory_mirror_findings\{accepted="false"\} \d+$/m);
  });

  it('counts the retries and the records added, removed and changed; --metrics-label adds mirror="NAME" to every sample', async () => {
    const dir = tempDir();
    const metrics = join(dir, 'inventory.prom');
    const run = await runCli(['sync', '--base-url', upstream.url, '--out', join(dir, 'out'), '-q', '--metrics-file', metrics, '--metrics-label', 'eu-west'], { env });
    expect(run.code, run.stderr).toBe(0);
    const text = readFileSync(metrics, 'utf8');
    expect(text).toMatch(/^inventory_mirror_last_run_retries\{mirror="eu-west"\} 0$/m);
    expect(text).toMatch(/^inventory_mirror_last_run_throttle_cuts\{mirror="eu-west"\} 0$/m);
    expect(text).toContain(`inventory_mirror_last_run_changes{mirror="eu-west",resource="servers",change="added"} ${upstream.counts().servers}\n`);
    expect(text).toContain('inventory_mirror_last_run_changes{mirror="eu-west",resource="servers",change="removed"} 0\n');
    for (const line of text.split('\n').filter((l) => l !== '' && !l.startsWith('#'))) expect(line).toMatch(/^inventory_mirror_[a-z_]+\{mirror="eu-west"[,}]/);
  });

  it('a metrics folder that does not exist: a warning naming the file as given, not a temp file', async () => {
    const dir = tempDir();
    const metrics = join(dir, 'no-such-folder', 'inventory.prom');
    const run = await runCli(['sync', '--base-url', upstream.url, '--out', join(dir, 'out'), '-q', '--metrics-file', metrics], { env });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`--metrics-file ${metrics}: cannot write it`);
    expect(run.stderr).not.toMatch(/\.tmp\b/);
  });
});
