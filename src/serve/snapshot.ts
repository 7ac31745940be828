/**
 * One published snapshot held in memory: every file the manifest lists, each checked against its
 * sha256, so a request is never answered from a half-written folder. Parsed lists, views and
 * computed answers are cached on the snapshot and vanish with it.
 */
import { join } from 'node:path';
import pLimit from 'p-limit';
import fs from 'fs-extra';
import type { QuerySource } from '../index/query.js';
import { journalPath } from '../publish/journal.js';
import { parseManifest, sha256 } from '../publish/manifest.js';
import { filterFile, listFile, MANIFEST_FILE } from '../publish/paths.js';
import type { ResourceName } from '../spec/resources.js';
import type { RawRecord } from '../spec/schemas.js';

/** A body ready to send, with its compressed forms made on first demand. */
export interface Entry {
  bytes: Buffer;
  /** Strong ETag, quoted. */
  etag: string;
  compressed: Partial<Record<'br' | 'gzip', Promise<Buffer>>>;
}

/** The manifest's identity on disk: a publish renames a new manifest into place, changing it. */
export interface Stamp {
  key: string;
  mtime: Date;
}

/** Why a snapshot could not be loaded now; `missing` means the folder has no valid manifest. */
export interface LoadFailure {
  ok: false;
  missing: boolean;
  reason: string;
}

const READ_CONCURRENCY = 64;
const COMPUTED_MAX_BYTES = 64 * 1024 * 1024;

/** An entry for bytes whose sha256 is known. */
export function makeEntry(bytes: Buffer, hash = sha256(bytes)): Entry {
  return { bytes, etag: `"${hash}"`, compressed: {} };
}

/** Reads the manifest's stamp; undefined when there is no manifest. */
export async function manifestStamp(dir: string): Promise<Stamp | undefined> {
  const stat = await fs.stat(join(dir, MANIFEST_FILE)).catch(() => undefined);
  if (!stat?.isFile()) return undefined;
  return { key: `${stat.mtimeMs}:${stat.size}:${stat.ino}`, mtime: stat.mtime };
}

/** A loaded, verified snapshot. */
export class Snapshot implements QuerySource {
  private readonly lists = new Map<ResourceName, readonly RawRecord[]>();
  private readonly views = new Map<string, readonly RawRecord[] | undefined>();
  private readonly computed = new Map<string, Entry>();
  private computedBytes = 0;

  /** The publication time, as Last-Modified gives it (whole seconds). */
  readonly lastModified: Date;
  /** The same as an HTTP date, made once rather than per request. */
  readonly lastModifiedText: string;

  constructor(
    /** Path → body, for every file the manifest lists plus the manifest itself. */
    readonly files: ReadonlyMap<string, Entry>,
    readonly stamp: Stamp,
  ) {
    this.lastModified = new Date(Math.floor(stamp.mtime.getTime() / 1000) * 1000);
    this.lastModifiedText = this.lastModified.toUTCString();
  }

  list(resource: ResourceName): readonly RawRecord[] {
    let records = this.lists.get(resource);
    if (!records) {
      records = this.records(listFile(resource), resource) ?? [];
      this.lists.set(resource, records);
    }
    return records;
  }

  view(resource: ResourceName, param: string, value: string): readonly RawRecord[] | undefined {
    const file = filterFile(resource, param, value);
    if (!this.views.has(file)) this.views.set(file, this.records(file, resource));
    return this.views.get(file);
  }

  /** A computed answer cached under `key`, made by `make` when absent. */
  cached(key: string, make: () => Buffer): Entry {
    const hit = this.computed.get(key);
    if (hit) {
      this.computed.delete(key);
      this.computed.set(key, hit);
      return hit;
    }
    const entry = makeEntry(make());
    if (entry.bytes.length > COMPUTED_MAX_BYTES) return entry;
    this.computed.set(key, entry);
    this.computedBytes += entry.bytes.length;
    for (const [oldKey, old] of this.computed) {
      if (this.computedBytes <= COMPUTED_MAX_BYTES) break;
      this.computed.delete(oldKey);
      this.computedBytes -= old.bytes.length;
    }
    return entry;
  }

  private records(file: string, resource: ResourceName): readonly RawRecord[] | undefined {
    const entry = this.files.get(file);
    if (!entry) return undefined;
    const body = JSON.parse(entry.bytes.toString('utf8')) as Record<string, unknown>;
    const records = body[resource];
    return Array.isArray(records) ? (records as RawRecord[]) : undefined;
  }
}

/**
 * Loads the snapshot the folder's manifest describes. Files whose hash the previous snapshot
 * already holds are taken from memory; every other file is read and checked. A journal, a file
 * that does not match, or a manifest replaced meanwhile means a publish is under way: try later.
 */
export async function loadSnapshot(dir: string, previous?: Snapshot): Promise<{ ok: true; snapshot: Snapshot } | LoadFailure> {
  const stamp = await manifestStamp(dir);
  if (!stamp) return { ok: false, missing: true, reason: `${join(dir, MANIFEST_FILE)} does not exist` };
  if (await fs.pathExists(journalPath(dir))) return { ok: false, missing: false, reason: 'a publish is in progress (journal present)' };
  const manifestBytes = await fs.readFile(join(dir, MANIFEST_FILE)).catch(() => undefined);
  const manifest = manifestBytes ? parseManifest(manifestBytes)?.table : undefined;
  if (!manifestBytes || !manifest) return { ok: false, missing: true, reason: `${join(dir, MANIFEST_FILE)} is not a valid manifest` };

  const known = new Map<string, Entry>();
  for (const entry of previous?.files.values() ?? []) known.set(entry.etag, entry);
  const files = new Map<string, Entry>();
  const limit = pLimit(READ_CONCURRENCY);
  const problems: string[] = [];
  await Promise.all(
    [...manifest.paths()].map((path, i) => ({ path, hash: manifest.sha256(i), size: manifest.fileSize(i) })).map(({ path, hash, size }) =>
      limit(async () => {
        const reuse = known.get(`"${hash}"`);
        if (reuse) {
          files.set(path, reuse);
          return;
        }
        const bytes = await fs.readFile(join(dir, path)).catch(() => undefined);
        if (!bytes || bytes.length !== size || sha256(bytes) !== hash) problems.push(path);
        else files.set(path, makeEntry(bytes, hash));
      }),
    ),
  );
  if (problems.length > 0) return { ok: false, missing: false, reason: `${problems.length} file(s) do not match the manifest (first: ${problems.sort()[0]})` };
  const after = await manifestStamp(dir);
  if (after?.key !== stamp.key || (await fs.pathExists(journalPath(dir)))) return { ok: false, missing: false, reason: 'the manifest changed while it was being read' };
  files.set(MANIFEST_FILE, makeEntry(manifestBytes));
  return { ok: true, snapshot: new Snapshot(files, stamp) };
}
