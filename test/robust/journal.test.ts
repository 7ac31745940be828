/**
 * The journal's promise, without relying on kill timing: a publish stopped after its commit
 * point at any rename is finished by `recover`; one stopped before it is discarded.
 */
import { existsSync, renameSync, mkdirSync, writeFileSync, readFileSync, truncateSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { publishSnapshot, readManifest } from '../../src/publish/apply.js';
import { commit, journalPath, recover, stage, stagingDir } from '../../src/publish/journal.js';
import { buildManifest, encodeManifest, sha256 } from '../../src/publish/manifest.js';
import { MANIFEST_FILE, SIGNATURE_FILE } from '../../src/publish/paths.js';
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

/** Stages and commits the new snapshot over the old one, without applying it. */
async function committedOverOld(dir: string) {
  await publishSnapshot(dir, oldFiles, undefined);
  const previous = await readManifest(dir);
  const manifest = encodeManifest(buildManifest(new Map([...newFiles].map(([p, b]) => [p, { sha256: sha256(b), size: b.length }]))));
  const changed = new Map<string, { bytes: Buffer; sha256: string }>([...newFiles].filter(([p, b]) => previous!.files[p]?.sha256 !== sha256(b)).map(([p, b]) => [p, { bytes: b, sha256: sha256(b) }]));
  changed.set(MANIFEST_FILE, { bytes: manifest, sha256: sha256(manifest) });
  const journal = await stage(dir, changed, ['gone/c.json']);
  return journal;
}

function readAll(dir: string, files: Map<string, Buffer>): boolean {
  return [...files].every(([p, b]) => existsSync(join(dir, p)) && readFileSync(join(dir, p)).equals(b));
}

describe('journal recovery', () => {
  it('discards a publish stopped before its commit point: the old snapshot stays', async () => {
    const dir = tempDir();
    await committedOverOld(dir);
    expect(await recover(dir)).toMatch(/discarded/);
    expect(readAll(dir, oldFiles)).toBe(true);
    expect(existsSync(stagingDir(dir))).toBe(false);
    expect(await verifyFolder(dir)).toMatchObject({ missing: [], altered: [], extra: [] });
  });

  for (let applied = 0; applied <= 4; applied++) {
    it(`finishes a publish stopped after its commit point with ${applied} rename(s) done`, async () => {
      const dir = tempDir();
      const journal = await committedOverOld(dir);
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
    await publishSnapshot(dir, oldFiles, undefined);
    const manifest = Buffer.from('{"manifest":2}\n');
    const signature = Buffer.from('{"signature":2}\n');
    const staged = new Map([
      [SIGNATURE_FILE, { bytes: signature, sha256: sha256(signature) }],
      [MANIFEST_FILE, { bytes: manifest, sha256: sha256(manifest) }],
      ['a.json', { bytes: newFiles.get('a.json')!, sha256: sha256(newFiles.get('a.json')!) }],
    ]);
    const journal = await stage(dir, staged, []);
    expect(journal.puts.map((p) => p.path)).toEqual(['a.json', MANIFEST_FILE, SIGNATURE_FILE]);
    await commit(dir, journal);
    for (const put of journal.puts.slice(0, 2)) renameSync(join(stagingDir(dir), put.staged), join(dir, put.path));
    expect(existsSync(join(dir, SIGNATURE_FILE))).toBe(false);
    await recover(dir);
    expect(readFileSync(join(dir, SIGNATURE_FILE)).equals(signature)).toBe(true);
  });

  it('drops a staged file the disk lost (power loss) instead of placing garbage, and says so', async () => {
    const dir = tempDir();
    const journal = await committedOverOld(dir);
    await commit(dir, journal);
    const victim = journal.puts.find((p) => p.path === 'a.json')!;
    truncateSync(join(stagingDir(dir), victim.staged), 0);
    expect(await recover(dir)).toMatch(/1 staged file\(s\) were lost \(a\.json\)/);
    expect(existsSync(join(dir, 'a.json'))).toBe(false);
    expect((await verifyFolder(dir)).missing).toEqual(['a.json']);
    // The next publish notices the missing file and writes it again.
    const result = await publishSnapshot(dir, newFiles, await readManifest(dir));
    expect(result.written).toEqual(['a.json']);
    expect(await verifyFolder(dir)).toMatchObject({ missing: [], altered: [], extra: [] });
  });

  it('refuses a damaged journal with a message saying what to do', async () => {
    const dir = tempDir();
    await committedOverOld(dir);
    writeFileSync(journalPath(dir), '{"format":1,"puts":');
    await expect(recover(dir)).rejects.toThrow(/journal\.json is damaged .* after deleting it/);
  });
});
