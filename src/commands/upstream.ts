/**
 * `upstream`: runs the built-in simulated inventory service in the foreground until SIGINT or
 * SIGTERM, for demos, manual testing and benchmarks against a separate process. A running
 * service is changed through its loopback-only control endpoint (/_control).
 */
import { untilStopSignal } from '../cli/signals.js';
import { intFlag, stringFlag, type CommandDefinition, type ParsedArgs } from '../cli/command.js';
import { UsageError } from '../errors.js';
import { RESOURCE_NAMES } from '../spec/resources.js';
import { CONTROL_ENDPOINTS, FAULT_KINDS, PROFILES, QUEUE_PER_WORKER, startUpstream, type FaultKind, type FaultOptions, type ProfileName } from '../upstream/index.js';

/** The fault flags as FaultOptions, or undefined when none is given. */
function faultFlags(parsed: ParsedArgs): FaultOptions | undefined {
  const rateText = stringFlag(parsed, 'fault-rate');
  const kindsText = stringFlag(parsed, 'fault-kinds');
  const slowMs = intFlag(parsed, 'fault-slow-ms', 0, 600_000);
  const failPaths = (parsed.values['fail-path'] as string[] | undefined) ?? [];
  if (rateText === undefined && kindsText === undefined && slowMs === undefined && failPaths.length === 0) return undefined;
  let rate: number | undefined;
  if (rateText !== undefined) {
    rate = Number(rateText);
    if (!/^\d*\.?\d+$/.test(rateText) || !(rate >= 0 && rate <= 1)) throw new UsageError(`--fault-rate: expected a number from 0 to 1, got ${JSON.stringify(rateText)}`);
  }
  let kinds: FaultKind[] | undefined;
  if (kindsText !== undefined) {
    kinds = kindsText.split(',').map((kind) => kind.trim()) as FaultKind[];
    const unknown = kinds.filter((kind) => !FAULT_KINDS.includes(kind));
    if (unknown.length > 0 || kinds.length === 0) throw new UsageError(`--fault-kinds: unknown kind ${JSON.stringify(unknown[0] ?? kindsText)}; kinds: ${FAULT_KINDS.join(', ')}`);
  }
  return { rate, kinds, slowMs, failPaths };
}

/** The --profile flag, default realistic. */
function profileFlag(parsed: ParsedArgs): ProfileName {
  const text = stringFlag(parsed, 'profile') ?? 'realistic';
  if (!(PROFILES as readonly string[]).includes(text)) throw new UsageError(`--profile: expected ${PROFILES.join(' or ')}, got ${JSON.stringify(text)}`);
  return text as ProfileName;
}

// commandHelp prints option descriptions as given: continuation lines carry the control endpoints' table.
const PATH_WIDTH = Math.max(...CONTROL_ENDPOINTS.map((e) => e.path.length)) + 2;
const CONTROL_HELP = CONTROL_ENDPOINTS.map((e) => `\n          ${e.method.padEnd(5)}${e.path.padEnd(PATH_WIDTH)}${e.does}`).join('');

export const upstreamCommand: CommandDefinition = {
  options: {
    port: { type: 'string', value: 'PORT', description: 'port to listen on (default 0: any free port, shown in the start line)' },
    token: { type: 'string', value: 'TOKEN', description: 'the X-Api-Token every request must carry (env INVENTORY_API_TOKEN)' },
    seed: { type: 'string', value: 'N', description: 'data seed; the same seed and scale give the same data (default 1)' },
    scale: { type: 'string', value: 'N', description: 'number of servers; other resources in proportion (default 200)' },
    host: { type: 'string', value: 'HOST', description: 'address to bind (default 127.0.0.1)' },
    profile: {
      type: 'string',
      value: 'NAME',
      description: 'realistic (default): renders as the real CMDB does, nulls and inconsistencies included (GET /_control/injected lists them); exact: only what the API document lists',
    },
    'extra-fields': { type: 'boolean', description: 'add fields the spec does not list to every record' },
    'fault-rate': { type: 'string', value: 'R', description: 'share of requests (0 to 1) that get a fault' },
    'fault-kinds': { type: 'string', value: 'LIST', description: `faults to draw from, comma-separated (default all: ${FAULT_KINDS.join(',')})` },
    'fault-slow-ms': { type: 'string', value: 'N', description: "delay of the 'slow' fault in milliseconds (default 300)" },
    'fail-path': { type: 'string', value: 'PATH', multiple: true, description: 'a path (with query, as sent) that always answers 500; repeatable' },
    'latency-ms': { type: 'string', value: 'N', description: 'mean service time per request in milliseconds, jittered deterministically (default 0)' },
    workers: {
      type: 'string',
      value: 'N',
      description: `requests served at once (default unlimited); others queue, and beyond ${QUEUE_PER_WORKER} waiting per worker get 503 with Retry-After: 1`,
    },
    'rate-limit': { type: 'string', value: 'N', description: 'a rate limiter in front of the service: above N requests within any one second, 429 with Retry-After: 1 (default none)' },
    'no-control': { type: 'boolean', description: `turn off the control endpoint; without this flag, clients on this machine may use it, with no token:${CONTROL_HELP}` },
  },
  async run(parsed, io) {
    const port = intFlag(parsed, 'port', 0, 65_535) ?? 0;
    const token = stringFlag(parsed, 'token') ?? io.env.INVENTORY_API_TOKEN;
    if (!token) throw new UsageError('upstream: a token is required: --token TOKEN or env INVENTORY_API_TOKEN');
    const seed = intFlag(parsed, 'seed', 0, 2 ** 32 - 1) ?? 1;
    const scale = intFlag(parsed, 'scale', 1, 1_000_000) ?? 200;
    const faults = faultFlags(parsed);
    const profile = profileFlag(parsed);
    const latencyMs = intFlag(parsed, 'latency-ms', 0, 600_000) ?? 0;
    const workers = intFlag(parsed, 'workers', 1, 100_000);
    const rateLimit = intFlag(parsed, 'rate-limit', 1, 1_000_000);

    const host = stringFlag(parsed, 'host') ?? '127.0.0.1';
    const upstream = await startUpstream({
      token,
      seed,
      scale,
      port,
      host,
      extraFields: Boolean(parsed.values['extra-fields']),
      faults,
      profile,
      latencyMs,
      workers,
      rateLimit,
      control: !parsed.values['no-control'],
    }).catch((error: NodeJS.ErrnoException) => {
      // A port taken or not allowed is the user's to change, not a bug.
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES' || error.code === 'EADDRNOTAVAIL') throw new UsageError(`cannot listen on ${host}:${port} (${error.code}); choose another --port or --host`);
      throw error;
    });
    const counts = upstream.counts();
    // Servers first: the scale is their number, the rest follows from it.
    const sizes = ['servers' as const, ...RESOURCE_NAMES.filter((r) => r !== 'servers')].map((resource) => `${counts[resource]} ${resource}`).join(', ');
    io.stdout.write(`upstream listening on ${upstream.url} (seed ${seed}, scale ${scale}, ${profile} profile: ${sizes})\n`);
    await untilStopSignal();
    await upstream.close();
    return 0;
  },
};
