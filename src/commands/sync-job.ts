/**
 * One sync as `sync` and `schedule` run it: flags + environment + config turned into one typed job
 * (once, with the token read once), then the run: hold the folder, sync, and while the lock is
 * still held commit to git and write the report; then the metrics file and the webhook. Both
 * commands take the same options, so a scheduled run can do all that a one-shot sync can.
 */
import type { CommandIo, OptionSpec, ParsedArgs } from '../cli/command.js';
import { CONFIG_OPTION, intFlag, OUTPUT_OPTIONS, outputFolder, pathFlag, stringFlag } from '../cli/command.js';
import type { Output } from '../cli/output.js';
import { parseConfig, readConfigFile } from '../config/load.js';
import { configSchema, resourcesSchema, type Config, type NotifySettings } from '../config/schema.js';
import { resolveToken } from '../config/token.js';
import { writeReport } from '../diff/report.js';
import { AbortedError, ConfigError, LockedError, MirrorError, PushError, SkippedError, TokenRejectedError, UsageError } from '../errors.js';
import { checkWorkTree, commitSnapshot } from '../git/git.js';
import { commitMessage } from '../git/message.js';
import { alertRun } from '../notify/alert.js';
import { holdOutputWaiting } from '../publish/wait-lock.js';
import { parseMaxAge } from '../state/freshness.js';
import { loadPrivateKey } from '../sign/keys.js';
import { writeMetrics } from '../state/metrics.js';
import { runSync, type SyncRun } from '../sync/index.js';
import { runRecord, type SyncResult } from '../sync/result.js';
import { countChanges } from '../diff/engine.js';
import { registerSecret } from '../util/secrets.js';
import { describeKey } from '../push/location.js';
import { describePush, pushJob, runPush, type PushJob } from './push-job.js';

/** The options `sync` and `schedule` share. */
export const SYNC_OPTIONS: Record<string, OptionSpec> = {
  'base-url': { type: 'string', value: 'URL', description: 'the service, e.g. https://cmdb.example.com/api (env INVENTORY_BASE_URL, config baseUrl)' },
  out: { type: 'string', value: 'DIR', description: 'output folder (env INVENTORY_MIRROR_OUT, config out; default ./output)' },
  'token-file': { type: 'string', value: 'FILE', description: 'file holding the API token (else env INVENTORY_API_TOKEN, INVENTORY_API_TOKEN_FILE, config tokenFile)' },
  config: CONFIG_OPTION,
  resources: { type: 'string', value: 'LIST', description: 'mirror only these resources, comma-separated, e.g. servers,operating_systems (config resources; default all five); a dropped resource\'s files are removed' },
  concurrency: { type: 'string', value: 'N', description: 'requests in flight at most (config sync.concurrency, default 16); the sync starts lower and adapts to the service\'s latency and overload answers' },
  'fixed-concurrency': { type: 'boolean', description: 'keep exactly --concurrency requests in flight instead of adapting (config sync.adaptive false)' },
  'max-rps': { type: 'string', value: 'N', description: 'requests started per second at most, to spare a shared service (config sync.maxRequestsPerSecond; default no cap)' },
  strict: { type: 'boolean', description: 'fail on findings that quality.accept in the config does not accept' },
  incremental: { type: 'boolean', description: 'fetch a single record only when it is new, its list item changed, a record it embeds changed, or it is due in the rolling refresh (config sync.incremental)' },
  'refresh-runs': { type: 'string', value: 'N', description: 'with --incremental: fetch every record again at least once every N runs (config sync.refreshRuns, default 7)' },
  'allow-mass-removal': { type: 'boolean', description: 'publish even when a resource loses more than sync.massRemoval.maxShare of its records' },
  'allow-nonempty': { type: 'boolean', description: 'publish into a folder that holds other files but no snapshot (verify will name them as extra)' },
  'sign-key': { type: 'string', value: 'FILE', description: 'Ed25519 private key (from keygen): sign the manifest into _meta/manifest.sig' },
  browser: { type: 'boolean', description: 'also write the offline browser page index.html + _browser/ (config browser.enabled)' },
  git: { type: 'boolean', description: 'commit the snapshot when it changed; the output folder must be inside a git work tree (config git.commit)' },
  report: { type: 'string', value: 'FILE', description: 'write the JSON diff of this run (ids added, removed, changed per resource) to FILE, also when nothing changed' },
  'warnings-file': { type: 'string', value: 'FILE', description: 'write every data-quality finding to FILE, one JSON object per line' },
  push: { type: 'string', value: 's3://BUCKET[/PREFIX]', description: 'after each publish, push the snapshot to object storage (config push.to; endpoint and the rest from config push); a failed push exits 3 and keeps the local snapshot' },
  'metrics-label': { type: 'string', value: 'NAME', description: 'add mirror="NAME" to every sample of --metrics-file, to tell two mirrors on one host apart' },
  'wait-lock': { type: 'string', value: 'DURATION', description: 'when another run holds the output folder, wait up to DURATION (e.g. 30s, 10m; units s, m, h) for it; then skip this run: exit 75, recorded as skipped' },
  'metrics-file': { type: 'string', value: 'FILE', description: 'write the run in Prometheus text format to FILE (for node_exporter\'s textfile collector), also when it fails' },
  ...OUTPUT_OPTIONS,
};

