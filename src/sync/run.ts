/**
 * One sync: lock the folder, finish any interrupted publish, pull and validate everything, build
 * the tree, check it is not a catastrophe, publish only what changed. The folder is touched only
 * after everything was fetched and validated; a failure before then leaves it as it was.
 */
import fs from 'fs-extra';
import { browserFiles } from '../browser/index.js';
import type { FilterSettings, SyncSettings } from '../config/schema.js';
import type { ChangeSet } from '../diff/engine.js';
import { changeHistory } from '../diff/history-file.js';
import { diffAgainstSnapshot } from '../diff/read.js';
import { MirrorError, ValidationError } from '../errors.js';
import { readHttpCache, writeHttpCache, type CacheEntry } from '../fetch/cache.js';
import { Client } from '../fetch/client.js';
import { countRecords, indexFiles } from '../index/tree.js';
import { readManifest } from '../publish/apply.js';
import { currentBootId } from '../publish/boot.js';
import { recover } from '../publish/journal.js';
import { acquireLock } from '../publish/lock.js';
import { sha256, type Manifest } from '../publish/manifest.js';
import { CHANGES_FILE, REDACTION_FILE } from '../publish/paths.js';
import { SnapshotWriter, type PublishResult } from '../publish/writer.js';
import { encodeRedaction, isRedacting, type RedactPolicy } from '../redact/policy.js';
import type { LoadedKey } from '../sign/keys.js';
import { signManifest } from '../sign/signature.js';
import { RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import { formatWarning, type Warning } from '../validate/warnings.js';
import { syncedInBoot, writeLastSync } from './last-sync.js';
import { silentProgress, type Progress } from './progress.js';
import { pull, type Pulled } from './pull.js';

export interface SyncOptions {
  baseUrl: string;
  token: string;
  /** Absolute path of the output folder. */
  out: string;
  settings: SyncSettings;
  filters: FilterSettings;
  allowMassRemoval?: boolean;
  progress?: Progress;
  /** Notes for the log (recovery, stale locks, retries); never carries the token. */
  log?: (line: string) => void;
  /** Stops the sync before it publishes (a shutdown); the folder keeps its previous snapshot. */
  signal?: AbortSignal;
  /** Change sets kept in _meta/changes.json (config changes.keep, default 50). */
  changesKeep?: number;
  /** Writes the offline page (index.html, _browser/) into the snapshot. */
  browser?: boolean;
  /** Fields removed or masked before anything is written; validation sees the service's records. */
  redact?: RedactPolicy;
  /** Signs each published manifest into _meta/manifest.sig (written right after the manifest). */
  signKey?: LoadedKey;
  /** Run after publishing, before the folder is unlocked (the git commit of the snapshot). */
  afterPublish?: (result: SyncResult) => Promise<void>;
}

export interface SyncResult {
  status: 'published' | 'unchanged';
  records: Record<ResourceName, number>;
  views: number;
  requests: number;
  retries: number;
  notModified: number;
  bytesReceived: number;
  warnings: Warning[];
  written: string[];
  removed: string[];
  unchanged: number;
  durationMs: number;
  /** Records added, removed and changed against the snapshot this sync replaced. */
  changes: ChangeSet;
  /** Set when the folder held no snapshot before (every record counts as added). */
  initial: boolean;
}

/** Refuses a snapshot in which a resource lost more than the allowed share of its records. */
export function massRemovalProblem(previous: Record<ResourceName, number>, next: Record<ResourceName, number>, settings: SyncSettings['massRemoval']): string | undefined {
  for (const resource of RESOURCE_NAMES) {
    const before = previous[resource];
    const lost = before - next[resource];
    if (before >= settings.minPrevious && before > 0 && lost / before > settings.maxShare) {
      return `${resource} would lose ${lost} of ${before} records (${Math.round((lost / before) * 100)}%, over the ${Math.round(settings.maxShare * 100)}% allowed by sync.massRemoval.maxShare); nothing was published. If the service really lost them, run again with --allow-mass-removal`;
    }
  }
  return undefined;
}

/** Runs one sync into `options.out`. */
export async function runSync(options: SyncOptions): Promise<SyncResult> {
  const started = Date.now();
  const log = options.log ?? (() => {});
  const progress = options.progress ?? silentProgress;
  const existed = await fs.pathExists(options.out);
  await fs.mkdir(options.out, { recursive: true });
  let lock;
  try {
    lock = await acquireLock(options.out, 'sync');
  } catch (error) {
    if (!existed) await fs.rm(options.out, { recursive: true, force: true });
    throw error;
  }
  const client = new Client({
    baseUrl: options.baseUrl,
    token: options.token,
    concurrency: options.settings.concurrency,
    timeoutMs: options.settings.timeoutMs,
    deadlineMs: options.settings.deadlineMs,
    maxBodyBytes: options.settings.maxBodyBytes,
    retry: { retries: options.settings.retries, baseMs: options.settings.retryBaseMs, maxMs: options.settings.retryMaxMs },
    onResponse: () => progress.tick(),
    onRetry: (path, reason, delay) => log(`retrying GET ${path} in ${delay} ms: ${reason}`),
    signal: options.signal,
  });
  let published = false;
  try {
    if (lock.warning) log(`warning: ${lock.warning}`);
    const recovered = await recover(options.out);
    if (recovered) log(recovered);
    const previous = await readManifest(options.out);
    const bootId = currentBootId();
    let summary: { pulled: Pulled; records: Record<ResourceName, number>; changes: ChangeSet; result: PublishResult };

    // The cache's validators stand for bodies as published under the previous snapshot's
    // redaction policy: a 304 under another policy would keep a file the new one must change.
    const cache = previous && samePolicy(previous, options.redact) ? await readHttpCache(options.out) : new Map<string, CacheEntry>();
    const writer = await SnapshotWriter.open(options.out, previous, { sameBoot: await syncedInBoot(options.out, bootId) });
    try {
      const pulled = await pull({
        client,
        sink: writer,
        filters: options.filters,
        onPlanned: (n) => progress.planned(n),
        cache,
        redact: options.redact,
        maxRecords: options.settings.maxRecords,
        concurrency: options.settings.concurrency,
      });
      progress.done();
      const { warnings } = pulled;
      if (options.settings.strict && warnings.length > 0) {
        throw new ValidationError(`${warnings.length} warning${warnings.length === 1 ? '' : 's'} with --strict set; nothing was published. First: ${formatWarning(warnings[0]!)}`);
      }
      if (options.signal?.aborted) throw new MirrorError('E_ABORTED', 'the sync was stopped before publishing; the folder keeps its previous snapshot');
      for (const [path, bytes] of indexFiles(pulled.views, options.redact)) await writer.put(path, bytes, path);
      const records = countRecords(writer.entries.keys());
      if (previous && !options.allowMassRemoval) {
        const problem = massRemovalProblem(countRecords(Object.keys(previous.files)), records, options.settings.massRemoval);
        if (problem) throw new MirrorError('E_MASS_REMOVAL', problem);
      }
      const changes = await diffAgainstSnapshot(options.out, previous, writer.entries, (path) => writer.read(path));
      const history = await changeHistory(options.out, { hadSnapshot: previous !== undefined, changes, records, keep: options.changesKeep ?? 50, at: new Date(), log });
      if (history) await writer.put(CHANGES_FILE, history, CHANGES_FILE);
      if (options.browser) for (const [path, bytes] of browserFiles(await readAll(writer))) await writer.put(path, bytes, path);
      const result = await writer.commit({ sign: options.signKey ? (manifest) => signManifest(manifest, options.signKey!) : undefined, log });
      summary = { pulled, records, changes, result };
    } catch (error) {
      await writer.discard();
      throw error;
    }
    published = true;
    const { pulled, records, changes, result } = summary;
    const status = result.written.length || result.removed.length ? 'published' : 'unchanged';
    const outcome: SyncResult = {
      status,
      records,
      views: pulled.views.length,
      requests: client.stats.requests,
      retries: client.stats.retries,
      notModified: client.stats.notModified,
      bytesReceived: client.stats.bytes,
      warnings: pulled.warnings,
      written: result.written,
      removed: result.removed,
      unchanged: result.unchanged,
      durationMs: Date.now() - started,
      changes,
      initial: previous === undefined,
    };
    await writeHttpCache(options.out, pulled.cache, cache);
    await writeLastSync(options.out, options.baseUrl, outcome, started, bootId);
    // Still under the lock: what it records (a git commit) is what this sync published.
    await options.afterPublish?.(outcome);
    return outcome;
  } catch (error) {
    progress.done();
    // A folder this sync created goes again on failure, unless a snapshot was published into it.
    if (!existed && !published) await fs.rm(options.out, { recursive: true, force: true });
    throw error;
  } finally {
    await client.close();
    await lock.release();
  }
}

/** Whether `previous` was published under `redact` (its _meta/redaction.json is the one `redact` makes). */
function samePolicy(previous: Manifest, redact: RedactPolicy | undefined): boolean {
  return previous.files[REDACTION_FILE]?.sha256 === (isRedacting(redact) ? sha256(encodeRedaction(redact)) : undefined);
}

/** Every file of the new snapshot, for the offline page, which shows every record. */
async function readAll(writer: SnapshotWriter): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const path of writer.entries.keys()) {
    const bytes = await writer.read(path);
    if (bytes) files.set(path, bytes);
  }
  return files;
}
