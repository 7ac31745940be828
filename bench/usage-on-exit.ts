/**
 * Preloaded into a measured Node child (`node --import .../usage-on-exit.js ...`) when
 * /usr/bin/time is not installed: at exit, writes the process's own peak RSS and CPU time
 * (process.resourceUsage(), the same getrusage figures /usr/bin/time reports) to the file named
 * by the environment variable below. Does nothing without it.
 */
import { writeFileSync } from 'node:fs';

/** The environment variable naming the file to write. */
export const USAGE_FILE_ENV = 'IM_BENCH_USAGE_FILE';

/** What the file holds. */
export interface Usage {
  maxRssBytes: number;
  userMs: number;
  systemMs: number;
}

const file = process.env[USAGE_FILE_ENV];
if (file) {
  process.once('exit', () => {
    const usage = process.resourceUsage();
    const report: Usage = { maxRssBytes: usage.maxRSS * 1024, userMs: Math.round(usage.userCPUTime / 1000), systemMs: Math.round(usage.systemCPUTime / 1000) };
    try {
      writeFileSync(file, JSON.stringify(report));
    } catch {
      // A measurement, never a reason to change how the child exits.
    }
  });
}
