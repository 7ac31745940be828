/**
 * The recipes of docs/operations.md, run as written with their paths moved into a temporary
 * folder: the folder set-up, then the cron line exactly as the cron block writes it, under cron's
 * own environment (`env -i PATH=/usr/bin:/bin`), and the systemd units through
 * `systemd-analyze verify` where it is installed. `npm install -g .` is stood in for by a link in
 * a temporary prefix, which the recipes find through `$(npm prefix -g)` as they would the real one.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';

const DOC = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');

/** The code block after `<!-- recipe: NAME -->`. */
function recipe(name: string): string {
  const match = new RegExp(`<!-- recipe: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\\n\`\`\``).exec(DOC);
  if (!match) throw new Error(`docs/operations.md has no recipe block "${name}"`);
  return match[1]!;
}

/** The machine's paths in a recipe, moved under `root`. */
function moved(text: string, root: string, url: string): string {
  return text
    .replaceAll('$(npm prefix -g)', join(root, 'prefix'))
    .replaceAll('/srv/mirror', join(root, 'srv'))
    .replaceAll('/etc/inventory-mirror/token', join(root, 'token'))
    .replaceAll('/etc/cron.d/', `${join(root, 'cron.d')}/`)
    .replaceAll('/etc/systemd/system/', `${join(root, 'systemd')}/`)
    .replaceAll('https://cmdb.example.com/api', url);
}

function sh(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // Async: the simulated service runs in this process and must go on answering.
    const child = spawn('/bin/sh', ['-ec', script], { env, timeout: 90_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A temporary machine: the command "installed" in a prefix of its own, the token, the folders. */
function machine(): string {
  const root = tempDir();
  for (const dir of ['prefix/bin', 'srv', 'cron.d', 'systemd']) mkdirSync(join(root, dir), { recursive: true });
  const bin = join(root, 'prefix', 'bin', 'inventory-mirror');
  // What `npm install -g .` makes: an executable command that runs dist/cli.js with the node on PATH.
  writeFileSync(bin, `#!/bin/sh\nexec /usr/bin/env node ${JSON.stringify(CLI)} "$@"\n`);
  chmodSync(bin, 0o755);
  writeFileSync(join(root, 'token'), `${TOKEN}\n`, { mode: 0o640 });
  return root;
}

// Cron's PATH is /usr/bin:/bin: the recipe says node must be there.
const cronFindsNode = existsSync('/usr/bin/node') || existsSync('/bin/node');
const systemdAnalyze = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((path) => existsSync(path));
const upstream = await useUpstream({ scale: 20 });

describe('docs/operations.md', () => {
  it.skipIf(!cronFindsNode)('the folder set-up, then the cron line under env -i PATH=/usr/bin:/bin: the sync publishes, commits and writes its metrics', async () => {
    const root = machine();
    const env = { PATH: '/usr/bin:/bin', HOME: root };
    const folder = await sh(moved(recipe('folder'), root, upstream.url), env);
    expect(folder.code, folder.stderr).toBe(0);
    const cron = await sh(moved(recipe('cron'), root, upstream.url), env);
    expect(cron.code, cron.stderr).toBe(0);
    const lines = readFileSync(join(root, 'cron.d', 'inventory-mirror'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    // Minute, hour, day, month, weekday, user; then the command as cron's sh runs it.
    const fields = lines[0]!.split(/\s+/);
    expect(fields[5]).toBe('inventory');
    const command = fields.slice(6).join(' ');
    const run = await sh(`exec env -i PATH=/usr/bin:/bin /bin/sh -c ${JSON.stringify(command).replaceAll('$', '\\$')}`, env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(existsSync(join(root, 'srv', 'output', '_meta', 'manifest.json'))).toBe(true);
    expect(readFileSync(join(root, 'srv', 'inventory_mirror.prom'), 'utf8')).toMatch(/^inventory_mirror_last_run_status\{status="published"\} 1$/m);
    const log = await sh(`git -C ${JSON.stringify(join(root, 'srv'))} log --oneline`, env);
    expect(log.stdout.trim().split('\n')).toHaveLength(1);
  }, 120_000);

  it.skipIf(!systemdAnalyze)('the systemd units pass systemd-analyze verify with the command where the install put it', async () => {
    const root = machine();
    const env = { PATH: '/usr/bin:/bin', HOME: root };
    const units = await sh(moved(recipe('systemd'), root, upstream.url), env);
    expect(units.code, units.stderr).toBe(0);
    const service = readFileSync(join(root, 'systemd', 'inventory-mirror.service'), 'utf8');
    expect(service).toContain(`ExecStart=${join(root, 'prefix', 'bin', 'inventory-mirror')} sync `);
    const verify = await sh(`${systemdAnalyze} verify ${join(root, 'systemd', 'inventory-mirror.service')} ${join(root, 'systemd', 'inventory-mirror.timer')}`, env);
    expect(verify.stderr).toBe('');
    expect(verify.code).toBe(0);
  });

  it('every recipe derives the command from npm prefix -g, never a fixed /usr/local/bin', () => {
    for (const name of ['install', 'cron', 'systemd']) {
      expect(recipe(name)).toContain('BIN="$(npm prefix -g)/bin/inventory-mirror"');
      expect(recipe(name)).not.toContain('/usr/local/bin');
    }
  });
});
