/**
 * How the domain (sync, serve, schedule) tells the user what happens, without knowing where lines
 * go: the CLI decides what each level shows (quiet, default, verbose), on a terminal or not, as
 * text or as JSON lines for log collectors, and keeps them apart from a progress line.
 */
export interface Log {
  /** Something the operator must see (a stale lock taken over, an unreachable webhook). */
  warn(message: string): void;
  /** What a run did, worth a line in the default mode (a recovered publish, a git commit). */
  info(message: string): void;
  /** Detail worth a line on a terminal or with -v, not in cron mail (each retry). */
  detail(message: string): void;
}

/** A log that shows nothing (library use without a log, tests). */
export const silentLog: Log = { warn() {}, info() {}, detail() {} };
