/**
 * One sync, in one direction: plan → pull → assemble → publish. It takes the folder's lock (unless
 * the caller holds it), finishes any interrupted publish, reads the snapshot it replaces, pulls
 * the lists, then every view and record as the plan says, assembles the new snapshot's own files,
 * and publishes it through one journal. The folder is touched only after everything was fetched
 * and checked; a failure before then leaves it as it was.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { z } from 'zod';
import { configSchema, filtersSchema, syncSchema, type Config } from '../config/schema.js';
import type { redactSchema } from '../redact/policy.js';
import { AbortedError, ConfigError, DiskError, StrictError } from '../errors.js';
import { Client } from '../fetch/client.js';
import { planViews } from '../index/views.js';
import { silentLog, type Log } from '../log.js';
import { recover } from '../publish/journal.js';
import { checkForeignFiles, holdOutput, type HeldOutput } from '../publish/output.js';
import { HTTP_CACHE_FILE, LAST_SYNC_FILE } from '../snapshot/paths.js';
import { SnapshotWriter } from '../publish/writer.js';
import type { LoadedKey } from '../sign/keys.js';
import { signManifest, signsManifest } from '../sign/signature.js';
import { RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import { currentBootId } from '../state/boot.js';
import { httpCacheChunks } from '../snapshot/http-cache.js';
import { displayUrl, encodeLastSync, syncedInBoot } from '../snapshot/last-sync.js';
import { scrub } from '../util/secrets.js';
import { appserverServerFindings, databaseNameFindings, publishedValue, serverNames } from '../validate/crosscheck.js';
import { FindingSet, type Finding } from '../validate/findings.js';
import { replayFindings, shapeFacts } from '../validate/quality.js';
import { assemble } from './assemble.js';
import { pullList, type ListSummary } from './lists.js';
import { readPrevious } from './previous.js';
import { silentProgress, type Progress } from './progress.js';
import { pullRecords } from './pull.js';
import { RecordChecker } from './record-checker.js';
import { lastSyncRecord, strictProblem, summarizeFindings, type SyncResult } from './result.js';

export type { SyncResult } from './result.js';

/** A sync's options; every setting but the service, the token and the folder has a default. */
export interface SyncOptions {
  baseUrl: string;
  token: string;
  /** The output folder (absolute, or relative to the working directory). */
  out: string;
  /** The config's `sync` section (concurrency, retries, timeouts, strict, limits); defaults inside. */
  settings?: z.input<typeof syncSchema>;
  /** Values to precompute for the filters that cannot be discovered (config `filters`). */
  filters?: z.input<typeof filtersSchema>;
  /** Fields removed or masked before anything is written (config `redact`). */
  redact?: z.input<typeof redactSchema>;
  /** Accepted deviations (config `quality.accept`): counted, never warned about, not failing --strict. */
  accept?: readonly string[];
  /** Change sets kept in _meta/changes.json (config changes.keep). */
  changesKeep?: number;
  /** Also write the offline page (index.html, _browser/). */
  browser?: boolean;
  /** Signs each published manifest into _meta/manifest.sig. */
  signKey?: LoadedKey;
  /** Publish even when a resource loses more than sync.massRemoval.maxShare of its records. */
  allowMassRemoval?: boolean;
  /** Publish into a folder that holds files but no snapshot. */
  allowNonEmpty?: boolean;
  /** Pull and check everything, then report what would be written and removed; publish nothing. */
  dryRun?: boolean;
  /** Writes every finding to this file, one JSON object per line. */
  warningsFile?: string;
  /** The folder, made ready and locked by the caller (to commit the snapshot to git before letting go). */
  held?: HeldOutput;
  log?: Log;
  progress?: Progress;
  /** Stops the sync before it publishes (a shutdown); the folder keeps its previous snapshot. */
  signal?: AbortSignal;
}

/** The options with every default applied; a bad value is a ConfigError naming the setting. */
function settle(options: SyncOptions): Config {
  const result = configSchema.safeParse({
    sync: options.settings ?? {},
    filters: options.filters ?? {},
    redact: options.redact ?? {},
    quality: { accept: options.accept ?? [] },
    changes: options.changesKeep === undefined ? {} : { keep: options.changesKeep },
  });
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new ConfigError(`sync options: ${issue.path.join('.')}: ${issue.message}`);
  }
  return result.data;
}

/** Every finding, one JSON object per line, as the run makes them. */
class WarningsFile {
  readonly #stream: WriteStream;
  #failed: Error | undefined;

