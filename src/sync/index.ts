/**
 * One sync, in one direction: plan → pull → assemble → publish. It takes the folder's lock (unless
 * the caller holds it), finishes any interrupted publish and reads the snapshot it replaces (only
 * reads it, from then on); pulls the lists; plans every view and record; pulls them as planned;
 * assembles the new snapshot's own files and decides whether it may be published; and publishes
 * it through one journal. The folder is touched only then: a failure before leaves it as it was.
 */
import { resolve } from 'node:path';
import type { FilterValuesInput, RedactionInput, SyncSettingsInput } from '../config/public.js';
import { configSchema, type Config } from '../config/schema.js';
import { AbortedError, ConfigError, MassRemovalError, StrictError } from '../errors.js';
import { Client } from '../fetch/client.js';
import { WAITING_ROOM } from '../fetch/pacer.js';
import { planViews } from '../index/views.js';
import { silentLog, type Log } from '../log.js';
import { recover } from '../publish/journal.js';
import { NextSnapshot } from '../publish/next.js';
import { checkForeignFiles, holdOutput, type HeldOutput } from '../publish/output.js';
import { pendingOf, publish, stageManifest } from '../publish/publish.js';
import { undocumentedFields, valueFields } from '../redact/policy.js';
import { RedactionLeaks } from '../redact/leaks.js';
import { maskFindingValues, maskValuesInSnapshot } from './mask-values.js';
import { loadPrivateKey, type LoadedKey } from '../sign/keys.js';
import { signManifest, signsManifest } from '../sign/signature.js';
import { httpCacheChunks } from '../snapshot/http-cache.js';
import { displayUrl, encodeLastSync } from '../snapshot/last-sync.js';
import { CHANGES_FILE, HTTP_CACHE_FILE, LAST_SYNC_FILE, MANIFEST_FILE } from '../snapshot/paths.js';
import { untouched } from '../snapshot/stamps.js';
import { RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import { currentBootId } from '../state/boot.js';
import type { Content } from '../util/atomic-write.js';
import { allSettled } from '../util/concurrent.js';
import { scrub } from '../util/secrets.js';
import { FindingSet, findingsOf, type Finding } from '../validate/findings.js';
import { shapeFacts } from '../validate/quality.js';
import { assemble, finalLists } from './assemble.js';
import { describeChanges } from './changes.js';
import { carriedGroups, crossCheckFindings, shapesWithCarried } from './findings.js';
import { keptListSummaries } from './list-cache.js';
import { pullList, unchosenList, type ListSummary } from './lists.js';
import { nameLookup, withNames } from './names.js';
import { writePage } from './page.js';
import { fetchSummary, plan, reasonCounts, Reason } from './plan.js';
import { readPrevious } from './previous.js';
import { silentProgress, type Progress } from './progress.js';
import { pullRecords } from './pull.js';
import { RecordChecker } from './record-checker.js';
import { fileCounts, lastSyncRecord, type SyncResult } from './result.js';
import { WarningsFile } from './warnings-file.js';

export type { SyncResult } from './result.js';

/** A sync's options; every setting but the service, the token and the folder has a default. */
export interface SyncOptions {
  baseUrl: string;
  token: string;
  /** The output folder (absolute, or relative to the working directory). */
  out: string;
  /** Mirror only these resources (config `resources`; default all five): the others are neither fetched nor published, and a dropped one's files are removed. */
  resources?: readonly string[];
  /** The config's `sync` section (concurrency, retries, timeouts, strict, limits); defaults inside. */
  settings?: SyncSettingsInput;
  /** Values to precompute for the filters that cannot be discovered (config `filters`). */
  filters?: FilterValuesInput;
  /** Fields removed or masked before anything is written (config `redact`). */
  redact?: RedactionInput;
  /** Accepted deviations (config `quality.accept`): counted, never warned about, not failing a strict sync. */
  accept?: readonly string[];
  /** Change sets kept in _meta/changes.json (config changes.keep). */
  changesKeep?: number;
  /** Also write the offline page (index.html, _browser/). */
  browser?: boolean;
  /** An Ed25519 private key file (from `keygen`): each published manifest is signed into _meta/manifest.sig. */
  signKey?: string;
  /** Publish even when a resource loses more than sync.massRemoval.maxShare of its records. */
  allowMassRemoval?: boolean;
  /** Publish into a folder that holds files but no snapshot. */
  allowNonEmpty?: boolean;
  /** Pull and check everything, then report what would be written and removed; publish nothing. */
  dryRun?: boolean;
  /** Writes every finding to this file, one JSON object per line. */
  warningsFile?: string;
  log?: Log;
  progress?: Progress;
  /** Stops the sync before it publishes (a shutdown); the folder keeps what it had. */
  signal?: AbortSignal;
}

/** A sync as the command line runs it: in a folder it holds already (to commit to git before letting go), with the key it loaded up front. */
export interface SyncRun extends Omit<SyncOptions, 'signKey'> {
  held?: HeldOutput;
  signingKey?: LoadedKey | undefined;
}

/** The options with every default applied; a bad value is a ConfigError naming the setting. */
function settle(options: SyncRun): Config {
  const result = configSchema.safeParse({
    ...(options.resources === undefined ? {} : { resources: options.resources }),
    sync: options.settings ?? {},
    filters: options.filters ?? {},
    redact: options.redact ?? {},
    quality: { accept: options.accept ?? [] },
    changes: options.changesKeep === undefined ? {} : { keep: options.changesKeep },
  });
  if (!result.success) {
    const issue = result.error.issues[0]!;
    // The library's options are named `settings`, not the config file's `sync`.
    const path = issue.path.map((key, i) => (i === 0 && key === 'sync' ? 'settings' : String(key)));
    throw new ConfigError(`sync options: ${path.join('.')}: ${issue.message}`);
  }
  return result.data;
}

/** Runs one sync of `options.baseUrl` into `options.out`. */
export function sync(options: SyncOptions): Promise<SyncResult> {
  const { signKey, ...rest } = options;
  return runSync({ ...rest, signingKey: signKey === undefined ? undefined : loadPrivateKey(resolve(signKey), 'signKey') });
}

/** Runs one sync as the command line does (see SyncRun). */
export async function runSync(options: SyncRun): Promise<SyncResult> {
  const config = settle(options);
  const settings = config.sync;
  const log = options.log ?? silentLog;
  const progress = options.progress ?? silentProgress;
  const started = new Date();
  const held = options.held ?? (await holdOutput(options.out, 'sync'));
  const out = held.out;
  if (!options.held && held.lock.warning) log.warn(held.lock.warning);
  for (const warning of undocumentedFields(config.redact)) log.warn(warning);
  let published = false;
  let next: NextSnapshot | undefined;
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
    onPace: (rate, reason) => log.detail(`the service throttles us (${reason}): ${rate} requests a second for now`),
    onConcurrency: (limit, reason) => log.detail(`the service is overloaded (${reason}): ${limit} request${limit === 1 ? '' : 's'} in flight at most for now`),
    signal: options.signal,
  });
  const warnings = options.warningsFile ? new WarningsFile(options.warningsFile) : undefined;
  const records = new RecordChecker(config.redact);
  const stopped = (): void => {
    if (options.signal?.aborted) throw new AbortedError(`the sync was stopped before publishing; ${out} is as it was`);
  };
  try {
    const recovered = await recover(out);
    if (recovered) log.info(recovered);
    if (!options.allowNonEmpty) await checkForeignFiles(out);
    const bootId = currentBootId();
    const previous = await readPrevious(out, config.redact, bootId);
    // A first sync checks every record; a re-sync may check none, and starts the thread only if it does.
    if (!previous) records.startEarly();
    next = await NextSnapshot.open(out, previous?.snapshot);
    const findings = new FindingSet();
    // Set once the lists are in, before the first finding.
    let nameOf: ((resource: ResourceName, id: string) => string | undefined) | undefined;
    const report = (finding: Finding): void => {
      if (findings.add(finding)) warnings?.write(finding, nameOf?.(finding.resource, finding.id));
    };

    // Pull the lists, then plan every view and record from them and the previous snapshot.
    const chosen = config.resources;
    progress.planned(chosen.length);
    const leaks = new RedactionLeaks();
    const listContext = { client, previous: previous?.snapshot, next, redact: config.redact, leaks, maxRecords: settings.maxRecords, cached: previous?.lists };
    const lists = Object.fromEntries(await allSettled(RESOURCE_NAMES.map(async (r) => [r, chosen.includes(r) ? await pullList(r, listContext) : unchosenList(r)] as const))) as Record<ResourceName, ListSummary>;
    if (warnings) nameOf = nameLookup(lists);
    for (const resource of RESOURCE_NAMES) for (const finding of lists[resource].findings) report(finding);
    const quality = await previous?.quality;
    const views = planViews({ osIds: [...lists.operating_systems.ids], fieldValues: (resource) => (resource === 'databases' ? lists.databases.types : []) }, config.filters, chosen);
    const service = displayUrl(options.baseUrl);
    const planned = plan({
      previous: previous?.snapshot.table,
      cached: previous?.cached ?? false,
      quality: quality !== undefined,
      lists,
      views,
      resources: chosen,
      run: previous?.head?.run,
      incremental: settings.incremental ? { refreshRuns: settings.refreshRuns, service, previous: previous?.head } : undefined,
    });
    for (const line of planned.fallbacks) log.info(`not incremental: ${line}`);
    const listed = RESOURCE_NAMES.reduce((n, r) => n + lists[r].ids.length, 0);
    progress.planned(chosen.length + views.length + listed - reasonCounts(planned)[Reason.Keep]);
    // Room for the snapshot's own files too (index, quality, history, the offline page's buckets).
    next.expect(Math.ceil((chosen.length + views.length + listed) * 1.01) + 1024);

    // Pull every view and record as planned.
    await previous?.snapshot.listed();
    const pulled = await pullRecords(planned, { client, previous: previous?.snapshot, next, records, redact: config.redact, leaks, lists, width: settings.concurrency * 2 + WAITING_ROOM, report });
    // Its heap (15-20 MB) is no use to assembling and publishing, where a large sync peaks.
    await records.close();
    progress.done();
    stopped();
    // The lists and views as published: without the records that answered 404.
    for (const cut of finalLists(pulled.gone, views)) await next.writeCut(cut);
    for (const warning of leaks.warnings(config.redact)) log.warn(warning);
    const masked = valueFields(config.redact).length ? await maskValuesInSnapshot(next, valueFields(config.redact)) : undefined;
    if (masked) {
      log.detail(`redact.values: ${masked.values} value${masked.values === 1 ? '' : 's'} of ${valueFields(config.redact).join(', ')} masked wherever they appear (${masked.files} file${masked.files === 1 ? '' : 's'} held some)`);
    }

    // Assemble: the findings about what was kept unread and across records, the change set, the snapshot's own files.
    const carried = planned.carry ? quality : undefined;
    for (const group of carried ? carriedGroups(carried, lists, pulled) : []) {
      findings.carry(group);
      if (warnings) for (const finding of findingsOf(group)) warnings.write(finding, nameOf?.(finding.resource, finding.id));
    }
    for (const finding of crossCheckFindings(lists, chosen, (resource, field, code) => findings.valuesOf(resource, field, code))) report(finding);
    await warnings?.close();
    const assembled = assemble({
      previous: previous && { table: previous.snapshot.table, quality, history: previous.history },
      files: next.entries,
      views,
      groups: withNames(masked ? maskFindingValues(findings.groups(), masked.mask) : findings.groups(), lists),
      shape: shapeFacts(shapesWithCarried(pulled.shapes, carried, lists, pulled)),
      changes: await describeChanges(next),
      resources: chosen,
      policy: { redact: config.redact, massRemoval: options.allowMassRemoval ? undefined : settings.massRemoval, strict: settings.strict, accept: config.quality.accept, changesKeep: config.changes.keep },
      at: started,
    });
    if (assembled.historyRestarted) log.warn(`${CHANGES_FILE} was not a change history of ours; starting it afresh`);
    if (assembled.refused.massRemoval) throw new MassRemovalError(assembled.refused.massRemoval);
    if (assembled.refused.strict) throw new StrictError(assembled.refused.strict);
    for (const [path, bytes] of assembled.files) await next.put(path, bytes);
    if (options.browser) await writePage(next, { resources: chosen, quality: assembled.quality, changes: assembled.changes, records: assembled.records, initial: previous === undefined, at: started });
    stopped();

    // Publish: the tree, then the run metadata bound to the new manifest, the manifest, its signature.
    const result = (status: SyncResult['status'], pending: Parameters<typeof fileCounts>[0]): SyncResult => {
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
        throttle: client.pace,
        findings: assembled.findings,
        files: fileCounts(pending, next!.entries.size),
        changes: assembled.changes,
        initial: previous === undefined,
        fetch: fetchSummary(planned),
      };
    };
    if (options.dryRun) {
      const outcome = result('dry-run', pendingOf(next));
      await next.staging.discard();
      return outcome;
    }
    const order = next.entries.sortedIndexes();
    const pending = pendingOf(next, order);
    const manifest = await stageManifest(next, order, pending.written.length === 0 && pending.removed.length === 0);
    const outcome = result(pending.written.length || pending.removed.length ? 'published' : 'unchanged', pending);
    const committed = await publish(next, {
      manifest,
      pending,
      meta: new Map<string, Content>([
        [HTTP_CACHE_FILE, httpCacheChunks(next.entries, manifest.order, manifest.sha256, { run: planned.run, verified: planned.verified, service }, keptListSummaries(lists, chosen, config.redact, pulled.gone), untouched(previous?.stamps ?? new Map(), pending, manifest.same ? [] : [MANIFEST_FILE]))],
        [LAST_SYNC_FILE, encodeLastSync(lastSyncRecord(outcome, bootId))],
      ]),
      sign: options.signingKey ? (bytes) => signManifest(bytes, options.signingKey!) : undefined,
      signs: signsManifest,
      log: (line) => log.warn(line),
    });
    published = true;
    return { ...outcome, status: committed ? 'published' : 'unchanged' };
  } catch (error) {
    await next?.staging.discard().catch(() => undefined);
    await warnings?.close().catch(() => undefined);
    progress.done();
    throw error;
  } finally {
    await records.close();
    await client.close();
    if (!options.held) await held.release(published);
  }
}
