/**
 * quality.accept as an operator writes it: a misspelt field is a configuration error with the
 * field meant (it would accept nothing, silently), the hint lists every pattern to paste, and
 * fields null for the same records are folded into one line.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';

const upstream = await useUpstream({ scale: 60, profile: 'realistic' });
const env = { INVENTORY_API_TOKEN: TOKEN };

function config(accept: string[]): string {
  const file = join(tempDir(), 'mirror.json');
  writeFileSync(file, JSON.stringify({ quality: { accept } }));
  return file;
}

describe('quality.accept', () => {
  it('a field the resource does not have but nearly does: exit 2, one line with the pattern meant', async () => {
    const run = await runCli(['sync', '--base-url', upstream.url, '--out', join(tempDir(), 'out'), '--config', config(['servers.ipp:null'])], { env });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('servers has no field "ipp"; did you mean "servers.ip:null"?');
  });

  it('a field far from every documented one may be one the service adds: accepted as written', async () => {
    const run = await runCli(['sync', '--base-url', upstream.url, '--out', join(tempDir(), 'out'), '-q', '--config', config(['servers.rack_position_label:null', 'appservers.dbconn_*:null'])], { env });
    expect(run.code, run.stderr).toBe(0);
  });

  it('the hint names every pattern, however many groups there are', async () => {
    const run = await runCli(['sync', '--base-url', upstream.url, '--out', join(tempDir(), 'out')], { env });
    expect(run.code, run.stderr).toBe(0);
    const groups = Number(/findings: \d+ in (\d+) groups/.exec(run.stdout)![1]);
    expect(groups).toBeGreaterThan(6);
    const hint = run.stdout.split('\n').find((line) => line.startsWith('  to accept them: '))!;
    expect(hint).not.toMatch(/more\)/);
    expect(hint.match(/"[a-z_]+(\.[^"]+)?:[a-z_]+"/g)).toHaveLength(groups);
  });

  it('fields null for the same records are one line of the summary, and -q warns about them once', async () => {
    const run = await runCli(['sync', '--base-url', upstream.url, '--out', join(tempDir(), 'out')], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/\n {4}appservers dbconn_db, dbconn_driver, dbconn_server, dbconn_url, dbconn_user null: \d+ records \(/);
    expect(run.stdout).not.toMatch(/\n {4}appservers dbconn_driver null/);
    const quiet = await runCli(['sync', '--base-url', upstream.url, '--out', join(tempDir(), 'out'), '-q'], { env });
    expect(quiet.stderr.match(/^warning: finding: appservers dbconn_/gm)).toHaveLength(1);
  });
});
