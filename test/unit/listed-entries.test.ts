/**
 * Which files of a manifest are in the folder (snapshot/published.ts listedEntries): one listing per
 * folder, read at once or, for a folder of many files, in batches, stands in for a stat per file.
 * A file missing, a folder where a file should be and a folder gone must each come out absent, so
 * the sync fetches them again.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listedEntries } from '../../src/snapshot/published.js';
import { foldersOf } from '../../src/snapshot/safe-folder.js';
import { FileTable } from '../../src/snapshot/table.js';
import { tempDir } from '../helpers/tmp.js';

/** More than one batch of a listing in batches. */
const SERVERS = 2_500;

function tableOf(paths: readonly string[]): FileTable {
  const table = new FileTable();
  for (const path of paths) table.set(path, '0'.repeat(64), 2);
  return table;
}

describe('listedEntries', () => {
  const dir = tempDir();
  const paths = [...Array.from({ length: SERVERS }, (_, n) => `servers/${n + 1}.json`), 'databases/1.json', 'databases/2.json', 'applications/1.json', 'servers.json'];
  mkdirSync(join(dir, 'servers'));
  mkdirSync(join(dir, 'databases'));
  for (const path of paths) if (!path.startsWith('applications/') && path !== 'servers/7.json' && path !== 'databases/2.json') writeFileSync(join(dir, path), '{}');
  // A folder where the manifest has a file, and a file the manifest does not have.
  mkdirSync(join(dir, 'databases/2.json'));
  writeFileSync(join(dir, 'servers/extra.json'), '{}');
  const table = tableOf(paths);
  const folders = foldersOf(table.pathSpans());
  // Counted as a folder of many files: listed in batches.
  const large = new Map([...folders].map(([folder, files]) => [folder, files * 1_000_000]));

  it.each([
    ['at once', folders],
    ['in batches', large],
  ])('marks the files listed %s, and not a missing file, a folder in its place or a folder gone', async (_, counts) => {
    expect(folders.get('servers')).toBe(SERVERS);
    const present = await listedEntries(dir, counts, table, async () => false);
    const absent = paths.filter((path) => present[table.indexOf(path)!] !== 1);
    expect(absent).toEqual(['servers/7.json', 'databases/2.json', 'applications/1.json']);
    expect(present.reduce((n, bit) => n + bit, 0)).toBe(paths.length - 3);
  });

  it('takes a folder stamped unchanged as holding every file the manifest lists in it, unlisted', async () => {
    const present = await listedEntries(dir, folders, table, async (folder) => folder === 'servers');
    expect(present[table.indexOf('servers/7.json')!]).toBe(1);
    expect(present[table.indexOf('databases/2.json')!]).toBe(0);
  });
});
