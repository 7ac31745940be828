/**
 * The incremental step: at a scale, no-change `sync --incremental` runs over the folder a full sync
 * and re-sync left, and one after a 1% change upstream, judged against issue 32's targets: a
 * no-change run asks for at most the lists, the views, ceil(records / N) refreshes and 1% more,
 * and takes at most 1/N of the full no-change re-sync's time plus 2 s. The no-change run is timed
 * in rounds, the fastest kept, as the bench times everything else.
 */
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

/** The refresh period the bench runs with (the default). */
export const REFRESH_RUNS = 7;

/** One incremental run, as the bench saw it and as the sync recorded it. */
export interface IncrementalRun {
  wallMs: number;
  requests: number;
  /** Single records asked for, and why. */
  fetched: number;
  reasons: Record<string, number>;
  written: number;
  /** Every round's wall time, when the run was timed in rounds. */
  runsMs?: number[];
}

export interface IncrementalResult {
  scale: number;
  records: number;
  views: number;
  /** The full no-change re-sync it is compared with. */
  resyncMs: number;
  noChange: IncrementalRun;
  /** After a 1% mutation upstream. */
  afterChange?: (IncrementalRun & { changed: number }) | undefined;
  /** The targets' bounds at this scale. */
  bound: { requests: number; ms: number };
}

/** The bounds of issue 32 at `records` records and `views` views, for a re-sync of `resyncMs`. Pure. */
export function incrementalBound(records: number, views: number, resyncMs: number): IncrementalResult['bound'] {
  return { requests: 5 + views + Math.ceil(records / REFRESH_RUNS) + Math.ceil(records * 0.01), ms: resyncMs / REFRESH_RUNS + 2_000 };
}

/**
 * The fastest of no-change runs, with the most requests and files written of any: a round that
 * asked for more or wrote a file is judged as the run. Pure.
 */
export function fastestRun<Run extends IncrementalRun>(runs: readonly Run[]): Run {
  if (runs.length === 0) throw new Error('fastestRun needs at least one run');
  const fastest = runs.reduce((a, b) => (b.wallMs < a.wallMs ? b : a));
  return {
    ...fastest,
    requests: Math.max(...runs.map((run) => run.requests)),
    written: Math.max(...runs.map((run) => run.written)),
    runsMs: runs.map((run) => run.wallMs),
  };
}

/**
 * What misses a target; `timed`: judge the time too (not in --quick, whose scale is so small that
 * process start-up is most of every run). Pure.
 */
export function incrementalProblems(result: IncrementalResult, timed: boolean): string[] {
  const problems: string[] = [];
  const at = `at ${result.scale} servers`;
  if (result.noChange.requests > result.bound.requests) problems.push(`a no-change incremental sync ${at} made ${result.noChange.requests} requests; the bound is ${result.bound.requests}`);
  if (result.noChange.written !== 0) problems.push(`a no-change incremental sync ${at} wrote ${result.noChange.written} files; it must write none`);
  if (timed && result.noChange.wallMs > result.bound.ms) problems.push(`a no-change incremental sync ${at} took ${seconds(result.noChange.wallMs)}; the bound is ${seconds(result.bound.ms)} (re-sync / ${REFRESH_RUNS} + 2 s)`);
  return problems;
}
