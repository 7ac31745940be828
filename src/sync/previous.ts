/**
 * What a sync knows of the snapshot it replaces, read once before anything is fetched and only
 * read after: its files (from the manifest), the validators of the responses behind them (from
 * the ETag cache bound to that manifest, and only when the redaction policy is the one it was
 * published with), its data-quality report (whose findings carry over to what is kept unread) and
 * its change history (which the new snapshot's continues).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OutputError } from '../errors.js';
import { readManifest } from '../snapshot/manifest-read.js';
import { CHANGES_FILE, listFile, MANIFEST_FILE, QUALITY_FILE, REDACTION_FILE } from '../snapshot/paths.js';
import { RESOURCE_NAMES } from '../spec/resources.js';
import { listedEntries, PublishedSnapshot } from '../snapshot/published.js';
import { checkFolders, foldersOf } from '../snapshot/safe-folder.js';
import { manifestFault, sha256 } from '../snapshot/manifest.js';
import { bindHttpCache, readHttpCache, type CachedList, type CacheHead } from '../snapshot/http-cache.js';
import { syncedInBoot } from '../snapshot/last-sync.js';
import { keepsCtimes, stampsOf } from '../snapshot/stamps.js';
import { encodeRedaction, isRedacting, valueFields, type RedactPolicy } from '../redact/policy.js';
import { readQuality, type Quality } from '../validate/quality.js';

export interface Previous {
  snapshot: PublishedSnapshot;
  /** Whether the table carries the validators of the responses (usable for "changed since?"). */
  cached: boolean;
  /** The cache's head (its run and service), when the table carries it. */
  head: CacheHead | undefined;
  /** The list summaries the cache kept, by resource (see sync/list-cache.ts); the list pull takes them out. */
  lists: Map<string, CachedList> | undefined;
  /**
   * Its quality report, when intact: findings of what is kept unread are carried over from it.
   * Read while the lists are pulled (a fifth of a second at 200 000 servers). Without the records'
   * names: the sync names its findings from the lists, and held for the whole run they were a
   * quarter of a million strings at 200 000 servers.
   */
  quality: Promise<Quality | undefined>;
  /** Its `_meta/changes.json`, when intact. */
  history: Buffer | undefined;
  /** The stamps of the folders listed and the lists checked, each taken before (see stamps.ts). */
  stamps: ReadonlyMap<string, string>;
}

/** Reads the snapshot published in `dir` (undefined when there is none); `bootId`: this boot's (see state/boot.ts). */
export async function readPrevious(dir: string, redact: RedactPolicy | undefined, bootId: string | undefined): Promise<Previous | undefined> {
  // The run metadata first: within a boot, a folder, list or manifest stamped by the last sync and
  // unchanged since is as that sync checked it (see stamps.ts), and the manifest need not be hashed.
  const file = await readHttpCache(dir);
  const stamps = (await syncedInBoot(dir, bootId)) && (await keepsCtimes(dir)) ? stampsOf(dir, file ? file.stamps : new Map()) : undefined;
  const manifest = await readManifest(dir, file && stamps && (await stamps.unchanged(MANIFEST_FILE)) ? file.manifest : undefined);
  if (!manifest) {
    await refuseDamagedManifest(dir);
    return undefined;
  }
  const { table } = manifest;
  const folders = foldersOf(table.pathSpans());
  // Never read a snapshot through a link out of the folder.
  await checkFolders(dir, folders.keys());
  // The validators stand for bodies as published under the previous redaction policy: a 304
  // under another policy would keep a file the new one must change.
  const i = table.indexOf(REDACTION_FILE);
  const policy = isRedacting(redact) ? sha256(encodeRedaction(redact)) : undefined;
  const samePolicy = (i === undefined ? undefined : table.sha256(i)) === policy;
  // Under redaction by value, a file kept unread (304, or an incremental skip) would hide the
  // values it holds from this run's gathering, and a value seen only there would stay in the
  // files that are fetched: every body is fetched again.
  const cache = (file && samePolicy && valueFields(redact).length === 0 && bindHttpCache(file, table, manifest.sha256)) || undefined;
  // Stamps taken with another manifest vouch for nothing.
  if (file && file.manifest !== manifest.sha256) stamps?.distrust();
  const head = cache && { run: cache.run, service: cache.service, verified: cache.verified };
  // Listed while the lists are pulled (see PublishedSnapshot.listed).
  const snapshot = PublishedSnapshot.of(dir, manifest, stamps && listedEntries(dir, folders, table, stamps.unchanged));
  // The lists a 304 keeps are checked against the manifest: hashed meanwhile, unless stamped unchanged.
  await snapshot.checkAhead(RESOURCE_NAMES.map(listFile), stamps?.unchanged);
  return { snapshot, cached: head !== undefined, head, lists: cache?.lists, stamps: stamps?.seen ?? new Map(), quality: snapshot.decodeChecked(QUALITY_FILE, (pieces) => readQuality(pieces, { names: false })), history: await snapshot.read(CHANGES_FILE) };
}

/**
 * A manifest that is there but not ours (damaged, or listing a path outside the folder) says
 * nothing trustworthy about which files are the snapshot's: the sync stops rather than guess
 * what to replace or delete.
 */
async function refuseDamagedManifest(dir: string): Promise<void> {
  const path = join(dir, MANIFEST_FILE);
  const bytes = await readFile(path).catch(() => undefined);
  if (bytes === undefined) return;
  const fault = manifestFault(bytes) ?? 'not a manifest of inventory-mirror';
  throw new OutputError(`${path} is damaged (${fault}); nothing was changed. Restore the folder from a copy, or sync into a new folder`);
}
