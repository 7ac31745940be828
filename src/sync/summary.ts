/** The human summary of a sync, printed to stdout: at most a screenful whatever the inventory. Pure. */
import { formatSyncChanges } from '../diff/format.js';
import { RESOURCE_NAMES } from '../spec/resources.js';
import { printable } from '../util/printable.js';
import { acceptHint, describeGroup, type GroupSummary, type SyncResult } from './result.js';

/** Groups of findings listed; the rest are counted, and all of them are in _meta/quality.json. */
const MAX_GROUPS = 12;

function retryLine(result: SyncResult): string {
  const reasons = Object.entries(result.retryReasons).sort((a, b) => b[1] - a[1]);
  if (reasons.length === 0) return `${result.retries} retried`;
  return `${result.retries} retried: ${reasons.slice(0, 3).map(([reason, n]) => `${n}× ${reason}`).join(', ')}${reasons.length > 3 ? ', …' : ''}`;
}

function concurrencyLine({ concurrency, overloadAnswers }: SyncResult): string {
  const { lowest, highest, configured, adaptive } = concurrency;
  const range = lowest === highest ? `${lowest}` : `${lowest} to ${highest}`;
  const overloads = Object.entries(overloadAnswers).map(([status, n]) => `${n}× ${status}`);
  return `in flight ${range} (${adaptive ? `adaptive, at most ${configured}` : 'fixed'}); ${overloads.length ? `overloaded answers: ${overloads.join(', ')}` : 'no 429 or 503 answers'}`;
}

/** `records: 812 of 36030 fetched (new 3, changed in the list 6, through embedded records 41, refresh 762), incremental`. */
function fetchLine({ fetch }: SyncResult): string {
  const { new: added, changed, cascade, refresh, recheck } = fetch.reasons;
  const parts = [
    [added, 'new'],
    [changed, 'changed in the list'],
    [cascade, 'through embedded records'],
    [refresh, 'refresh'],
    [recheck, fetch.mode === 'full' ? 'asked whether changed' : 'asked in full'],
  ]
    .filter(([n]) => n !== 0)
    .map(([n, label]) => `${label} ${n}`);
  return `records: ${fetch.fetched} of ${fetch.records} fetched${parts.length ? ` (${parts.join(', ')})` : ''}, ${fetch.mode}`;
}

/**
 * When the service answered 429, and what it cost: scattered refusals (each request waited its own
 * Retry-After) or a rate limit (the pace it set). Undefined when it never did.
 */
export function throttleLine({ throttle }: Pick<SyncResult, 'throttle'>): string | undefined {
  const { refused, answers, cuts, lowestRate, rate, firstRefusedAfterMs } = throttle;
  if (refused === 0) return undefined;
  const share = `${refused} of ${answers} answers were 429 Too Many Requests (${((refused / Math.max(1, answers)) * 100).toFixed(1)}%)`;
  if (cuts === 0 || lowestRate === undefined) return `the service refused now and then: ${share}; each waited its own Retry-After, the pace was kept`;
  const when = firstRefusedAfterMs === undefined ? '' : ` from ${(firstRefusedAfterMs / 1000).toFixed(1)} s on`;
  return `the service throttled us${when}: ${share}; paced down ${cuts} time${cuts === 1 ? '' : 's'}, to ${lowestRate} requests/s at the slowest, ${rate}/s at the end`;
}

export function formatSummary(result: SyncResult, source: string): string {
  const verb = result.status === 'dry-run' ? 'dry run (nothing published)' : result.status;
  const lines = [`${verb}: ${source} → ${result.out} in ${(result.durationMs / 1000).toFixed(1)}s`];
  const width = Math.max(...RESOURCE_NAMES.map((r) => r.length));
  // Only the resources mirrored (config `resources`) have a count.
  for (const resource of RESOURCE_NAMES) {
    const count = result.records[resource];
    if (count !== undefined) lines.push(`  ${resource.padEnd(width)}  ${String(count).padStart(7)} records`);
  }
  lines.push(`  ${'filtered views'.padEnd(width)}  ${String(result.views).padStart(7)}`);
  const kib = Math.round(result.bytesReceived / 1024);
  const rate = Math.round(result.requests / Math.max(result.durationMs / 1000, 0.001));
  lines.push(`  requests ${result.requests} at ${rate}/s (${retryLine(result)}, ${result.notModified} not modified, ${kib} KiB received)`);
  lines.push(`  ${concurrencyLine(result)}`);
  lines.push(`  ${fetchLine(result)}`);
  for (const line of result.fetch.fallbacks) lines.push(`  not incremental: ${line}`);
  const throttled = throttleLine(result);
  if (throttled) lines.push(`  ${throttled}`);
  const files = result.status === 'dry-run' ? 'would write' : 'files';
  lines.push(`  ${files} ${result.files.written}${result.status === 'dry-run' ? ', remove' : ' written,'} ${result.files.removed}${result.status === 'dry-run' ? '' : ' removed'}, ${result.files.unchanged} unchanged`);
  lines.push(`  ${formatSyncChanges(result.changes, result.initial)}`);
  lines.push(...formatFindings(result));
  // Ids, field names and paths come from the service: each line stays one line.
  return `${lines.map(printable).join('\n')}\n`;
}

/**
 * Groups of one resource and code that concern exactly the same records, as one line naming all
 * their fields (`appservers dbconn_db, dbconn_driver, dbconn_url null: 3028 records`): five fields
 * empty together are one fact about those records, not five. Order kept, largest first.
 */
export function foldGroups(groups: readonly GroupSummary[]): GroupSummary[] {
  const folded = new Map<string, GroupSummary>();
  for (const group of groups) {
    const key = `${group.resource}\u0000${group.code}\u0000${group.accepted}\u0000${group.idsDigest}`;
    const seen = folded.get(key);
    if (seen && group.field && seen.field) folded.set(key, { ...seen, field: `${seen.field}, ${group.field}` });
    else if (!seen) folded.set(key, group);
    else folded.set(`${key}\u0000${folded.size}`, group);
  }
  return [...folded.values()];
}

/** The findings part of the summary: counts, the largest groups, the shape facts, how to accept. */
function formatFindings(result: SyncResult): string[] {
  const { findings } = result;
  const lines: string[] = [];
  if (findings.total === 0) lines.push('  findings: none');
  else {
    const open = findings.groups.filter((g) => !g.accepted);
    lines.push(`  findings: ${findings.total} in ${findings.groups.length} group${findings.groups.length === 1 ? '' : 's'}${findings.accepted ? ` (${findings.accepted} accepted)` : ''}; the largest:`);
    const folded = foldGroups(findings.groups);
    for (const group of folded.slice(0, MAX_GROUPS)) lines.push(`    ${group.accepted ? '(accepted) ' : ''}${describeGroup(group)}`);
    if (folded.length > MAX_GROUPS) lines.push(`    … and ${folded.length - MAX_GROUPS} more lines of groups; every finding is in _meta/quality.json`);
    if (open.length) lines.push(`  to accept them: ${acceptHint(open)}`);
  }
  for (const resource of RESOURCE_NAMES) {
    const shape = findings.shape[resource];
    if (!shape) continue;
    const parts = [shape.listOnly.length ? `only in the list: ${shape.listOnly.join(', ')}` : '', shape.singleOnly.length ? `only in the single view: ${shape.singleOnly.join(', ')}` : ''].filter(Boolean);
    lines.push(`  ${resource} fields ${parts.join('; ')} (the service's shape, not a finding)`);
  }
  return lines;
}
