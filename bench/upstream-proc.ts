/**
 * The bench's simulated service in its own process, so that the service, the floor clients and
 * the sync never share an event loop. Same data as `inventory-mirror upstream`, with every
 * rendered body kept, plus one bench-only control on stdin (the product's server gets no
 * admin endpoint):
 *
 *     mutate <share> <seed>   change that share of the records; answers one JSON line of counts
 *
 * Prints `upstream listening on URL` and then one JSON line of record counts. Stops on SIGTERM,
 * SIGINT or the end of stdin. The token comes from INVENTORY_API_TOKEN.
 *
 *     node dist-bench/bench/upstream-proc.js --scale N [--seed S] [--profile realistic|exact] [--latency-ms MS --workers N]
 *
 * `--profile` is handed to the service only when given, so this runs on builds with and without
 * data profiles (the bench refuses the flag on a build without them).
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { RESOURCE_NAMES } from '../src/spec/resources.js';
import { startUpstream, type MutationReport } from '../src/upstream/index.js';
import { PROFILES, type Profile } from './args.js';

/** Ids touched by a mutation, counted per kind over all resources. */
function countReport(report: MutationReport): { added: number; removed: number; changed: number } {
  const sum = (byResource: MutationReport['added']): number => RESOURCE_NAMES.reduce((n, r) => n + byResource[r].length, 0);
  return { added: sum(report.added), removed: sum(report.removed), changed: sum(report.changed) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { scale: { type: 'string' }, seed: { type: 'string' }, profile: { type: 'string' }, 'latency-ms': { type: 'string' }, workers: { type: 'string' } }, strict: true });
  const token = process.env.INVENTORY_API_TOKEN;
  if (!token) throw new Error('env INVENTORY_API_TOKEN is required');
  const profile = values.profile;
  if (profile !== undefined && !(PROFILES as readonly string[]).includes(profile)) throw new Error(`--profile: expected ${PROFILES.join(' or ')}, got ${JSON.stringify(profile)}`);
  const upstream = await startUpstream({
    token,
    scale: Number(values.scale ?? '20000'),
    seed: Number(values.seed ?? '1'),
    // Spread, so this compiles whether or not UpstreamOptions has a profile yet.
    ...(profile === undefined ? {} : { profile: profile as Profile }),
    // Every body stays rendered once the warm-up pass asked for it, at any scale: past the default
    // caches each timed pass rendered every record and filtered view again, which more than
    // doubled the floor's time at 200 000 servers and measured the simulator, not the clients.
    keepRendered: true,
    ...(values['latency-ms'] === undefined ? {} : { latencyMs: Number(values['latency-ms']) }),
    ...(values.workers === undefined ? {} : { workers: Number(values.workers) }),
  });
  process.stdout.write(`upstream listening on ${upstream.url}\n${JSON.stringify({ counts: upstream.counts() })}\n`);

  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const [command, share, seed] = line.trim().split(/\s+/);
    if (command === 'mutate') {
      const report = upstream.mutate({ share: Number(share), seed: Number(seed) });
      process.stdout.write(`${JSON.stringify({ mutated: countReport(report), counts: upstream.counts() })}\n`);
    } else {
      process.stdout.write(`${JSON.stringify({ error: `unknown command ${JSON.stringify(command)}; expected: mutate <share> <seed>` })}\n`);
    }
  });
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
    lines.once('close', () => resolve());
  });
  lines.close();
  await upstream.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`upstream-proc: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
