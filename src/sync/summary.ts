/** The human summary of a sync, printed to stdout. Pure. */
import { formatSyncChanges } from '../diff/format.js';
import { RESOURCE_NAMES } from '../spec/resources.js';
import { formatWarning } from '../validate/warnings.js';
import type { SyncResult } from './run.js';

const MAX_WARNING_LINES = 20;

export function formatSummary(result: SyncResult, source: string, out: string): string {
  const lines = [`${result.status === 'published' ? 'published' : 'unchanged'}: ${source} → ${out} in ${(result.durationMs / 1000).toFixed(1)}s`];
  const width = Math.max(...RESOURCE_NAMES.map((r) => r.length));
  for (const resource of RESOURCE_NAMES) lines.push(`  ${resource.padEnd(width)}  ${String(result.records[resource]).padStart(7)} records`);
  lines.push(`  ${'filtered views'.padEnd(width)}  ${String(result.views).padStart(7)}`);
  const kib = Math.round(result.bytesReceived / 1024);
  lines.push(`  requests ${result.requests} (${result.retries} retried, ${result.notModified} not modified, ${kib} KiB received), warnings ${result.warnings.length}`);
  lines.push(`  files ${result.written.length} written, ${result.removed.length} removed, ${result.unchanged} unchanged`);
  lines.push(`  ${formatSyncChanges(result.changes, result.initial)}`);
  return `${lines.join('\n')}\n`;
}

/** Warning lines for stderr, capped so a broken service cannot flood the log. */
export function formatWarnings(result: SyncResult, lastSyncFile: string): string {
  if (result.warnings.length === 0) return '';
  const lines = result.warnings.slice(0, MAX_WARNING_LINES).map((w) => `warning: ${formatWarning(w)}`);
  if (result.warnings.length > MAX_WARNING_LINES) lines.push(`warning: … and ${result.warnings.length - MAX_WARNING_LINES} more; all of them are in ${lastSyncFile}`);
  return `${lines.join('\n')}\n`;
}
