/**
 * `sync`: one snapshot of the service into the output folder. With `--demo` (what `npm start`
 * runs) it first starts the built-in simulated service on a loopback port with a random token.
 * Ctrl-C or SIGTERM stops it before it publishes: the folder keeps its previous snapshot, the
 * lock and staged files are removed, and it exits 130 (SIGINT) or 143 (SIGTERM).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { MANIFEST_FILE } from '../snapshot/paths.js';
import { outputOf, type CommandDefinition, type CommandIo, type ParsedArgs } from '../cli/command.js';
import { onStopSignal } from '../cli/signals.js';
import { AbortedError, ConfigError } from '../errors.js';
import type { Output } from '../cli/output.js';
import { acceptHint, describeGroup, type SyncResult } from '../sync/result.js';
import { foldGroups, formatSummary, throttleLine } from '../sync/summary.js';
import { registerSecret } from '../util/secrets.js';
import { preflight, recordEarlyFailure, runSyncJob, SYNC_OPTIONS, syncConfig, syncJob, syncToken } from './sync-job.js';

/** Groups of findings not accepted, largest first, each a warning line (accepted ones never are). */
const WARNED_GROUPS = 5;

/**
 * Findings not accepted are warnings. When the text summary follows, it lists them and tells how
 * to accept them, so the warning is one line; quiet and JSON runs get the groups as warnings.
 */
function warnFindings(result: SyncResult, output: Output, summarized: boolean): void {
  const open = result.findings.groups.filter((g) => !g.accepted);
  if (open.length === 0) return;
  if (summarized) {
    const count = open.reduce((n, g) => n + g.count, 0);
    output.warn(`${count} data-quality finding${count === 1 ? '' : 's'} not accepted, in ${open.length} group${open.length === 1 ? '' : 's'}: the summary lists the largest and how to accept them; _meta/quality.json holds every one`);
    return;
  }
  const folded = foldGroups(open);
  for (const group of folded.slice(0, WARNED_GROUPS)) output.warn(`finding: ${describeGroup(group)}`);
  if (folded.length > WARNED_GROUPS) output.warn(`… and ${folded.length - WARNED_GROUPS} more lines of findings, all in _meta/quality.json`);
  output.warn(`to accept findings (counted and published, no longer warned about): ${acceptHint(open)}`);
}

const SIGNAL_STATUS: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };

export const syncCommand: CommandDefinition = {
  options: {
    ...SYNC_OPTIONS,
    'dry-run': { type: 'boolean', description: 'pull and check everything, print what would be written and removed, publish nothing' },
    demo: { type: 'boolean', description: 'sync from the built-in simulated service (what `npm start` does)' },
  },
  notes: [
    'Exit status: 0 published or unchanged; 1 failed (the folder is as it was); 2 usage or configuration error;',
    '3 published, but the push to object storage (--push, config push.to) failed;',
    '75 skipped: another run still held the folder when --wait-lock ran out (recorded as skipped in --metrics-file);',
    '130/143 stopped by SIGINT/SIGTERM before publishing (the folder is as it was).',
  ],
  async run(parsed, io) {
    const output = outputOf(parsed, io, 'sync');
    const state = { jobStarted: false };
    try {
      return await runSyncCommand(parsed, io, output, state);
    } catch (error) {
      if (!state.jobStarted) await recordEarlyFailure(parsed, io, output);
      throw error;
    }
  },
};

/** The command's work; `state.jobStarted` tells the caller whether the job (which records its own run) began. */
async function runSyncCommand(parsed: ParsedArgs, io: CommandIo, output: Output, state: { jobStarted: boolean }): Promise<number> {
  const config = syncConfig(parsed, io);
  const demo = Boolean(parsed.values.demo);
  const demoToken = randomBytes(24).toString('base64url');
  // The simulator is a large module: loaded only for the demo.
  const upstream = demo ? await (await import('../upstream/index.js')).startUpstream({ token: demoToken }) : undefined;
  try {
    let job;
    if (upstream) {
      registerSecret(demoToken);
      output.info(`started the built-in simulated inventory service at ${upstream.url}`);
      job = syncJob(parsed, io, config, { baseUrl: upstream.url, token: demoToken, source: 'the simulated service' });
    } else {
      if (!config.baseUrl) throw new ConfigError('no service URL: pass --base-url URL, set INVENTORY_BASE_URL, or set baseUrl in config/mirror.json');
      job = syncJob(parsed, io, config, { baseUrl: config.baseUrl, ...syncToken(parsed, io, config, output), source: config.baseUrl });
    }
    await preflight(job);
    const controller = new AbortController();
    let stoppedBy: NodeJS.Signals | undefined;
    const stopListening = onStopSignal((signal) => {
      stoppedBy = signal;
      output.warn(`${signal}: stopping; nothing is published by this run`);
      controller.abort();
    });
    let result;
    state.jobStarted = true;
    try {
      result = await runSyncJob(job, output, controller.signal);
    } catch (error) {
      if (stoppedBy && error instanceof AbortedError) {
        // The folder is as it was: a manifest there now was there before.
        const kept = existsSync(join(job.options.out, MANIFEST_FILE)) ? 'keeps its previous snapshot' : 'holds no snapshot, as before';
        throw new AbortedError(`interrupted by ${stoppedBy}: nothing was published, ${job.options.out} ${kept} (its lock and staged files were removed)`, { exitCode: SIGNAL_STATUS[stoppedBy] ?? 1 });
      }
      throw error;
    } finally {
      stopListening();
    }
    const summarized = !parsed.values.quiet && parsed.values['log-format'] !== 'json';
    warnFindings(result, output, summarized);
    // The summary says it; a quiet run (cron) must hear it too, or a throttled service goes unnoticed.
    const throttled = throttleLine(result);
    if (throttled && !summarized) output.warn(throttled);
    if (summarized) io.stdout.write(formatSummary(result, job.source));
    else if (!parsed.values.quiet) output.event('info', 'sync finished', { result });
    if (demo && !parsed.values.quiet) {
      const dir = relative(io.cwd, job.options.out) || '.';
      // npx finds the package's own bin here, installed globally or not.
      io.stdout.write(`look at it: npx inventory-mirror serve --dir ${dir} (then http://127.0.0.1:8080/servers.json, or http://127.0.0.1:8080/index.html with --browser); check it: npx inventory-mirror verify --dir ${dir}\n`);
    }
    return 0;
  } finally {
    await upstream?.close();
  }
}

