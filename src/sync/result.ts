/**
 * What a sync returns and records: counts, requests, findings in aggregate, the files it wrote,
 * the changes it made. Built by pure functions from the run's state; `_meta/last-sync.json` is
 * this record without the long lists.
 */
import { createHash } from 'node:crypto';
import type { ChangeSet } from '../diff/change-set.js';
import { countChanges } from '../diff/engine.js';
import type { ResourceName } from '../spec/resources.js';
import { acceptor, patternFor } from '../validate/accept.js';
import { CODE_MEANINGS, preview, type FindingCode, type FindingGroup } from '../validate/findings.js';
import { shareOf } from '../validate/quality.js';
import type { ShapeFacts } from '../validate/findings.js';

/** Examples kept per group of findings. */
const EXAMPLES = 3;

/** Paths kept of the files written and removed: the whole lists can name every file of the snapshot. */
export const FILE_SAMPLE = 20;

export interface FileCounts {
  written: number;
  removed: number;
  unchanged: number;
  /** The first paths written and removed, in the manifest's order (at most FILE_SAMPLE each). */
  sample: { written: string[]; removed: string[] };
}

/** The counts of what a publish writes and removes, out of `files` in all. */
export function fileCounts(pending: { written: readonly string[]; removed: readonly string[] }, files: number): FileCounts {
  return {
    written: pending.written.length,
    removed: pending.removed.length,
    unchanged: files - pending.written.length,
    sample: { written: pending.written.slice(0, FILE_SAMPLE), removed: pending.removed.slice(0, FILE_SAMPLE) },
  };
}

export interface GroupSummary {
  resource: ResourceName;
  field: string;
  code: FindingCode;
  count: number;
  /** Of the resource's records. */
  share: number;
  accepted: boolean;
  /** The first ids, each with its record's name when it has one, and the value when the code carries one. */
  examples: { id: string; name?: string; value?: string }[];
  /** A digest of the group's ids: groups with the same one concern the same records (a summary folds them into one line). */
  idsDigest: string;
}

export interface FindingsSummary {
  total: number;
  accepted: number;
  /** Largest first. */
  groups: GroupSummary[];
  /** Fields only one rendering (list item or single view) carries, per resource. */
  shape: ShapeFacts;
}

/** The 429 answers of a sync and the pace they made it keep. */
export interface ThrottleSummary {
  /** Answers that were 429, and all answers. */
  refused: number;
  answers: number;
  /** Times the pace was cut; 0: the 429s came scattered, not as a rate limit. */
  cuts: number;
  /** The slowest and the last pace, requests a second; undefined when never paced. */
  lowestRate: number | undefined;
  rate: number | undefined;
  /** Milliseconds from the first request to the first 429. */
  firstRefusedAfterMs: number | undefined;
}

export interface SyncResult {
  status: 'published' | 'unchanged' | 'dry-run';
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** The service, without credentials or query. */
  baseUrl: string;
  out: string;
  records: Partial<Record<ResourceName, number>>;
  views: number;
  requests: number;
  retries: number;
  notModified: number;
  bytesReceived: number;
  /** Retries per reason. */
  retryReasons: Record<string, number>;
  /** The configured cap on requests in flight (the ceiling, when adaptive) and the range the cap took. */
  concurrency: { configured: number; adaptive: boolean; lowest: number; highest: number };
  /** Answers that said the service is overloaded, by status ("429", "503"). */
  overloadAnswers: Record<string, number>;
  /** What the service's 429 answers did: how many, and the pace of requests they set (undefined: none set). */
  throttle: ThrottleSummary;
  findings: FindingsSummary;
  /** Files written (staged and placed), removed and left as they were; for a dry run, that would be. */
  files: FileCounts;
  /** Records added, removed and changed against the snapshot this sync replaced. */
  changes: ChangeSet;
  /** Set when the folder held no snapshot before (every record counts as added). */
  initial: boolean;
  /** Which single records were fetched, and why. */
  fetch: FetchSummary;
}

/** Which single records a sync fetched, and why. */
export interface FetchSummary {
  /** `incremental` when records were planned incrementally (for some resources at least), else `full`. */
  mode: 'full' | 'incremental';
  /** Records in the lists. */
  records: number;
  /** Of them, fetched (asked for, a 304 included). */
  fetched: number;
  /** Fetched, by reason. */
  reasons: { new: number; changed: number; cascade: number; refresh: number; recheck: number };
  /** Why an incremental sync fetched more than it would have (one line each); empty for a full sync. */
  fallbacks: string[];
}

