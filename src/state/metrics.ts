/**
 * `--metrics-file FILE`: the last run in Prometheus' text format, for node_exporter's textfile
 * collector (the usual way to watch a cron job): last success time, duration, records per
 * resource, requests, 304s, findings, status. Replaced whole (temp file, then rename), as the
 * collector requires; the last success time survives a failed run.
 */
import { readFile } from 'node:fs/promises';
import { DiskError, describeFsError } from '../errors.js';
import { RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import { replaceFile } from '../util/atomic-write.js';

/** What a metrics file says of a run; `result` is absent for a failed run. */
interface RunMetrics {
  at: Date;
  durationMs: number;
  /** skipped: another run held the folder (--wait-lock ran out, or none was given). */
  status: 'published' | 'unchanged' | 'dry-run' | 'failed' | 'skipped';
  records?: Partial<Record<ResourceName, number>>;
  requests?: number;
  notModified?: number;
  /** Answers that said the service is overloaded, by status. */
  overloadAnswers?: Record<string, number>;
  concurrency?: { lowest: number; highest: number };
  findings?: { total: number; accepted: number; groups: { resource: ResourceName; code: string; count: number }[] };
  /** Retries the run made, and the 429 pace cuts among its reasons to slow down. */
  retries?: number;
  throttleCuts?: number;
  /** Records added, removed and changed per resource. */
  changes?: Record<ResourceName, { added: number; removed: number; changed: number }>;
  /** A `mirror` label on every sample (--metrics-label), to tell two mirrors on one host apart. */
  mirror?: string | undefined;
  /** The time of the last successful run, when this one failed (read from the previous file). */
  lastSuccess?: Date;
}

/** Series of the snapshot rather than of the run: a failed or skipped run carries them over from the previous file. */
const SNAPSHOT_SERIES = ['records', 'findings', 'findings_by_code'];

const PREFIX = 'inventory_mirror';

const label = (value: string): string => value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));

