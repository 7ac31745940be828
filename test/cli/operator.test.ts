/**
 * The operator's first week (issue 14), through the built CLI: one clear line for every failure,
 * quiet cron mail, logs for collectors, metrics for monitoring, dry runs, diffs of git history,
 * Ctrl-C, and the install the README describes.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Output } from '../../src/cli/output.js';
import { CLI, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { treeState } from '../helpers/tree.js';
import { TOKEN, useUpstream } from '../helpers/upstream.js';

const env = { INVENTORY_API_TOKEN: TOKEN };
const upstream = await useUpstream({ scale: 30, seed: 4 });

/** A config file that makes retries quick. */
function fastConfig(extra: Record<string, unknown> = {}): string {
  const file = join(tempDir(), 'mirror.json');
  writeFileSync(file, JSON.stringify({ sync: { retries: 3, retryBaseMs: 5, retryMaxMs: 20 }, ...extra }));
  return file;
}

describe('one clear line for every mistake', () => {
  it('a mistyped flag is named once, with the flag meant', async () => {
    const result = await runCli(['sync', '--base-ur', 'http://x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("inventory-mirror sync: Unknown option '--base-ur'; did you mean --base-url? (see inventory-mirror sync --help)\n");
  });

  it('a config file that is not JSON is named with the line and column of the fault', async () => {
    const file = join(tempDir(), 'mirror.json');
    writeFileSync(file, '{\n  "out": "x",\n  sync: {}\n}\n');
    const result = await runCli(['sync', '--config', file], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/mirror\.json: not valid JSON: .* at line 3, column 3\n$/);
  });

  it('lists --version in the help, and prints the version', async () => {
    expect((await runCli(['--help'])).stdout).toMatch(/--version/);
    const version = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version as string;
    expect((await runCli(['--version'])).stdout).toBe(`${version}\n`);
  });

  it('every command the help lists loads and prints its own help', async () => {
    const top = (await runCli(['--help'])).stdout;
    const names = [...top.matchAll(/^ {2}([a-z-]+) {2,}\S/gm)].map((m) => m[1]!);
    expect(names).toContain('sync');
    expect(names).toContain('upstream');
    for (const name of names) {
      const result = await runCli([name, '--help']);
      expect(result.code, `${name}: ${result.stderr}`).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^Usage: inventory-mirror ${name} .*\\n\\n.+\\n\\nOptions:\\n`));
      // Its own options, not only --help: the command's module was loaded.
      expect(result.stdout.match(/^ {2}(-\w, | {4})--[a-z-]+/gm)?.length, name).toBeGreaterThan(1);
    }
  });

  it('keygen makes the folder of its prefix when missing, private to the user', async () => {
    const dir = tempDir();
    const result = await runCli(['keygen', '--out', 'keys/mirror'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(statSync(join(dir, 'keys', 'mirror.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'keys')).mode & 0o077).toBe(0);
  });

  it('a base URL that answers an HTML page or redirects fails at once, with a hint', async () => {
    const service = await useUpstream({ scale: 5 });
    // A login page for every path, as a wrong base URL (the web interface) gives.
    service.setFaults({ rate: 1, kinds: ['html'] });
    const html = await runCli(['sync', '--base-url', service.url, '--out', join(tempDir(), 'out'), '--config', fastConfig({ sync: { retries: 10, retryBaseMs: 5, retryMaxMs: 20 } })], { env });
    service.setFaults(undefined);
    expect(html.code).toBe(1);
    expect(html.stderr).toMatch(/answered a page that is not JSON \(content type text\/html; charset=utf-8\), 3 times: is the base URL right\?/);
    for (const list of ['applications', 'databases', 'operating_systems', 'servers', 'appservers']) service.override(`/${list}.json`, { status: 302, body: '', contentType: 'text/html' });
    const redirect = await runCli(['sync', '--base-url', service.url, '--out', join(tempDir(), 'out'), '--config', fastConfig()], { env });
    expect(redirect.code).toBe(1);
    expect(redirect.stderr).toMatch(/answered HTTP 302 without a Location: is the base URL right\?/);
  });
});

describe('quiet cron mail, logs for collectors', () => {
  it('an unreachable service: no line per retry off a terminal, one per retry with -v', async () => {
    const quiet = await runCli(['sync', '--base-url', 'http://127.0.0.1:9', '--out', join(tempDir(), 'out'), '--config', fastConfig()], { env });
    expect(quiet.code).toBe(1);
    expect(quiet.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^inventory-mirror sync: GET \/\w+\.json failed after 4 attempts: the service at http:\/\/127\.0\.0\.1:9 is unreachable/)]);
    const verbose = await runCli(['sync', '--base-url', 'http://127.0.0.1:9', '--out', join(tempDir(), 'out'), '--config', fastConfig(), '-v'], { env });
    expect(verbose.stderr.match(/^retrying GET /gm)!.length).toBeGreaterThanOrEqual(3);
  });

  it('-q prints nothing on success; --log-format json prints JSON lines only', async () => {
    const quiet = await runCli(['sync', '--base-url', upstream.url, '--out', join(tempDir(), 'out'), '-q'], { env });
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toBe('');
    const json = await runCli(['sync', '--base-url', upstream.url, '--out', join(tempDir(), 'out'), '--log-format', 'json'], { env });
    expect(json.code).toBe(0);
    expect(json.stdout).toBe('');
    const lines = json.stderr.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.at(-1)).toMatchObject({ level: 'info', command: 'sync', message: 'sync finished', result: { status: 'published', records: { servers: 30 } } });
    for (const line of lines) expect(line.time).toMatch(/^\d{4}-/);
  });

  it('progress and messages on a terminal never share a line', () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const output = new Output({ stream, isTTY: true, verbosity: 'normal', format: 'text', command: 'sync' });
    const progress = output.progress;
    progress.planned(10);
    for (let i = 0; i < 3; i++) progress.tick();
    output.detail('retrying GET /servers.json in 40 ms: HTTP 503');
    progress.done();
    // The progress line is cleared before the message, which ends its own line, then drawn again.
    expect(text).toMatch(/^\r\x1b\[Krequests 1\/10 \(\d+\/s, about [\d a-z]+ left\)\r\x1b\[Kretrying GET \/servers\.json in 40 ms: HTTP 503\nrequests 1\/10 \(\d+\/s, about [\d a-z]+ left\)\r\x1b\[K$/);
  });
});

describe('monitoring and planning', () => {
  it('--metrics-file: the run for node_exporter, replaced whole; a failure keeps the last success time', async () => {
    const dir = tempDir();
    const metrics = join(dir, 'inventory.prom');
    const out = join(dir, 'out');
    expect((await runCli(['sync', '--base-url', upstream.url, '--out', out, '-q', '--metrics-file', metrics], { env })).code).toBe(0);
    const ok = readFileSync(metrics, 'utf8');
    expect(ok).toMatch(/^inventory_mirror_last_run_success 1$/m);
    expect(ok).toMatch(/^inventory_mirror_records\{resource="servers"\} 30$/m);
    expect(ok).toMatch(/^inventory_mirror_last_run_status\{status="published"\} 1$/m);
    const success = /^inventory_mirror_last_success_timestamp_seconds (\d+)$/m.exec(ok)![1];
    expect((await runCli(['sync', '--base-url', 'http://127.0.0.1:9', '--out', out, '-q', '--metrics-file', metrics, '--config', fastConfig()], { env })).code).toBe(1);
    const failed = readFileSync(metrics, 'utf8');
    expect(failed).toMatch(/^inventory_mirror_last_run_success 0$/m);
    expect(failed).toMatch(new RegExp(`^inventory_mirror_last_success_timestamp_seconds ${success}$`, 'm'));
  });

  it('--dry-run says what would be written and removed, and publishes nothing', async () => {
    const service = await useUpstream({ scale: 20 });
    const out = join(tempDir(), 'out');
    expect((await runCli(['sync', '--base-url', service.url, '--out', out, '-q'], { env })).code).toBe(0);
    const before = await treeState(out);
    service.mutate({ seed: 9, share: 0.1 });
    const dry = await runCli(['sync', '--base-url', service.url, '--out', out, '--dry-run'], { env });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^dry run \(nothing published\): /);
    expect(dry.stdout).toMatch(/would write [1-9]\d*, remove [1-9]\d*, \d+ unchanged/);
    expect(await treeState(out)).toEqual(before);
  });
});

describe('git history that reads well', () => {
  const gitEnv = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
  const git = (cwd: string, ...args: string[]): Promise<string> =>
    new Promise((resolve, reject) => execFile('git', args, { cwd, env: { ...process.env, ...gitEnv } }, (error, stdout) => (error ? reject(error) : resolve(stdout))));

  it('diff compares two revisions of a folder kept in git, names records by name, and --exit-code tells whether anything changed', async () => {
    const service = await useUpstream({ scale: 20, seed: 6 });
    const repo = tempDir();
    await git(repo, 'init', '--quiet');
    const out = join(repo, 'mirror');
    const sync = () => runCli(['sync', '--git', '--base-url', service.url, '--out', out, '-q', '--browser'], { env: { ...env, ...gitEnv } });
    expect((await sync()).code).toBe(0);
    const report = service.mutate({ seed: 2, share: 0.05 });
    expect((await sync()).code).toBe(0);
    const changed = report.changed.servers[0]!;
    const diff = await runCli(['diff', 'HEAD~1', 'HEAD', '--dir', out, '--exit-code'], { env: gitEnv });
    expect(diff.code, diff.stderr).toBe(1);
    expect(diff.stdout).toMatch(new RegExp(`^  ~ ${changed} \\(.+\\)$`, 'm'));
    const json = JSON.parse((await runCli(['diff', 'HEAD~1', 'HEAD', '--dir', out, '--json'], { env: gitEnv })).stdout) as Record<string, { changed: string[]; names: Record<string, string> }>;
    expect(json.servers!.changed).toEqual(report.changed.servers);
    expect(json.servers!.names[changed]).toEqual(expect.any(String));
    // The folder as it is now against HEAD: nothing changed.
    expect((await runCli(['diff', 'HEAD', '--dir', out, '--exit-code'], { env: gitEnv })).code).toBe(0);
    // The commit names records too, and marks generated files so diffs stay readable.
    const message = await git(repo, 'log', '-1', '--format=%B');
    expect(message).toMatch(new RegExp(`^~ servers ${changed} \\(.+\\)`, 'm'));
    expect(readFileSync(join(out, '.gitattributes'), 'utf8')).toMatch(/^\/_meta\/manifest\.json -diff linguist-generated$/m);
    // The change history is a generated file too: folded in `git log -p`, not half of each diff.
    expect(readFileSync(join(out, '.gitattributes'), 'utf8')).toMatch(/^\/_meta\/changes\.json -diff linguist-generated$/m);
    // The page's data did not churn: its data file and the buckets of the records that changed.
    const files = (await git(repo, 'show', '--name-only', '--format=', 'HEAD')).trim().split('\n');
    const pageFiles = files.filter((f) => f.includes('_browser/'));
    const touched = Object.values(report.added).flat().length + Object.values(report.removed).flat().length + Object.values(report.changed).flat().length;
    // Tables, detail buckets and the history; the search index and the back links, written beside them, at most one file per record touched too.
    const beside = pageFiles.filter((f) => /_browser\/(search|links)\//.test(f));
    expect(pageFiles.length - beside.length).toBeLessThanOrEqual(touched + 1);
    expect(beside.length).toBeLessThanOrEqual(touched);
  });
});

describe('Ctrl-C during a sync', () => {
  it('says what happened, exits 130, and leaves the folder as it was with no lock or staging', async () => {
    const service = await useUpstream({ scale: 20 });
    const out = join(tempDir(), 'out');
    expect((await runCli(['sync', '--base-url', service.url, '--out', out, '-q'], { env })).code).toBe(0);
    const before = await treeState(out);
    service.mutate({ seed: 3, share: 0.2 });
    service.setFaults({ rate: 1, kinds: ['slow'], slowMs: 300 });
    const child = spawn(process.execPath, [CLI, 'sync', '--base-url', service.url, '--out', out], { env: { ...env, PATH: process.env.PATH ?? '' } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // Interrupt once the run is under way (it holds the lock).
    const deadline = Date.now() + 20_000;
    while (!existsSync(join(out, '.inventory-mirror', 'lock')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    service.setFaults(undefined);
    expect(stderr).toMatch(/interrupted by SIGINT: nothing was published, .* keeps its previous snapshot \(its lock and staged files were removed\)/);
    expect(existsSync(join(out, '.inventory-mirror'))).toBe(false);
    expect(await treeState(out)).toEqual(before);
  });
});

describe('processes an operator can tell apart', () => {
  it('the process title names the command', async () => {
    const dir = tempDir();
    expect((await runCli(['sync', '--base-url', upstream.url, '--out', dir, '-q', '--allow-nonempty'], { env })).code).toBe(0);
    const child = spawn(process.execPath, [CLI, 'serve', '--dir', dir, '--port', '0', '--quiet'], { env: { PATH: process.env.PATH ?? '' } });
    try {
      const deadline = Date.now() + 10_000;
      let title = '';
      while (Date.now() < deadline) {
        title = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
        if (title.startsWith('inventory-mirror serve')) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(title).toMatch(/^inventory-mirror serve/);
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe('the install the README describes', () => {
  const ROOT = fileURLToPath(new URL('../..', import.meta.url));

  it('npm install -g . puts inventory-mirror on the PATH, and a cron-like run of it syncs', async () => {
    const prefix = tempDir('im-prefix-');
    const npm = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile('npm', ['install', '-g', '.', '--prefix', prefix, '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: ROOT, timeout: 120_000 }, (error, _out, err) =>
        resolve({ code: error ? 1 : 0, stderr: err }),
      ),
    );
    expect(npm.code, npm.stderr).toBe(0);
    const bin = join(prefix, 'bin', 'inventory-mirror');
    // cron's environment: a bare PATH with node on it, the token from a file.
    const tokenFile = join(tempDir(), 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const out = join(tempDir(), 'srv-inventory');
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(bin, ['sync', '--base-url', upstream.url, '--out', out, '--quiet'], { env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, INVENTORY_API_TOKEN_FILE: tokenFile }, cwd: tempDir() }, (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      ),
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(existsSync(join(out, 'servers.json'))).toBe(true);
  }, 150_000);

  it('npm start syncs the realistic demo and shows its data quality: findings by group, the shape once, one warning line', async () => {
    const out = join(tempDir(), 'output');
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile('npm', ['start', '--silent', '--', '--out', out], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, timeout: 60_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      ),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^published: the simulated service → /m);
    expect(run.stdout).toMatch(/^  findings: [1-9]\d* in \d+ groups; the largest:\n    appservers dbconn_\w+(, dbconn_\w+)* null: /m);
    expect(run.stdout).toMatch(/^  servers fields only in the list: .*\(the service's shape, not a finding\)$/m);
    expect(run.stdout).toMatch(/^  to accept them: add "/m);
    expect(run.stderr).toMatch(/^started the built-in simulated inventory service at http:\/\/127\.0\.0\.1:\d+$/m);
    expect(run.stderr.split('\n').filter((line) => line.startsWith('warning:'))).toEqual([expect.stringMatching(/^warning: \d+ data-quality findings not accepted, in \d+ groups: /)]);
    expect(existsSync(join(out, '_meta/quality.json'))).toBe(true);
  }, 90_000);
});
