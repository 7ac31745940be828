/**
 * The journal's promise, without relying on kill timing: a publish stopped after its commit
 * point at any rename is finished by `recover`; one stopped before it is discarded.
 */
import { existsSync, renameSync, mkdirSync, writeFileSync, readFileSync, truncateSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commit, journalPath, recover, stagingDir, type Journal } from '../../src/publish/journal.js';
import { readManifest } from '../../src/snapshot/manifest-read.js';
import { NextSnapshot } from '../../src/publish/next.js';
import { pendingOf, prepareJournal, publishFiles, stageManifest, type Pending } from '../../src/publish/publish.js';
import { PublishedSnapshot } from '../../src/snapshot/published.js';
import { MANIFEST_FILE, SIGNATURE_FILE } from '../../src/snapshot/paths.js';
import { verifyFolder } from '../../src/verify/verify.js';
import { tempDir } from '../helpers/tmp.js';

const oldFiles = new Map([
  ['a.json', Buffer.from('{"a":1}\n')],
  ['d/b.json', Buffer.from('{"b":1}\n')],
  ['gone/c.json', Buffer.from('{"c":1}\n')],
]);
const newFiles = new Map([
  ['a.json', Buffer.from('{"a":2}\n')],
  ['d/b.json', Buffer.from('{"b":1}\n')],
  ['d/new.json', Buffer.from('{"n":1}\n')],
  ['e/f/g.json', Buffer.from('{"g":1}\n')],
]);

/** Publishes `files` into `dir` as one snapshot, writing only what changed. */
function publishSnapshot(dir: string, files: ReadonlyMap<string, Buffer>): Promise<Pending> {
  return publishFiles(dir, files.keys(), async (path) => files.get(path)!);
}

/** Stages `files` as the next snapshot of `dir` and returns the journal that would publish it, unapplied. */
async function journalOf(dir: string, files: ReadonlyMap<string, Buffer>, sign?: () => Buffer): Promise<Journal> {
  const manifest = await readManifest(dir);
  const next = await NextSnapshot.open(dir, manifest && PublishedSnapshot.of(dir, manifest));
  for (const [path, bytes] of files) await next.put(path, bytes);
  const staged = await stageManifest(next);
  return (await prepareJournal(next, { manifest: staged, pending: pendingOf(next, staged.order), meta: new Map(), sign }))!;
}

/** Publishes the old snapshot, then stages the new one over it and returns its journal, unapplied. */
async function stagedOverOld(dir: string, files: ReadonlyMap<string, Buffer> = newFiles): Promise<Journal> {
  await publishSnapshot(dir, oldFiles);
  return journalOf(dir, files);
}

function readAll(dir: string, files: Map<string, Buffer>): boolean {
  return [...files].every(([p, b]) => existsSync(join(dir, p)) && readFileSync(join(dir, p)).equals(b));
}

describe('journal recovery', () => {
  it('discards a publish stopped before its commit point: the old snapshot stays', async () => {
    const dir = tempDir();
    await stagedOverOld(dir);
    expect(await recover(dir)).toMatch(/discarded/);
    expect(readAll(dir, oldFiles)).toBe(true);
    expect(existsSync(stagingDir(dir))).toBe(false);
    expect(await verifyFolder(dir)).toMatchObject({ missing: [], altered: [], extra: [] });
  });

  for (let applied = 0; applied <= 4; applied++) {
    it(`finishes a publish stopped after its commit point with ${applied} rename(s) done`, async () => {
      const dir = tempDir();
      const journal = await stagedOverOld(dir);
      await commit(dir, journal);
      for (const put of journal.puts.slice(0, applied)) {
        mkdirSync(dirname(join(dir, put.path)), { recursive: true });
        renameSync(join(stagingDir(dir), put.staged), join(dir, put.path));
      }
      expect(await recover(dir)).toMatch(/finished a publish/);
      expect(readAll(dir, newFiles)).toBe(true);
      expect(existsSync(join(dir, 'gone'))).toBe(false);
      expect(existsSync(journalPath(dir))).toBe(false);
      expect(await verifyFolder(dir)).toMatchObject({ missing: [], altered: [], extra: [] });
      expect(await recover(dir)).toBeUndefined();
    });
  }

  it('places the manifest and then its signature last, and finishes the signature after a crash between the two', async () => {
    const dir = tempDir();
    await publishSnapshot(dir, oldFiles);
    const signature = Buffer.from('{"signature":2}\n');
    const journal = await journalOf(dir, newFiles, () => signature);
    expect(journal!.puts.map((p) => p.path).slice(-2)).toEqual([MANIFEST_FILE, SIGNATURE_FILE]);
    await commit(dir, journal!);
    for (const put of journal!.puts.slice(0, -1)) {
      mkdirSync(dirname(join(dir, put.path)), { recursive: true });
      renameSync(join(stagingDir(dir), put.staged), join(dir, put.path));
    }
    expect(existsSync(join(dir, SIGNATURE_FILE))).toBe(false);
    await recover(dir);
    expect(readFileSync(join(dir, SIGNATURE_FILE)).equals(signature)).toBe(true);
  });

  it('moves each folder the folder does not have yet with one rename, and single files into existing ones', async () => {
    const dir = tempDir();
    const journal = await stagedOverOld(dir);
    expect(journal.puts.map((p) => [p.path, p.sha256 === undefined ? 'folder' : 'file'])).toEqual([
      ['a.json', 'file'],
      ['d/new.json', 'file'],
      ['e', 'folder'],
      [MANIFEST_FILE, 'file'],
    ]);
    const first = await journalOf(tempDir(), newFiles);
    expect(first.puts.map((p) => p.path)).toEqual(['a.json', 'd', 'e', MANIFEST_FILE]);
  });

  it('drops a staged file the disk lost (power loss) instead of placing garbage, and says so', async () => {
    const dir = tempDir();
    const journal = await stagedOverOld(dir);
    await commit(dir, journal);
    const victim = journal.puts.find((p) => p.path === 'a.json')!;
    truncateSync(join(stagingDir(dir), victim.staged), 0);
    expect(await recover(dir)).toMatch(/1 staged file\(s\) were lost \(a\.json\)/);
    expect(existsSync(join(dir, 'a.json'))).toBe(false);
    expect((await verifyFolder(dir)).missing).toEqual(['a.json']);
    // The next publish notices the missing file and writes it again.
    const result = await publishSnapshot(dir, newFiles);
    expect(result.written).toEqual(['a.json']);
    expect(await verifyFolder(dir)).toMatchObject({ missing: [], altered: [], extra: [] });
  });

  it('refuses a damaged journal with a message saying what to do', async () => {
    const dir = tempDir();
    await stagedOverOld(dir);
    writeFileSync(journalPath(dir), '{"format":2,"puts":');
    await expect(recover(dir)).rejects.toThrow(/journal\.json is damaged .* after deleting it/);
  });
});
