/** The bench's flags, checked: a problem is one line naming the flag. Pure. */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

/** The simulated service's data profiles (`upstream --profile`). */
export const PROFILES = ['realistic', 'exact'] as const;
export type Profile = (typeof PROFILES)[number];

/** Server counts of the scaling step when --scaling is not given (full runs only). */
export const DEFAULT_SCALING = [2_000, 20_000, 200_000] as const;

export interface BenchArgs {
  scale: number;
  concurrency: number;
  quick: boolean;
  json: string;
  maxMinutes: number;
  seed: number;
  /** Server counts of the scaling step, ascending; empty: no scaling step. */
  scaling: number[];
  /** Passed to the simulated service only when given; undefined leaves it its own default. */
  profile: Profile | undefined;
  /** Servers of the slow-service step (default 2000; --quick: 150). */
  slowScale: number;
}

/** A usage problem: the bench exits 2 with its message. */
export class UsageProblem extends Error {}

const USAGE = '--scale N --concurrency C --quick --json FILE --max-minutes M --seed S --scaling N,N,... --profile realistic|exact --slow-scale N';

function intArg(value: string | undefined, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new UsageProblem(`--${name}: expected a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
  return n;
}

/** `2000,20000,200000` as ascending distinct numbers. */
function scalingArg(value: string): number[] {
  const scales = value.split(',').map((part) => intArg(part.trim(), 'scaling', 10, 1_000_000, 0));
  return [...new Set(scales)].sort((a, b) => a - b);
}

/**
 * Parses the bench's command line. `profiles` says whether this build's simulated service has
 * data profiles: --profile is refused rather than silently ignored when it has none.
 */
export function parseBenchArgs(argv: string[], cwd: string, now: Date, options: { profiles: boolean }): BenchArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        scale: { type: 'string' },
        concurrency: { type: 'string' },
        quick: { type: 'boolean' },
        json: { type: 'string' },
        'max-minutes': { type: 'string' },
        seed: { type: 'string' },
        scaling: { type: 'string' },
        profile: { type: 'string' },
        'slow-scale': { type: 'string' },
      },
      strict: true,
    }));
  } catch (error) {
    throw new UsageProblem(`${error instanceof Error ? error.message.split('\n')[0] : String(error)}; options: ${USAGE}`);
  }
  const quick = Boolean(values.quick);
  const scale = intArg(values.scale, 'scale', 10, 1_000_000, quick ? 2000 : 20_000);
  let profile: Profile | undefined;
  if (values.profile !== undefined) {
    if (!(PROFILES as readonly string[]).includes(values.profile)) throw new UsageProblem(`--profile: expected ${PROFILES.join(' or ')}, got ${JSON.stringify(values.profile)}`);
    if (!options.profiles) throw new UsageProblem('--profile: the simulated service of this build has no data profiles (its upstream command takes no --profile)');
    profile = values.profile as Profile;
  }
  // A quick run scales only when asked to; a full run adds its own scale, measured anyway, to the default list.
  const scaling = values.scaling !== undefined ? scalingArg(values.scaling) : quick ? [] : [...new Set([...DEFAULT_SCALING, scale])].sort((a, b) => a - b);
  const stamp = now.toISOString().replace(/:/g, '-').replace(/\.\d+Z$/, 'Z');
  return {
    quick,
    scale,
    concurrency: intArg(values.concurrency, 'concurrency', 1, 256, 16),
    maxMinutes: intArg(values['max-minutes'], 'max-minutes', 1, 24 * 60, 20),
    seed: intArg(values.seed, 'seed', 0, 2 ** 32 - 1, 1),
    json: resolve(cwd, values.json ?? join('bench-results', `bench-${stamp}.json`)),
    scaling,
    profile,
    slowScale: intArg(values['slow-scale'], 'slow-scale', 10, 1_000_000, quick ? 150 : 2000),
  };
}