/** A sync as the command line, the environment and the config describe it. */
interface SyncJob {
  /** What the domain's sync gets (everything but the run's log, progress and signal). */
  options: Omit<SyncRun, 'log' | 'progress' | 'signal' | 'held'>;
  git: Config['git'];
  notify: NotifySettings;
  /** Absolute paths. */
  report: string | undefined;
  metricsFile: string | undefined;
  metricsLabel: string | undefined;
  /** Milliseconds to wait for another run's lock (--wait-lock); 0: fail at once. */
  waitLockMs: number;
  /** How the service is named in the summary. */
  source: string;
  /** Object storage to push to after each publish. */
  push: PushJob | undefined;
  /** Where the token came from, for the message when the service rejects it. */
  tokenFrom: string | undefined;
}

/** The config with the flags of a sync laid over it, parsed once. */
export function syncConfig(parsed: ParsedArgs, io: CommandIo): Config {
  const { raw, source } = readConfigFile(stringFlag(parsed, 'config'), io.cwd);
  const sync = { ...(raw.sync as Record<string, unknown> | undefined) };
  const concurrency = intFlag(parsed, 'concurrency', 1, 256);
  if (concurrency !== undefined) sync.concurrency = concurrency;
  if (parsed.values['fixed-concurrency']) sync.adaptive = false;
  const rate = intFlag(parsed, 'max-rps', 1, 100_000);
  if (rate !== undefined) sync.maxRequestsPerSecond = rate;
  if (parsed.values.strict) sync.strict = true;
  if (parsed.values.incremental) sync.incremental = true;
  const refreshRuns = intFlag(parsed, 'refresh-runs', 1, 10_000);
  if (refreshRuns !== undefined) sync.refreshRuns = refreshRuns;
  const resources = resourcesFlag(parsed);
  const flag = stringFlag(parsed, 'base-url');
  const baseUrl = flag ?? io.env.INVENTORY_BASE_URL;
  if (baseUrl !== undefined && !configSchema.shape.baseUrl.safeParse(baseUrl).success) {
    throw new UsageError(`${flag === undefined ? 'INVENTORY_BASE_URL' : '--base-url'} ${JSON.stringify(baseUrl)} is not an http:// or https:// URL`);
  }
  return parseConfig(
    {
      ...raw,
      ...(baseUrl === undefined ? {} : { baseUrl }),
      ...(resources === undefined ? {} : { resources }),
      sync,
      git: { ...(raw.git as object | undefined), ...(parsed.values.git ? { commit: true } : {}) },
      browser: { ...(raw.browser as object | undefined), ...(parsed.values.browser ? { enabled: true } : {}) },
    },
    source,
  );
}

