/**
 * `schedule`: stays up and runs `sync` on a cron expression, with sync's own planning, the token
 * read once, one JSON line per run on stdout, notes on stderr, and a clean stop on SIGTERM/SIGINT.
 */
import { validate } from 'node-cron';
import { stringFlag, type Command } from '../cli/command.js';
import { onStopSignal } from '../cli/signals.js';
import { ConfigError, UsageError } from '../errors.js';
import { alertRun } from '../notify/alert.js';
import { runSchedule } from '../schedule/loop.js';
import { planSync, preflightSync, syncCommand, syncToken, syncWithIo } from './sync.js';

const SYNC_FLAGS = ['base-url', 'out', 'token-file', 'config', 'concurrency', 'strict', 'allow-mass-removal', 'git', 'report'] as const;

/** Checks an IANA time zone name the way the runtime will use it. */
function checkTimezone(timezone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    throw new UsageError(`timezone ${JSON.stringify(timezone)} is not a known IANA time zone (e.g. Europe/Paris, UTC); fix --timezone or schedule.timezone`);
  }
}

export const scheduleCommand: Command = {
  name: 'schedule',
  summary: 'stay up and run sync on a cron expression; one JSON line per run on stdout',
  options: {
    cron: { type: 'string', value: 'EXPR', description: 'when to sync, node-cron syntax with optional seconds (config schedule.cron, default "0 2 * * *")' },
    timezone: { type: 'string', value: 'TZ', description: 'IANA time zone of the cron expression (config schedule.timezone; default the system zone)' },
    'run-at-start': { type: 'boolean', description: 'also sync once right away (config schedule.runAtStart)' },
    ...Object.fromEntries(SYNC_FLAGS.map((flag) => [flag, { ...syncCommand.options[flag]!, description: `as for sync: ${syncCommand.options[flag]!.description}` }])),
  },
  async run(parsed, io) {
    const plan = planSync(parsed, io);
    const { schedule, notify } = plan.config;
    const cron = stringFlag(parsed, 'cron') ?? schedule.cron;
    if (!validate(cron)) throw new UsageError(`cron expression ${JSON.stringify(cron)} is not valid (fields: [second] minute hour day-of-month month day-of-week, e.g. "0 2 * * *"); fix --cron or schedule.cron`);
    const timezone = stringFlag(parsed, 'timezone') ?? schedule.timezone;
    if (timezone !== undefined) checkTimezone(timezone);
    if (!plan.baseUrl) throw new ConfigError('no service URL: pass --base-url URL, set INVENTORY_BASE_URL, or set baseUrl in config/mirror.json');
    const baseUrl = plan.baseUrl;
    const token = syncToken(plan, io);
    await preflightSync(plan);

    const controller = new AbortController();
    const stop = (name: string): void => {
      if (controller.signal.aborted) return;
      io.stderr.write(`${name}: stopping; a run in progress is aborted before it publishes\n`);
      controller.abort();
    };
    const stopListening = onStopSignal(stop);
    const quietParsed = { ...parsed, values: { ...parsed.values, quiet: true } };
    try {
      io.stderr.write(`schedule: syncing ${baseUrl} into ${plan.out} on "${cron}"${timezone ? ` (${timezone})` : ''}\n`);
      const stats = await runSchedule({
        cron,
        timezone,
        runAtStart: Boolean(parsed.values['run-at-start']) || schedule.runAtStart,
        signal: controller.signal,
        run: (signal) => syncWithIo(plan, baseUrl, token, quietParsed, io, signal),
        emit: (line) => io.stdout.write(`${line}\n`),
        note: (line) => io.stderr.write(`${line}\n`),
        afterRun: async (record, result) => {
          const problem = await alertRun(notify, plan.out, record, result);
          if (problem) io.stderr.write(`warning: ${problem}\n`);
        },
      });
      io.stderr.write(`schedule: stopped after ${stats.runs} run${stats.runs === 1 ? '' : 's'} (${stats.failed} failed, ${stats.skipped} ticks skipped)\n`);
      return 0;
    } finally {
      stopListening();
    }
  },
};