  constructor(path: string) {
    this.#stream = createWriteStream(path);
    this.#stream.on('error', (error) => {
      this.#failed ??= error;
    });
  }

  write(finding: Finding): void {
    if (!this.#stream.write(`${scrub(JSON.stringify(finding))}\n`)) this.#stream.once('drain', () => {});
  }

  #closed: Promise<void> | undefined;

  /** Ends the file; a second call (the failure path after a normal close) waits for the same end. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#stream.end();
      if (!this.#failed) await once(this.#stream, 'close').catch(() => undefined);
      if (this.#failed) throw new DiskError(`--warnings-file: cannot write it: ${this.#failed.message}`);
    })();
    return this.#closed;
  }
}

/** Runs one sync of `options.baseUrl` into `options.out`. */
export async function sync(options: SyncOptions): Promise<SyncResult> {
  const config = settle(options);
  const settings = config.sync;
  const log = options.log ?? silentLog;
  const progress = options.progress ?? silentProgress;
  const started = new Date();
  const held = options.held ?? (await holdOutput(options.out, 'sync'));
  const out = held.out;
  if (!options.held && held.lock.warning) log.warn(held.lock.warning);
  let published = false;
  let writer: SnapshotWriter | undefined;
  const client = new Client({
    baseUrl: options.baseUrl,
    token: options.token,
    concurrency: settings.concurrency,
    adaptive: settings.adaptive,
    maxRequestsPerSecond: settings.maxRequestsPerSecond,
    timeoutMs: settings.timeoutMs,
    requestDeadlineMs: settings.requestDeadlineMs,
    deadlineMs: settings.deadlineMs,
    maxBodyBytes: settings.maxBodyBytes,
    retry: { retries: settings.retries, baseMs: settings.retryBaseMs, maxMs: settings.retryMaxMs },
    onResponse: () => progress.tick(),
    onRetry: (path, reason, delay) => log.detail(scrub(`retrying GET ${path} in ${delay} ms: ${reason}`)),
    onConcurrency: (limit, reason) => log.detail(`the service is overloaded (${reason}): ${limit} request${limit === 1 ? '' : 's'} in flight at most for now`),
    signal: options.signal,
  });
  const warnings = options.warningsFile ? new WarningsFile(options.warningsFile) : undefined;
  const records = new RecordChecker(config.redact);
  try {
    const recovered = await recover(out);
    if (recovered) log.info(recovered);
    if (!options.allowNonEmpty) await checkForeignFiles(out);
    const previous = await readPrevious(out, config.redact);
    // A first sync checks every record; a re-sync may check none, and starts the thread only if it does.
    if (!previous) records.startEarly();
    const bootId = currentBootId();
    writer = await SnapshotWriter.open(out, previous && { table: previous.table, sha256: previous.manifestSha256 }, { sameBoot: previous !== undefined && (await syncedInBoot(out, bootId)) });
    const findings = new FindingSet();
    const report = (finding: Finding): void => {
      if (findings.add(finding)) warnings?.write(finding);
    };

    // Plan and pull: the lists, then every view and record.
    progress.planned(RESOURCE_NAMES.length);
    const listContext = { client, writer, redact: config.redact, maxRecords: settings.maxRecords };
    const lists = Object.fromEntries(await Promise.all(RESOURCE_NAMES.map(async (r) => [r, await pullList(r, listContext)] as const))) as Record<ResourceName, ListSummary>;
    for (const resource of RESOURCE_NAMES) for (const finding of lists[resource].findings) report(finding);
    const views = planViews({ osIds: [...lists.operating_systems.ids], fieldValues: (resource) => (resource === 'databases' ? lists.databases.types : []) }, config.filters);
    const fetched = RESOURCE_NAMES.length + views.length + RESOURCE_NAMES.reduce((n, r) => n + lists[r].ids.length, 0);
    progress.planned(fetched);
    // Room for the snapshot's own files too (index, quality, history, the offline page's buckets).
    writer.expect(Math.ceil(fetched * 1.01) + 1024);
    const carry = previous?.cached === true && previous.quality !== undefined;
    const pulled = await pullRecords(views, { client, writer, records, redact: config.redact, lists, carry, width: settings.concurrency * 2, report });
    // Its heap (15-20 MB) is no use to assembling and publishing, where a large sync peaks.
    await records.close();
    progress.done();
    if (options.signal?.aborted) throw new AbortedError('the sync was stopped before publishing; the folder keeps its previous snapshot');

    // What was kept unread keeps the findings it had.
    if (carry) {
      replayFindings(previous.quality!, report, (resource, id) => lists[resource].members.has(id) && !pulled.reread[resource].has(id));
      for (const group of previous.quality!.findings) {
        if (group.code !== 'not_in_list' || !pulled.keptViews.has(`${group.resource}\u0000${group.field}`)) continue;
        for (const id of group.ids) report({ resource: group.resource, id, field: group.field, code: 'not_in_list' });
      }
      for (const resource of RESOURCE_NAMES) {
        const before = previous.quality!.shape[resource];
        if (!before || pulled.reread[resource].size === lists[resource].ids.length) continue;
        const shape = pulled.shapes.get(resource) ?? { listOnly: new Set<string>(), singleOnly: new Set<string>() };
        for (const field of before.listOnly) shape.listOnly.add(field);
        for (const field of before.singleOnly) shape.singleOnly.add(field);
        pulled.shapes.set(resource, shape);
      }
    }
    // References are judged once both views are known: the published record carries the single view's value.
    const names = serverNames(lists.servers.names, findings.valuesOf('servers', 'name', 'view_mismatch'));
    const serverIdMismatches = findings.valuesOf('appservers', 'server_id', 'view_mismatch');
    const serverNamesMismatches = findings.valuesOf('databases', 'server_names', 'view_mismatch');
    for (let n = 0; n < lists.appservers.ids.length; n++) {
      const id = lists.appservers.ids.at(n);
      for (const finding of appserverServerFindings({ id, server_id: publishedValue(serverIdMismatches, id, JSON.parse(lists.appservers.refs.at(n))) }, lists.servers.members)) report(finding);
    }
    for (let n = 0; n < lists.databases.ids.length; n++) {
      const id = lists.databases.ids.at(n);
      for (const finding of databaseNameFindings({ id, server_names: publishedValue(serverNamesMismatches, id, JSON.parse(lists.databases.refs.at(n))) }, names)) report(finding);
    }
    await warnings?.close();
    const groups = findings.groups();
    const shape = shapeFacts(pulled.shapes);

    // Assemble the snapshot's own files, then decide.
    const assembled = await assemble({
      out,
      writer,
      views,
      groups,
      shape,
      previousQuality: previous?.quality,
      redact: config.redact,
      massRemoval: options.allowMassRemoval ? undefined : settings.massRemoval,
      changesKeep: config.changes.keep,
      browser: options.browser ?? false,
      at: started,
      log,
    });
    const summary = summarizeFindings(groups, assembled.records, config.quality.accept, shape);
    if (settings.strict) {
      const problem = strictProblem(summary);
      if (problem) throw new StrictError(problem);
    }
    if (options.signal?.aborted) throw new AbortedError('the sync was stopped before publishing; the folder keeps its previous snapshot');

    const result = (status: SyncResult['status'], files: { written: string[]; removed: string[]; unchanged: number }): SyncResult => {
      const finished = new Date();
      return {
        status,
        startedAt: started.toISOString(),
        finishedAt: finished.toISOString(),
        durationMs: finished.getTime() - started.getTime(),
        baseUrl: displayUrl(options.baseUrl),
        out,
        records: assembled.records,
        views: views.length,
        requests: client.stats.requests,
        retries: client.stats.retries,
        notModified: client.stats.notModified,
        bytesReceived: client.stats.bytes,
        retryReasons: Object.fromEntries(client.stats.retryReasons),
        concurrency: { configured: settings.concurrency, adaptive: settings.adaptive, ...client.concurrency },
        overloadAnswers: Object.fromEntries(client.stats.overloadAnswers),
        findings: summary,
        ...files,
        changes: assembled.changes,
        initial: assembled.initial,
      };
    };
    if (options.dryRun) {
      const pending = writer.pending();
      await writer.discard();
      return result('dry-run', { ...pending, unchanged: writer.entries.size - pending.written.length });
    }
    // Publish: the tree, then the run metadata bound to the new manifest, the manifest, its signature.
    let outcome: SyncResult | undefined;
    const entries = writer.entries;
    const publishedResult = await writer.commit({
      sign: options.signKey ? (manifest) => signManifest(manifest, options.signKey!) : undefined,
      signs: signsManifest,
      log: (line) => log.warn(line.replace(/^warning: /, '')),
      meta: (manifestSha256, order, pending) => {
        outcome = result(pending.written.length || pending.removed.length ? 'published' : 'unchanged', { ...pending, unchanged: entries.size - pending.written.length });
        return new Map<string, Iterable<string> | Buffer>([
          [HTTP_CACHE_FILE, httpCacheChunks(entries, order, manifestSha256)],
          [LAST_SYNC_FILE, encodeLastSync(lastSyncRecord(outcome, bootId))],
        ]);
      },
    });
    published = true;
    return { ...outcome!, status: publishedResult.published ? 'published' : 'unchanged' };
  } catch (error) {
    await writer?.discard().catch(() => undefined);
    await warnings?.close().catch(() => undefined);
    progress.done();
    throw error;
  } finally {
    await records.close();
    await client.close();
    if (!options.held) await held.release(published);
  }
}
