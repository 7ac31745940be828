/**
 * `schedule`: stays up and runs `sync` on a cron expression, with every option `sync` takes, the
 * token read once, one JSON line per run on stdout, notes on stderr (with the next run's time),
 * and a clean stop on SIGTERM/SIGINT.
 */
import { validate } from 'node-cron';
import { outputOf, stringFlag, type CommandDefinition } from '../cli/command.js';
import { onStopSignal } from '../cli/signals.js';
import { ConfigError, UsageError } from '../errors.js';
import { runSchedule } from '../schedule/loop.js';
import { preflight, runSyncJob, SYNC_OPTIONS, syncConfig, syncJob, syncToken } from './sync-job.js';

/** Checks an IANA time zone name the way the runtime will use it. */
function checkTimezone(timezone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    throw new UsageError(`timezone ${JSON.stringify(timezone)} is not a known IANA time zone (e.g. Europe/Paris, UTC); fix --timezone or schedule.timezone`);
  }
}

export const scheduleCommand: CommandDefinition = {
  options: {
    cron: { type: 'string', value: 'EXPR', description: 'when to sync, node-cron syntax with optional seconds (config schedule.cron, default "0 2 * * *")' },
    timezone: { type: 'string', value: 'TZ', description: 'IANA time zone of the cron expression (config schedule.timezone; default the system zone)' },
    'run-at-start': { type: 'boolean', description: 'also sync once right away (config schedule.runAtStart)' },
    ...SYNC_OPTIONS,
  },
  async run(parsed, io) {
    const output = outputOf(parsed, io, 'schedule', { timestamps: true });
    const config = syncConfig(parsed, io);
    const cron = stringFlag(parsed, 'cron') ?? config.schedule.cron;
    if (!validate(cron)) throw new UsageError(`cron expression ${JSON.stringify(cron)} is not valid (fields: [second] minute hour day-of-month month day-of-week, e.g. "0 2 * * *"); fix --cron or schedule.cron`);
    const timezone = stringFlag(parsed, 'timezone') ?? config.schedule.timezone;
    if (timezone !== undefined) checkTimezone(timezone);
    if (!config.baseUrl) throw new ConfigError('no service URL: pass --base-url URL, set INVENTORY_BASE_URL, or set baseUrl in config/mirror.json');
    const job = syncJob(parsed, io, config, { baseUrl: config.baseUrl, ...syncToken(parsed, io, config, output), source: config.baseUrl });
    await preflight(job);

    const controller = new AbortController();
    const stopListening = onStopSignal((signal) => {
      output.warn(`${signal}: stopping; a run in progress is aborted before it publishes`);
      controller.abort();
    });
    try {
      output.info(`schedule: syncing ${config.baseUrl} into ${job.options.out} on "${cron}"${timezone ? ` (${timezone})` : ''}`);
      const stats = await runSchedule({
        cron,
        timezone,
        runAtStart: Boolean(parsed.values['run-at-start']) || config.schedule.runAtStart,
        signal: controller.signal,
        run: (signal) => runSyncJob(job, output, signal),
        emit: (record) => io.stdout.write(`${JSON.stringify(record)}\n`),
        note: (line) => output.info(line),
      });
      output.info(`schedule: stopped after ${stats.runs} run${stats.runs === 1 ? '' : 's'} (${stats.failed} failed, ${stats.skipped} ticks skipped)`);
      return 0;
    } finally {
      stopListening();
    }
  },
};