/** The aggregate of a run's findings, largest group first, each marked accepted or not. */
export function summarizeFindings(groups: readonly FindingGroup[], records: Partial<Record<ResourceName, number>>, accept: readonly string[], shape: ShapeFacts): FindingsSummary {
  const accepted = acceptor(accept);
  const summaries = groups
    .map((g) => ({
      resource: g.resource,
      field: g.field,
      code: g.code,
      count: g.ids.length,
      share: shareOf(g.ids.length, records[g.resource] ?? 0),
      accepted: accepted(g),
      examples: g.ids.slice(0, EXAMPLES).map((id) => {
        const name = g.names?.get(id);
        const value = g.values.get(id);
        return { id, ...(name === undefined ? {} : { name }), ...(value === undefined ? {} : { value: preview(value) }) };
      }),
      idsDigest: createHash('sha256').update(g.ids.join('\n')).digest('hex').slice(0, 16),
    }))
    .sort((a, b) => b.count - a.count);
  return {
    total: summaries.reduce((n, g) => n + g.count, 0),
    accepted: summaries.filter((g) => g.accepted).reduce((n, g) => n + g.count, 0),
    groups: summaries,
    shape,
  };
}

/** `appservers dbconn_url null: 3012 records (30.1%), e.g. 12 (web-01), 15 (web-02), 19`; a value after the name: `12 (web-01: "x")`. */
export function describeGroup(group: GroupSummary): string {
  const examples = group.examples.map((e) => (e.name === undefined && e.value === undefined ? e.id : `${e.id} (${[e.name, e.value].filter((part) => part !== undefined).join(': ')})`)).join(', ');
  return `${group.resource}${group.field ? ` ${group.field}` : ''} ${group.code}: ${group.count} record${group.count === 1 ? '' : 's'} (${(group.share * 100).toFixed(1)}%), e.g. ${examples}`;
}

/** Findings a strict sync refuses: those no accept pattern covers. */
export interface StrictProblem {
  count: number;
  groups: number;
  message: string;
  /** The accept patterns that would cover them, largest group first. */
  patterns: string[];
}

/** In a strict sync, the findings not accepted, named by their largest group; undefined when none. */
export function strictProblem(summary: FindingsSummary): StrictProblem | undefined {
  const open = summary.groups.filter((g) => !g.accepted);
  if (open.length === 0) return undefined;
  const count = open.reduce((n, g) => n + g.count, 0);
  const top = open[0]!;
  const message = `strict: ${count} finding${count === 1 ? '' : 's'} not accepted by quality.accept, in ${open.length} group${open.length === 1 ? '' : 's'}; nothing was published. The largest: ${describeGroup(top)} (${CODE_MEANINGS[top.code]}). Fix the data, or accept it: ${acceptHint(open)}`;
  return { count, groups: open.length, message, patterns: open.map(patternFor) };
}

/** The one line that tells how to accept groups of findings: every pattern, so it can be pasted as it is. */
export function acceptHint(groups: readonly Pick<GroupSummary, 'resource' | 'field' | 'code'>[]): string {
  return `add ${groups.map((g) => JSON.stringify(patternFor(g))).join(', ')} to "quality": {"accept": [...]} in the config (they are still counted and published)`;
}

/** The record of a run kept in `_meta/last-sync.json`: the result without its long lists. */
export function lastSyncRecord(result: SyncResult, bootId: string | undefined): Record<string, unknown> {
  const { files, changes, ...rest } = result;
  const { sample: _, ...counts } = files;
  return { ...rest, files: counts, changes: countChanges(changes), ...(bootId ? { bootId } : {}) };
}

/** The one-line record of a finished run, as `schedule` prints it and the webhook and metrics use it. */
export interface RunRecord {
  event: 'run';
  start: string;
  end: string;
  status: 'ok' | 'unchanged' | 'failed';
  records?: Partial<Record<ResourceName, number>>;
  changes?: Record<ResourceName, { added: number; removed: number; changed: number }>;
  requests?: number;
  notModified?: number;
  /** Single records fetched, and whether the run was incremental. */
  fetched?: number;
  mode?: FetchSummary['mode'];
  findings?: number;
  error?: string;
}

/** The outcome of one sync as its record. Pure. */
export function runRecord(start: Date, end: Date, outcome: { result: SyncResult } | { error: string }): RunRecord {
  const base = { event: 'run' as const, start: start.toISOString(), end: end.toISOString() };
  if ('error' in outcome) return { ...base, status: 'failed', error: outcome.error };
  const { result } = outcome;
  return {
    ...base,
    status: result.status === 'published' ? 'ok' : 'unchanged',
    records: result.records,
    changes: countChanges(result.changes),
    requests: result.requests,
    notModified: result.notModified,
    fetched: result.fetch.fetched,
    mode: result.fetch.mode,
    findings: result.findings.total,
  };
}
