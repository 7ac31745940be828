/**
 * One published snapshot as `serve` holds it: the manifest's entries (path → sha256, size) and,
 * per resource, a compact index of its list built by streaming the list file once, with the list
 * file held open. Bodies stay on disk: records and other files are read when asked for and checked
 * against the table (files.ts); query answers are cut from the held list files. Filtered views
 * are read on demand and kept as positions in their list.
 *
 * A snapshot is used by the requests that started with it (acquire/release); once the watch
 * replaced it (retire) and the last of them is done, its files are closed.
 */
import { lstat } from 'node:fs/promises';
import { closeSync, fstatSync } from 'node:fs';
import { join } from 'node:path';
import fs from 'fs-extra';
import { OutputError } from '../errors.js';
import type { QueryCatalog } from '../index/query.js';
import { encodeJson } from '../json/encode.js';
import { journalPath } from '../publish/journal.js';
import { readManifestInto, fileTableSink } from '../snapshot/manifest-read.js';
import type { FileTable } from '../snapshot/table.js';
import { filterFile, listFile, MANIFEST_FILE } from '../snapshot/paths.js';
import { checkFoldersOf } from '../snapshot/safe-folder.js';
import { RESOURCE_NAMES, RESOURCES, type ResourceName } from '../spec/resources.js';
import { fileChunks, HeldFile, openNoFollow, readFully, scanFile, STALE, type Stale } from './files.js';
import { ListFormatError, ListIndexer, type ListIndex } from './list-index.js';

/** The manifest's identity on disk: a publish renames a new manifest into place, changing it. */
export interface Stamp {
  key: string;
  mtime: Date;
}

/** Why a snapshot could not be loaded now; `missing`: the folder has no valid manifest; `permanent`: waiting will not help. */
export interface LoadFailure {
  ok: false;
  missing: boolean;
  permanent?: boolean;
  reason: string;
}

/** Positions of views kept per list, counted in positions (4 bytes each). */
const VIEW_POSITIONS_MAX = 4 * 1024 * 1024;

/** The fields each resource's substring filters match on. */
function substringFields(resource: ResourceName): string[] {
  const fields = RESOURCES[resource].filters.flatMap((f) => (f.values.kind === 'substring' ? [f.values.field] : []));
  return [...new Set(fields)];
}

/** A list-shaped file's index with the file held open; shared by the snapshots that have these bytes. */
export class HeldList {
  readonly #views = new Map<string, Int32Array>();
  #viewPositions = 0;
  readonly #loading = new Map<string, Promise<Int32Array | Stale>>();

  constructor(
    readonly index: ListIndex,
    /** Undefined for a list the snapshot does not have (an empty index). */
    readonly file: HeldFile | undefined,
  ) {}