/** `--resources a,b`: the names, each one the service has, else a UsageError naming it and listing the valid ones. */
function resourcesFlag(parsed: ParsedArgs): string[] | undefined {
  const raw = stringFlag(parsed, 'resources');
  if (raw === undefined) return undefined;
  const names = raw.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const check = resourcesSchema.safeParse(names);
  if (!check.success) throw new UsageError(`--resources ${JSON.stringify(raw)}: ${check.error.issues[0]!.message}`);
  return names;
}

/** The token, read once from the flag's file, the environment or the config's file, and where it came from; registered as a secret. */
export function syncToken(parsed: ParsedArgs, io: CommandIo, config: Config, output: Output): { token: string; tokenFrom: string } {
  const resolved = resolveToken({ flagFile: stringFlag(parsed, 'token-file'), configFile: config.tokenFile, env: io.env, cwd: io.cwd, envVar: 'INVENTORY_API_TOKEN', envFileVar: 'INVENTORY_API_TOKEN_FILE' });
  if (!resolved) throw new ConfigError('no API token: set INVENTORY_API_TOKEN, or name a file holding it with INVENTORY_API_TOKEN_FILE or --token-file');
  for (const warning of resolved.warnings) output.warn(warning);
  registerSecret(resolved.token);
  return { token: resolved.token, tokenFrom: resolved.from };
}

/** Builds the job of a sync against `baseUrl` with `token` (both settled by the caller). */
export function syncJob(parsed: ParsedArgs, io: CommandIo, config: Config, service: { baseUrl: string; token: string; tokenFrom?: string; source: string }): SyncJob {
  const keyFile = pathFlag(parsed, 'sign-key', io);
  return {
    options: {
      baseUrl: service.baseUrl,
      token: service.token,
      out: outputFolder(stringFlag(parsed, 'out'), io, config),
      resources: config.resources,
      settings: config.sync,
      filters: config.filters,
      redact: config.redact,
      accept: config.quality.accept,
      changesKeep: config.changes.keep,
      browser: config.browser.enabled,
      signingKey: keyFile ? loadPrivateKey(keyFile, '--sign-key') : undefined,
      allowMassRemoval: Boolean(parsed.values['allow-mass-removal']),
      allowNonEmpty: Boolean(parsed.values['allow-nonempty']),
      dryRun: Boolean(parsed.values['dry-run']),
      warningsFile: pathFlag(parsed, 'warnings-file', io),
    },
    git: config.git,
    notify: config.notify,
    report: pathFlag(parsed, 'report', io),
    metricsFile: pathFlag(parsed, 'metrics-file', io),
    metricsLabel: stringFlag(parsed, 'metrics-label'),
    waitLockMs: waitLock(stringFlag(parsed, 'wait-lock')),
    source: service.source,
    push: pushJob(config.push, { to: stringFlag(parsed, 'push') }, '--push'),
    tokenFrom: service.tokenFrom,
  };
}

/** --wait-lock DURATION in milliseconds (0 when absent). */
function waitLock(raw: string | undefined): number {
  if (raw === undefined) return 0;
  try {
    return parseMaxAge(raw);
  } catch {
    throw new UsageError(`--wait-lock: expected a positive number and a unit s, m, h or d (e.g. 10m), got ${JSON.stringify(raw)}`);
  }
}

/** Checks made before anything is fetched: with git commits on, the output folder must be in a work tree. */
export async function preflight(job: SyncJob): Promise<void> {
  if (job.git.commit && !job.options.dryRun) await checkWorkTree(job.options.out);
}

/**
 * Runs the job: the sync, then (under the same lock) the report and the git commit, then the
 * metrics file and the webhook, for a success and a failure alike.
 */
