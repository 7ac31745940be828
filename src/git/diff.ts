/**
 * `diff REV1 REV2 --dir out`: the change set between two revisions of a snapshot folder kept in
 * git, read through `git cat-file` (only the files the manifests say differ).
 */
import { compare, folderReader, snapshotTable } from '../diff/read.js';
import type { ChangeSet } from '../diff/engine.js';
import { NotSnapshotError } from '../errors.js';
import { parseManifest } from '../snapshot/manifest.js';
import type { FileTable } from '../snapshot/table.js';
import { RevisionReader } from './revision.js';

/**
 * What changed in the folder `dir`, kept in git, from revision `oldRev` to `newRev` (or to the
 * folder as it is now, without `newRev`). Only the files the manifests say differ are read.
 */
export async function diffRevisions(dir: string, oldRev: string, newRev: string | undefined): Promise<ChangeSet> {
  const before = await RevisionReader.open(dir, oldRev);
  const after = newRev === undefined ? undefined : await RevisionReader.open(dir, newRev);
  try {
    const parse = (bytes: Buffer, where: string): FileTable => {
      const read = parseManifest(bytes);
      if (!read) throw new NotSnapshotError(`the manifest of ${where} is not one of inventory-mirror's`);
      return read.table;
    };
    const oldTable = parse(await before.manifestBytes(), `${dir} at ${oldRev}`);
    const newTable = after ? parse(await after.manifestBytes(), `${dir} at ${newRev}`) : await snapshotTable(dir);
    return await compare(oldTable, newTable, (path) => before.read(path), after ? (path) => after.read(path) : folderReader(dir));
  } finally {
    before.close();
    after?.close();
  }
}