  /** The positions in this list of a view's records, read once per view content (its sha256). */
  viewPositions(sha256: string, read: () => Promise<ListIndex | Stale>): Promise<Int32Array | Stale> {
    const known = this.#views.get(sha256);
    if (known) {
      this.#views.delete(sha256);
      this.#views.set(sha256, known);
      return Promise.resolve(known);
    }
    let loading = this.#loading.get(sha256);
    if (!loading) {
      loading = read()
        .then((view) => {
          if (view === STALE) return STALE;
          const positions = this.index.positionsOf(view);
          this.#remember(sha256, positions);
          return positions;
        })
        .finally(() => this.#loading.delete(sha256));
      this.#loading.set(sha256, loading);
    }
    return loading;
  }

  #remember(sha256: string, positions: Int32Array): void {
    this.#views.set(sha256, positions);
    this.#viewPositions += positions.length;
    for (const [key, old] of this.#views) {
      if (this.#viewPositions <= VIEW_POSITIONS_MAX || key === sha256) break;
      this.#views.delete(key);
      this.#viewPositions -= old.length;
    }
  }
}

/**
 * Streams a list-shaped file once: its index (ids, offsets, the given fields) and its sha256.
 * STALE when it is not the file the manifest lists; a ListFormatError when it is, but not in
 * the published form.
 */
async function indexFile(path: string, key: string, fields: readonly string[], caseSensitive: boolean, expected: { sha256: string; size: number }, keep: boolean): Promise<HeldList | Stale> {
  const fd = opened(path);
  if (fd === undefined) return STALE;
  let kept = false;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size !== expected.size) return STALE;
    const indexer = new ListIndexer(key, fields, caseSensitive);
    let formatError: ListFormatError | undefined;
    const scanned = await scanFile(fd, (chunk) => {
      if (formatError) return;
      try {
        indexer.push(chunk);
      } catch (error) {
        if (!(error instanceof ListFormatError)) throw error;
        formatError = error;
      }
    });
    if (scanned.sha256 !== expected.sha256 || scanned.size !== expected.size) return STALE;
    if (formatError) throw formatError;
    const index = indexer.end();
    if (!keep) return new HeldList(index, undefined);
    kept = true;
    return new HeldList(index, new HeldFile(fd, scanned.size, scanned.sha256, stat.mtimeMs));
  } finally {
    if (!kept) closeSync(fd);
  }
}

/** Opens a file the snapshot needs whole; undefined when missing; a link is refused by name. */
function opened(path: string): number | undefined {
  const fd = openNoFollow(path);
  if (fd === 'link') throw new OutputError(`${path} is a symbolic link; serve never reads through a link inside the folder. Replace it with the file itself`);
  return fd === 'missing' ? undefined : fd;
}

/** The index of a list the snapshot does not have. */
function emptyList(resource: ResourceName, caseSensitive: boolean): HeldList {
  const indexer = new ListIndexer(resource, substringFields(resource), caseSensitive);
  indexer.push(encodeJson({ [resource]: [] }));
  return new HeldList(indexer.end(), undefined);
}

/** At request time a link, or a view not in the published form, is not served (the request waits, then 503). */
const unreadable = (error: unknown): Stale => {
  if (error instanceof OutputError || error instanceof ListFormatError) return STALE;
  throw error;
};

/** A loaded snapshot. */
export class Snapshot implements QueryCatalog {
  /** The publication time, as Last-Modified gives it (whole seconds). */
  readonly lastModified: Date;
  /** The same as an HTTP date, made once rather than per request. */
  readonly lastModifiedText: string;
  #inflight = 0;
  #retired = false;
  #closed = false;
  readonly #includes = new Map<ResourceName, Promise<HeldList | Stale>>();
  /** The include views read so far, to carry over to the next snapshot when unchanged. */
  readonly includeLists = new Map<ResourceName, HeldList>();
  /** The files held open, by path: the manifest and the lists. */
  readonly #held = new Map<string, HeldFile>();

  constructor(
    readonly dir: string,
    readonly stamp: Stamp,
    /** Every file of the snapshot but the manifest itself. */
    readonly table: FileTable,
    /** The manifest's bytes, held open (it is served too). */
    readonly manifest: HeldFile,
    readonly lists: ReadonlyMap<ResourceName, HeldList>,
    readonly caseSensitive: boolean,
    includes: ReadonlyMap<ResourceName, HeldList> = new Map(),
  ) {
    this.lastModified = new Date(Math.floor(stamp.mtime.getTime() / 1000) * 1000);
    this.lastModifiedText = this.lastModified.toUTCString();
    for (const [resource, held] of includes) {
      this.includeLists.set(resource, held);
      this.#includes.set(resource, Promise.resolve(held));
    }
    this.#held.set(MANIFEST_FILE, manifest);
    for (const [resource, list] of lists) if (list.file) this.#held.set(listFile(resource), list.file);
  }

  /** Files served: those the manifest lists and the manifest. */
  get fileCount(): number {
    return this.table.size + 1;
  }