export async function runSyncJob(job: SyncJob, output: Output, signal?: AbortSignal): Promise<SyncResult> {
  const started = new Date();
  let result: SyncResult | undefined;
  try {
    const held = await holdOutputWaiting(job.options.out, 'sync', job.waitLockMs, { signal, onWait: (message) => output.info(message) });
    if (held.lock.warning) output.warn(held.lock.warning);
    let published = false;
    try {
      result = await runSync({ ...job.options, held, log: output, progress: output.progress, signal });
      published = result.status !== 'dry-run';
      if (job.report) await writeReport(job.report, result.changes);
      if (job.git.commit && result.status !== 'dry-run') {
        const message = commitMessage(result.changes, { prefix: job.git.messagePrefix, initial: result.initial });
        const sha = await commitSnapshot({ out: job.options.out, message, author: job.git.author });
        output.info(sha ? `git: committed ${sha.slice(0, 12)} ${message.split('\n')[0]}` : 'git: nothing to commit');
      }
      // Under the lock still: the next sync cannot publish over the files being uploaded.
      if (job.push && result.status !== 'dry-run') await pushAfterPublish(job.push, job.options.out, output);
    } finally {
      await held.release(published);
    }
  } catch (caught) {
    // The domain says "the token"; the command line knows which file or variable that was.
    const error = caught instanceof TokenRejectedError && job.tokenFrom ? new TokenRejectedError(caught.path, caught.status ?? 401, job.tokenFrom) : caught;
    await afterRun(job, output, started, result, error);
    throw error;
  }
  await afterRun(job, output, started, result, undefined);
  return result;
}

/** Pushes a snapshot just published; any failure exits 3, as the local snapshot is published all the same. */
async function pushAfterPublish(push: PushJob, out: string, output: Output): Promise<void> {
  try {
    output.info(describePush(await runPush(push, out, output)));
  } catch (error) {
    if (!(error instanceof MirrorError)) throw error;
    const message = `${out} is published, but the push to ${describeKey(push.location)} failed: ${error.message}`;
    throw new PushError(error instanceof PushError ? { bucket: error.bucket, key: error.key, storeCode: error.storeCode, message } : { bucket: push.location.bucket, message }, { exitCode: 3, cause: error });
  }
}

/**
 * A run that failed before its job could start (a usage or configuration error, exit 2) is a
 * failed run too: the metrics file says so, or monitoring would go on reading the last success.
 */
export async function recordEarlyFailure(parsed: ParsedArgs, io: CommandIo, output: Output): Promise<void> {
  let file: string | undefined;
  try {
    file = pathFlag(parsed, 'metrics-file', io);
  } catch {
    return;
  }
  if (!file) return;
  try {
    await writeMetrics(file, { at: new Date(), durationMs: 0, status: 'failed', mirror: stringFlag(parsed, 'metrics-label') });
  } catch (problem) {
    output.warn(problem instanceof MirrorError ? problem.message : String(problem));
  }
}

/** The metrics file and the webhook of a finished run; their own failures are warnings only. */
async function afterRun(job: SyncJob, output: Output, started: Date, result: SyncResult | undefined, error: unknown): Promise<void> {
  const end = new Date();
  const failed = error !== undefined;
  // Another run held the folder: this one did nothing, which is not a failure of the mirror.
  const skipped = error instanceof LockedError || error instanceof SkippedError;
  if (job.metricsFile) {
    try {
      await writeMetrics(job.metricsFile, {
        at: end,
        durationMs: end.getTime() - started.getTime(),
        status: skipped ? 'skipped' : failed || !result ? 'failed' : result.status,
        mirror: job.metricsLabel,
        ...(result && !failed
          ? { records: result.records, requests: result.requests, notModified: result.notModified, overloadAnswers: result.overloadAnswers, concurrency: result.concurrency, findings: result.findings, retries: result.retries, throttleCuts: result.throttle.cuts, changes: countChanges(result.changes) }
          : {}),
      });
    } catch (problem) {
      output.warn(problem instanceof MirrorError ? problem.message : String(problem));
    }
  }
  if (error instanceof AbortedError || skipped) return;
  const record = failed ? runRecord(started, end, { error: error instanceof Error ? error.message : String(error) }) : runRecord(started, end, { result: result! });
  const problem = await alertRun(job.notify, job.options.out, record, failed ? undefined : result);
  if (problem) output.warn(problem);
}
