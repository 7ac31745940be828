/**
 * The I/O edge of the diff engine: snapshot folders (through their manifests) and a sync's new
 * snapshot. Only the record files the hashes say differ are read, a few at a time, and each is
 * dropped once its fields are compared, so a large change set costs its result, not its files.
 */
import { join } from 'node:path';
import fs from 'fs-extra';
import { NotSnapshotError } from '../errors.js';
import { readManifest } from '../snapshot/manifest-read.js';
import { requireFolder } from '../publish/output.js';
import type { FileTable } from '../snapshot/table.js';
import { RESOURCE_NAMES, type ResourceName } from '../spec/resources.js';
import { forEachConcurrent } from '../util/concurrent.js';
import { ChangeSetBuilder, classifyTables, recordChange, withFindings, type ChangeSet, type PathChanges } from './engine.js';
import { decodeSegment, parseRecordFile, QUALITY_FILE } from '../snapshot/paths.js';
import { parseQuality } from '../validate/quality.js';

/** Reads a file of a snapshot by its path; undefined when it cannot be read. */
export type Reader = (path: string) => Promise<Buffer | undefined>;

const READS_IN_FLIGHT = 32;

/** Records whose added or removed file is read for its name (beyond them, the id from the file name). */
const NAMED_PER_KIND = 5000;

interface ChangeSetOptions {
  /** A first snapshot: added records are named by their file names, nothing is read. */
  initial?: boolean;
}

/** The change set of classified paths, reading files of the old and new snapshots as needed. */
export async function changeSetOf(paths: PathChanges, readOld: Reader, readNew: Reader, options: ChangeSetOptions = {}): Promise<ChangeSet> {
  const builder = new ChangeSetBuilder();
  // Only the files to read wait for a turn: a first sync of 500 000 servers names 900 000 records
  // by their file names, and a job object each cost it 40 MB.
  const reads: { resource: ResourceName; kind: 'added' | 'removed' | 'changed'; path: string }[] = [];
  for (const resource of RESOURCE_NAMES) {
    const p = paths[resource];
    // An added or removed record's id is its file name, unless the name is a shortened long id.
    const byName = (kind: 'added' | 'removed') => (path: string, n: number) => {
      const id = options.initial === true || n >= NAMED_PER_KIND ? decodeSegment(parseRecordFile(path)!.name) : undefined;
      if (id === undefined) reads.push({ resource, kind, path });
      else builder.add(resource, kind, { id });
    };
    p.added.forEach(byName('added'));
    p.removed.forEach(byName('removed'));
    for (const path of p.changed) reads.push({ resource, kind: 'changed', path });
  }
  await forEachConcurrent(reads, READS_IN_FLIGHT, async ({ resource, kind, path }) => {
    const before = kind === 'added' ? undefined : await readOld(path);
    const after = kind === 'removed' ? undefined : await readNew(path);
    builder.add(resource, kind, recordChange(resource, path, before, after));
  });
  return builder.build();
}

/** A file of a folder, or undefined when it cannot be read (its id then comes from its name). */
export const folderReader =
  (dir: string): Reader =>
  (path) =>
    fs.readFile(join(dir, path)).catch(() => undefined);

/** The file table of the snapshot published in `dir`; NotSnapshotError when there is none. */
export async function snapshotTable(dir: string): Promise<FileTable> {
  await requireFolder(dir, 'diff expects two published output folders');
  const manifest = await readManifest(dir);
  if (!manifest) throw new NotSnapshotError(`${dir} has no valid _meta/manifest.json; it is not a published snapshot (run sync into it first)`);
  return manifest.table;
}

/** The record changes of two snapshots and the findings that appeared or were fixed between them. */
export async function compare(before: FileTable, after: FileTable, readOld: Reader, readNew: Reader): Promise<ChangeSet> {
  const changes = await changeSetOf(classifyTables(before, after), readOld, readNew);
  return withFindings(changes, parseQuality(await readOld(QUALITY_FILE)), parseQuality(await readNew(QUALITY_FILE)));
}

/** What changed from the snapshot in `oldDir` to the one in `newDir`. */
export async function diffFolders(oldDir: string, newDir: string): Promise<ChangeSet> {
  const [before, after] = await Promise.all([snapshotTable(oldDir), snapshotTable(newDir)]);
  return compare(before, after, folderReader(oldDir), folderReader(newDir));
}