  /** The sha256 and size the manifest gives `path`; undefined when it does not list it. */
  expected(path: string): { sha256: string; size: number } | undefined {
    const i = this.table.indexOf(path);
    return i === undefined ? undefined : { sha256: this.table.sha256(i), size: this.table.fileSize(i) };
  }

  /** A file to answer with: what the manifest gives it, and its descriptor when the snapshot holds it open. */
  file(path: string): { sha256: string; size: number; held: HeldFile | undefined } | undefined {
    const held = this.#held.get(path);
    if (held) return { sha256: held.sha256, size: held.size, held };
    const i = this.table.indexOf(path);
    return i === undefined ? undefined : { sha256: this.table.sha256(i), size: this.table.fileSize(i), held: undefined };
  }

  hasView(resource: ResourceName, param: string, value: string): boolean {
    return this.table.has(filterFile(resource, param, value));
  }

  hasRecord(resource: ResourceName, id: string): boolean {
    return this.list(resource).index.has(id);
  }

  list(resource: ResourceName): HeldList {
    return this.lists.get(resource)!;
  }

  /** The `include=servers` view of `resource` as a list of its own (its items carry more than the list's). */
  include(resource: ResourceName): Promise<HeldList | Stale> {
    let loading = this.#includes.get(resource);
    if (!loading) {
      const file = filterFile(resource, 'include', 'servers');
      const expected = this.expected(file);
      if (!expected) return Promise.resolve(STALE);
      loading = indexFile(join(this.dir, file), resource, substringFields(resource), this.caseSensitive, expected, true).catch(unreadable).then((held) => {
        if (held === STALE) this.#includes.delete(resource);
        else if (this.#closed) held.file?.release();
        else this.includeLists.set(resource, held);
        return held;
      });
      this.#includes.set(resource, loading);
    }
    return loading;
  }

  /** The positions in `base` of the records of the view `param=value` (which the snapshot holds). */
  viewPositions(resource: ResourceName, param: string, value: string, base: HeldList): Promise<Int32Array | Stale> {
    const file = filterFile(resource, param, value);
    const expected = this.expected(file);
    if (!expected) return Promise.resolve(STALE);
    return base.viewPositions(expected.sha256, async () => {
      const view = await indexFile(join(this.dir, file), resource, [], this.caseSensitive, expected, false).catch(unreadable);
      return view === STALE ? STALE : view.index;
    });
  }

  /** A request starts using the snapshot. */
  acquire(): void {
    this.#inflight++;
  }

  /** A request is done with it. */
  release(): void {
    if (--this.#inflight === 0 && this.#retired) this.#close();
  }

  /** A newer snapshot replaced it: close its files once its last request is done. */
  retire(): void {
    this.#retired = true;
    if (this.#inflight === 0) this.#close();
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.manifest.release();
    for (const list of this.lists.values()) list.file?.release();
    for (const held of this.includeLists.values()) held.file?.release();
  }
}

/** Reads the manifest's stamp; undefined when there is none; a link is refused. */
export async function manifestStamp(dir: string): Promise<Stamp | undefined> {
  const stat = await lstat(join(dir, MANIFEST_FILE)).catch(() => undefined);
  if (!stat) return undefined;
  if (stat.isSymbolicLink()) throw new OutputError(`${join(dir, MANIFEST_FILE)} is a symbolic link; serve never reads through a link inside the folder`);
  if (!stat.isFile()) return undefined;
  return { key: `${stat.mtimeMs}:${stat.size}:${stat.ino}`, mtime: stat.mtime };
}

/** Reads the manifest held open; undefined when it is missing or not a manifest of ours. */
async function readHeldManifest(dir: string): Promise<{ file: HeldFile; table: FileTable } | undefined> {
  const fd = opened(join(dir, MANIFEST_FILE));
  if (fd === undefined) return undefined;
  let kept = false;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return undefined;
    const again = async (): Promise<Buffer> => {
      const bytes = Buffer.allocUnsafe(stat.size);
      return readFully(fd, bytes, 0, stat.size, 0) ? bytes : Buffer.alloc(0);
    };
    const read = await readManifestInto(fileChunks(fd, 0, stat.size), again, () => fileTableSink(Math.ceil(stat.size / 120)));
    if (!read) return undefined;
    kept = true;
    return { file: new HeldFile(fd, stat.size, read.sha256, stat.mtimeMs), table: read.entries };
  } finally {
    if (!kept) closeSync(fd);
  }
}

/**
 * Loads the snapshot the folder's manifest describes: the manifest, a check that no folder of
 * the snapshot is a link, and the five lists indexed as they stream (and hashed: a list that does
 * not match is a publish under way). Lists whose bytes the previous snapshot has are taken from it.
 */
export async function loadSnapshot(dir: string, options: { caseSensitive: boolean; previous?: Snapshot | undefined }): Promise<{ ok: true; snapshot: Snapshot } | LoadFailure> {
  const opened: HeldFile[] = [];
  const fail = (failure: Omit<LoadFailure, 'ok'>): LoadFailure => {
    for (const file of opened) file.release();
    return { ok: false, ...failure };
  };
  try {
    const stamp = await manifestStamp(dir);
    if (!stamp) return fail({ missing: true, reason: `${join(dir, MANIFEST_FILE)} does not exist` });
    if (await fs.pathExists(journalPath(dir))) return fail({ missing: false, reason: 'a publish is in progress (journal present)' });
    const manifest = await readHeldManifest(dir);
    if (!manifest) return fail({ missing: true, reason: `${join(dir, MANIFEST_FILE)} is not a valid manifest` });
    opened.push(manifest.file);
    const { table } = manifest;
    await checkFoldersOf(dir, table.pathSpans());

    const previous = options.previous?.caseSensitive === options.caseSensitive ? options.previous : undefined;
    const lists = new Map<ResourceName, HeldList>();
    for (const resource of RESOURCE_NAMES) {
      const file = listFile(resource);
      const i = table.indexOf(file);
      if (i === undefined) {
        lists.set(resource, emptyList(resource, options.caseSensitive));
        continue;
      }
      const expected = { sha256: table.sha256(i), size: table.fileSize(i) };
      const before = previous?.list(resource);
      if (before?.file?.sha256 === expected.sha256 && before.file.size === expected.size) {
        lists.set(resource, before);
        opened.push(before.file.retain());
        continue;
      }
      let held: HeldList | Stale;
      try {
        held = await indexFile(join(dir, file), resource, substringFields(resource), options.caseSensitive, expected, true);
      } catch (error) {
        if (error instanceof ListFormatError) return fail({ missing: false, permanent: true, reason: `${file}: ${error.message}` });
        throw error;
      }
      if (held === STALE) return fail({ missing: false, reason: `${file} does not match the manifest (a publish under way?)` });
      opened.push(held.file!);
      lists.set(resource, held);
    }
    const includes = new Map<ResourceName, HeldList>();
    for (const [resource, held] of previous?.includeLists ?? []) {
      const expected = table.indexOf(filterFile(resource, 'include', 'servers'));
      if (expected !== undefined && held.file && table.sha256(expected) === held.file.sha256) {
        includes.set(resource, held);
        opened.push(held.file.retain());
      }
    }
    const after = await manifestStamp(dir);
    if (after?.key !== stamp.key || (await fs.pathExists(journalPath(dir)))) return fail({ missing: false, reason: 'the manifest changed while it was being read' });
    return { ok: true, snapshot: new Snapshot(dir, stamp, table, manifest.file, lists, options.caseSensitive, includes) };
  } catch (error) {
    if (error instanceof OutputError) return fail({ missing: false, permanent: true, reason: error.message });
    fail({ missing: false, reason: '' });
    throw error;
  }
}