/** The file's text. Pure. */
function metricsText(metrics: RunMetrics): string {
  const lines: string[] = [];
  const gauge = (name: string, help: string, samples: [string, number][]): void => {
    lines.push(`# HELP ${PREFIX}_${name} ${help}`, `# TYPE ${PREFIX}_${name} gauge`);
    for (const [labels, value] of samples) lines.push(`${PREFIX}_${name}${withMirror(labels, metrics.mirror)} ${value}`);
  };
  const ok = metrics.status !== 'failed';
  const success = ok && metrics.status !== 'skipped' ? metrics.at : metrics.lastSuccess;
  gauge('last_run_timestamp_seconds', 'When the last sync finished (Unix time).', [['', Math.round(metrics.at.getTime() / 1000)]]);
  gauge('last_run_success', '1 when the last sync succeeded (or was skipped because another run held the folder), 0 when it failed.', [['', ok ? 1 : 0]]);
  gauge('last_run_duration_seconds', 'How long the last sync took.', [['', metrics.durationMs / 1000]]);
  gauge('last_run_status', 'The outcome of the last sync (1 for the one that applies).', (['published', 'unchanged', 'dry-run', 'failed', 'skipped'] as const).map((s) => [`{status="${s}"}`, s === metrics.status ? 1 : 0]));
  if (success) gauge('last_success_timestamp_seconds', 'When the last successful sync finished (Unix time).', [['', Math.round(success.getTime() / 1000)]]);
  if (metrics.records) gauge('records', 'Records per resource in the published snapshot.', RESOURCE_NAMES.flatMap((r) => (metrics.records![r] === undefined ? [] : [[`{resource="${r}"}`, metrics.records![r]] as [string, number]])));
  if (metrics.requests !== undefined) gauge('last_run_requests', 'Requests the last sync made.', [['', metrics.requests]]);
  if (metrics.retries !== undefined) gauge('last_run_retries', 'Requests of the last sync that were tried again (any reason).', [['', metrics.retries]]);
  if (metrics.throttleCuts !== undefined) gauge('last_run_throttle_cuts', 'Times the last sync slowed its pace because the service answered 429 as a rate limit.', [['', metrics.throttleCuts]]);
  if (metrics.changes) {
    const changes = metrics.changes;
    gauge('last_run_changes', 'Records the last sync added, removed and changed, per resource.', RESOURCE_NAMES.flatMap((r) => (['added', 'removed', 'changed'] as const).map((kind): [string, number] => [`{resource="${r}",change="${kind}"}`, changes[r][kind]])));
  }
  if (metrics.notModified !== undefined) gauge('last_run_not_modified', 'Requests of the last sync answered 304 Not Modified.', [['', metrics.notModified]]);
  if (metrics.overloadAnswers) {
    const answers = metrics.overloadAnswers;
    gauge('last_run_overload_answers', 'Answers of the last sync that said the service is overloaded, by status.', ['429', '503'].map((s) => [`{status="${s}"}`, answers[s] ?? 0]));
  }
  if (metrics.concurrency) {
    const { lowest, highest } = metrics.concurrency;
    gauge('last_run_concurrency', 'The range of requests in flight the last sync allowed itself.', [['{bound="lowest"}', lowest], ['{bound="highest"}', highest]]);
  }
  if (metrics.findings) {
    gauge('findings', 'Data-quality findings of the snapshot (all, and accepted by quality.accept).', [
      ['{accepted="false"}', metrics.findings.total - metrics.findings.accepted],
      ['{accepted="true"}', metrics.findings.accepted],
    ]);
    const byCode = new Map<string, number>();
    for (const g of metrics.findings.groups) byCode.set(`{resource="${label(g.resource)}",code="${label(g.code)}"}`, (byCode.get(`{resource="${label(g.resource)}",code="${label(g.code)}"}`) ?? 0) + g.count);
    gauge('findings_by_code', 'Data-quality findings per resource and code.', [...byCode].sort(([a], [b]) => (a < b ? -1 : 1)));
  }
  return `${lines.join('\n')}\n`;
}

/** `labels` (`` or `{a="b"}`) with the mirror label first, when there is one. */
function withMirror(labels: string, mirror: string | undefined): string {
  if (mirror === undefined) return labels;
  const own = `mirror="${label(mirror)}"`;
  return labels === '' ? `{${own}}` : `{${own},${labels.slice(1)}`;
}

/** The snapshot's series of a previous file (HELP, TYPE and samples), to carry over a run that has none. */
function snapshotSeries(text: string): string {
  const names = new Set(SNAPSHOT_SERIES.map((name) => `${PREFIX}_${name}`));
  const series = (line: string): string | undefined => (line.startsWith('# ') ? line.split(' ')[2] : /^[a-z_]+/.exec(line)?.[0]);
  return text
    .split('\n')
    .filter((line) => names.has(series(line) ?? ''))
    .map((line) => `${line}\n`)
    .join('');
}

/** The last success time the text of a metrics file records, or undefined. */
function lastSuccessIn(text: string): Date | undefined {
  const match = new RegExp(`^${PREFIX}_last_success_timestamp_seconds (\\d+)$`, 'm').exec(text);
  return match ? new Date(Number(match[1]) * 1000) : undefined;
}

/** Replaces the metrics file atomically. */
export async function writeMetrics(file: string, metrics: RunMetrics): Promise<void> {
  try {
    const previous = await readFile(file, 'utf8').catch(() => '');
    const carried = metrics.records === undefined ? snapshotSeries(previous) : '';
    await replaceFile(file, metricsText({ ...metrics, lastSuccess: metrics.lastSuccess ?? lastSuccessIn(previous) }) + carried);
  } catch (error) {
    throw new DiskError(`--metrics-file ${file}: cannot write it: ${describeFsError(error) ?? String(error)}; check that its folder exists and is writable`, { cause: error });
  }
}
