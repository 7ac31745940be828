/**
 * `sync`: one snapshot of the service into the output folder. With `--demo` (what `npm start`
 * runs) it first starts the built-in simulated service on a loopback port with a random token.
 */
import { randomBytes } from 'node:crypto';
import { relative, resolve } from 'node:path';
import { CONFIG_OPTION, intFlag, outputFolder, stringFlag, type Command, type CommandIo, type ParsedArgs } from '../cli/command.js';
import { loadConfig } from '../config/load.js';
import { parseConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { resolveToken } from '../config/token.js';
import { ConfigError } from '../errors.js';
import { writeReport } from '../diff/report.js';
import { checkWorkTree, commitSnapshot } from '../git/git.js';
import { commitMessage } from '../git/message.js';
import { alertRun } from '../notify/alert.js';
import { LAST_SYNC_FILE } from '../publish/paths.js';
import { runRecord, type RunRecord } from '../schedule/loop.js';
import { silentProgress, terminalProgress } from '../sync/progress.js';
import { runSync, type SyncResult } from '../sync/run.js';
import { formatSummary, formatWarnings } from '../sync/summary.js';
import { startUpstream } from '../upstream/index.js';
import { loadPrivateKey } from '../sign/keys.js';

export interface SyncPlan {
  config: Config;
  baseUrl: string | undefined;
  out: string;
  tokenFile: string | undefined;
  /** Absolute path of `--report FILE`. */
  report: string | undefined;
}

/** Settings by priority: flags over environment over config file over defaults. */
export function planSync(parsed: ParsedArgs, io: CommandIo): SyncPlan {
  const { config } = loadConfig(stringFlag(parsed, 'config'), io.cwd);
  const merged = parseConfig(
    {
      ...config,
      sync: {
        ...config.sync,
        ...(parsed.values.strict ? { strict: true } : {}),
        ...(intFlag(parsed, 'concurrency', 1, 256) !== undefined ? { concurrency: intFlag(parsed, 'concurrency', 1, 256) } : {}),
      },
      git: { ...config.git, ...(parsed.values.git ? { commit: true } : {}) },
    },
    'settings',
  );
  const baseUrl = stringFlag(parsed, 'base-url') ?? io.env.INVENTORY_BASE_URL ?? config.baseUrl;
  if (baseUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(baseUrl);
    } catch {
      url = undefined;
    }
    if (!url || !/^https?:$/.test(url.protocol)) throw new ConfigError(`base URL ${JSON.stringify(baseUrl)} is not an http:// or https:// URL`);
  }
  return {
    config: merged,
    baseUrl,
    out: outputFolder(stringFlag(parsed, 'out'), io, config),
    tokenFile: stringFlag(parsed, 'token-file'),
    report: stringFlag(parsed, 'report') === undefined ? undefined : resolve(io.cwd, stringFlag(parsed, 'report')!),
  };
}

/** Checks made before anything is fetched: with git commits on, the output folder must be in a work tree. */
export async function preflightSync(plan: SyncPlan): Promise<void> {
  if (plan.config.git.commit) await checkWorkTree(plan.out);
}

/** The token, read once: flag file, environment, or config file. */
export function syncToken(plan: SyncPlan, io: CommandIo): string {
  const resolved = resolveToken({ flagFile: plan.tokenFile, configFile: plan.config.tokenFile, env: io.env, cwd: io.cwd, envVar: 'INVENTORY_API_TOKEN', envFileVar: 'INVENTORY_API_TOKEN_FILE' });
  if (!resolved) throw new ConfigError('no API token: set INVENTORY_API_TOKEN, or name a file holding it with INVENTORY_API_TOKEN_FILE or --token-file');
  for (const warning of resolved.warnings) io.stderr.write(`warning: ${warning}\n`);
  return resolved.token;
}

/**
 * After publishing, still under the folder's lock (so no other sync changes it in between): the
 * --report file, then the git commit of exactly the snapshot when it changed.
 */
async function afterSync(plan: SyncPlan, result: SyncResult, io: CommandIo, quiet: boolean): Promise<void> {
  if (plan.report) await writeReport(plan.report, result.changes);
  if (!plan.config.git.commit) return;
  const message = commitMessage(result.changes, { prefix: plan.config.git.messagePrefix, initial: result.initial });
  const sha = await commitSnapshot({ out: plan.out, message, author: plan.config.git.author });
  if (!quiet) io.stderr.write(sha ? `git: committed ${sha.slice(0, 12)} ${message.split('\n')[0]}\n` : 'git: nothing to commit\n');
}

/** Runs a sync with the CLI's progress and log lines; prints nothing itself. */
export async function syncWithIo(plan: SyncPlan, baseUrl: string, token: string, parsed: ParsedArgs, io: CommandIo, signal?: AbortSignal): Promise<SyncResult> {
  const quiet = Boolean(parsed.values.quiet);
  return runSync({
    baseUrl,
    token,
    out: plan.out,
    settings: plan.config.sync,
    filters: plan.config.filters,
    allowMassRemoval: Boolean(parsed.values['allow-mass-removal']),
    signKey: stringFlag(parsed, 'sign-key') ? loadPrivateKey(resolve(io.cwd, stringFlag(parsed, 'sign-key')!)) : undefined,
    progress: !quiet && io.isTTY ? terminalProgress(io.stderr) : silentProgress,
    log: (line) => {
      if (!quiet || line.startsWith('warning')) io.stderr.write(`${line}\n`);
    },
    signal,
    changesKeep: plan.config.changes.keep,
    redact: plan.config.redact,
    browser: Boolean(parsed.values.browser) || plan.config.browser.enabled,
    afterPublish: (published) => afterSync(plan, published, io, quiet),
  });
}

export const syncCommand: Command = {
  name: 'sync',
  summary: 'pull, validate and publish one snapshot of the service into the output folder',
  options: {
    'base-url': { type: 'string', value: 'URL', description: 'the service, e.g. https://cmdb.example.com/api (env INVENTORY_BASE_URL, config baseUrl)' },
    out: { type: 'string', value: 'DIR', description: 'output folder (env INVENTORY_MIRROR_OUT, config out; default ./output)' },
    'token-file': { type: 'string', value: 'FILE', description: 'file holding the API token (else env INVENTORY_API_TOKEN, INVENTORY_API_TOKEN_FILE, config tokenFile)' },
    config: CONFIG_OPTION,
    concurrency: { type: 'string', value: 'N', description: 'requests in flight at once (config sync.concurrency, default 16)' },
    strict: { type: 'boolean', description: 'treat field-level warnings as failures' },
    'allow-mass-removal': { type: 'boolean', description: 'publish even when a resource loses more than sync.massRemoval.maxShare of its records' },
    'sign-key': { type: 'string', value: 'FILE', description: 'Ed25519 private key (from keygen): sign the manifest into _meta/manifest.sig' },
    browser: { type: 'boolean', description: 'also write the offline browser page index.html + _browser/ (config browser.enabled)' },
    demo: { type: 'boolean', description: 'sync from the built-in simulated service (what `npm start` does)' },
    quiet: { type: 'boolean', short: 'q', description: 'no progress and no summary; warnings and errors only' },
    git: { type: 'boolean', description: 'commit the snapshot when it changed; the output folder must be inside a git work tree (config git.commit)' },
    report: { type: 'string', value: 'FILE', description: 'write the JSON diff of this run (ids added, removed, changed per resource) to FILE, also when nothing changed' },
  },
  async run(parsed, io) {
    const plan = planSync(parsed, io);
    if (parsed.values.demo) return runDemo(plan, parsed, io);
    if (!plan.baseUrl) throw new ConfigError('no service URL: pass --base-url URL, set INVENTORY_BASE_URL, or set baseUrl in config/mirror.json');
    const token = syncToken(plan, io);
    await preflightSync(plan);
    const started = new Date();
    let result: SyncResult;
    try {
      result = await syncWithIo(plan, plan.baseUrl, token, parsed, io);
    } catch (error) {
      await alert(plan, io, runRecord(started, new Date(), { error: error instanceof Error ? error.message : String(error) }), undefined);
      throw error;
    }
    await alert(plan, io, runRecord(started, new Date(), { result }), result);
    report(result, plan.baseUrl, plan.out, parsed, io);
    return 0;
  },
};

/** The webhook of a finished one-shot sync (a failure, or a change with notify.onChange), as `schedule` sends it. */
async function alert(plan: SyncPlan, io: CommandIo, record: RunRecord, result: SyncResult | undefined): Promise<void> {
  const problem = await alertRun(plan.config.notify, plan.out, record, result);
  if (problem) io.stderr.write(`warning: ${problem}\n`);
}

function report(result: SyncResult, source: string, out: string, parsed: ParsedArgs, io: CommandIo): void {
  io.stderr.write(formatWarnings(result, `${out}/${LAST_SYNC_FILE}`));
  if (!parsed.values.quiet) io.stdout.write(formatSummary(result, source, out));
}

async function runDemo(plan: SyncPlan, parsed: ParsedArgs, io: CommandIo): Promise<number> {
  await preflightSync(plan);
  const token = randomBytes(24).toString('base64url');
  const upstream = await startUpstream({ token });
  try {
    if (!parsed.values.quiet) io.stdout.write(`started the built-in simulated inventory service at ${upstream.url}\n`);
    const result = await syncWithIo(plan, upstream.url, token, parsed, io);
    report(result, 'the simulated service', plan.out, parsed, io);
    if (!parsed.values.quiet) {
      const dir = relative(io.cwd, plan.out) || '.';
      io.stdout.write(`look at it: npx inventory-mirror serve --dir ${dir} (then http://127.0.0.1:8080/servers.json), or the files in ${dir}/; check it: npx inventory-mirror verify --dir ${dir}\n`);
    }
    return 0;
  } finally {
    await upstream.close();
  }
}
