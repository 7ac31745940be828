/**
 * pack / unpack / verify --archive against a real synced folder, and hostile archives crafted by
 * hand: nothing they hold may land anywhere, and the target folder is left as it was.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { list, type ReadEntry } from 'tar';
import { describe, expect, it } from 'vitest';
import { packSnapshot } from '../../src/archive/pack.js';
import { unpackArchive } from '../../src/archive/unpack.js';
import { verifyArchive } from '../../src/archive/verify.js';
import { sha256 } from '../../src/snapshot/manifest.js';
import { HTTP_CACHE_FILE, LAST_SYNC_FILE, MANIFEST_FILE } from '../../src/snapshot/paths.js';
import { listFiles, verifyFolder } from '../../src/verify/verify.js';
import { syncInto } from '../helpers/sync.js';
import { tempDir } from '../helpers/tmp.js';
import { snapshotData, treeState } from '../helpers/tree.js';
import { useUpstream } from '../helpers/upstream.js';
import { craftArchive } from './helpers.js';

const upstream = await useUpstream({ scale: 40 });

async function entriesOf(file: string): Promise<{ path: string; type: string; mode?: number; mtime?: Date; uid?: number }[]> {
  const out: { path: string; type: string; mode?: number; mtime?: Date; uid?: number }[] = [];
  await list({ file, onReadEntry: (e: ReadEntry) => out.push({ path: e.path, type: e.type, mode: e.mode, mtime: e.mtime, uid: e.uid }) });
  return out;
}

async function syncedFolder(): Promise<string> {
  const out = join(tempDir(), 'snapshot');
  await syncInto(upstream, out);
  return out;
}

describe('pack', () => {
  it('packs exactly the manifest, its files, no run metadata or work files; twice gives identical bytes', async () => {
    const dir = await syncedFolder();
    expect(existsSync(join(dir, LAST_SYNC_FILE))).toBe(true);
    const work = tempDir();
    const a = join(work, 'a.tar.gz');
    const b = join(work, 'b.tar.gz');
    const result = await packSnapshot({ dir, out: a });
    await packSnapshot({ dir, out: b });
    expect(readFileSync(a).equals(readFileSync(b))).toBe(true);
    const manifest = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as { files: Record<string, unknown> };
    const entries = await entriesOf(a);
    expect(entries.map((e) => e.path)).toEqual([MANIFEST_FILE, ...Object.keys(manifest.files)]);
    expect(result.files).toBe(entries.length);
    expect(new Set(entries.map((e) => `${e.type} ${e.mode?.toString(8)} ${e.uid} ${e.mtime?.toISOString()}`))).toEqual(new Set(['File 644 0 1970-01-01T00:00:00.000Z']));
    expect(readdirSync(work).sort()).toEqual(['a.tar.gz', 'b.tar.gz']);
  });

  it('refuses a folder whose files no longer match the manifest, and an --out inside the folder', async () => {
    const dir = await syncedFolder();
    const out = join(tempDir(), 'x.tar.gz');
    writeFileSync(join(dir, 'servers.json'), '{}\n');
    await expect(packSnapshot({ dir, out })).rejects.toThrow(/servers\.json does not match the manifest/);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(join(out, '..'))).toEqual([]);
    await expect(packSnapshot({ dir, out: join(dir, 'inside.tar.gz') })).rejects.toThrow(/inside the folder being packed/);
  });
});

describe('verify --archive and unpack', () => {
  it('round trip: the unpacked folder verifies and holds the same snapshot files', async () => {
    const dir = await syncedFolder();
    const file = join(tempDir(), 's.tar.gz');
    await packSnapshot({ dir, out: file });
    const report = await verifyArchive(file);
    expect(report).toMatchObject({ missing: [], altered: [], extra: [], noManifest: false, signature: undefined });
    const target = join(tempDir(), 'restored');
    const result = await unpackArchive({ file, dir: target });
    expect(result.replaced).toBe(false);
    expect(await verifyFolder(target)).toMatchObject({ missing: [], altered: [], extra: [] });
    const manifest = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as { files: Record<string, unknown> };
    const want = [...Object.keys(manifest.files), MANIFEST_FILE].sort();
    expect((await listFiles(target)).sort()).toEqual(want);
    // No temporary folder left beside the target.
    expect(readdirSync(join(target, '..'))).toEqual(['restored']);
  });

  it('replaces an existing snapshot, but refuses a non-empty folder that is not one, and one with extra files', async () => {
    const dir = await syncedFolder();
    const file = join(tempDir(), 's.tar.gz');
    await packSnapshot({ dir, out: file });
    const other = await syncedFolder();
    expect((await unpackArchive({ file, dir: other })).replaced).toBe(true);
    expect(await verifyFolder(other)).toMatchObject({ missing: [], altered: [], extra: [] });

    const stranger = tempDir();
    writeFileSync(join(stranger, 'notes.txt'), 'mine');
    await expect(unpackArchive({ file, dir: stranger })).rejects.toThrow(/is not empty and is not a published snapshot/);
    expect(readdirSync(stranger)).toEqual(['notes.txt']);

    writeFileSync(join(other, 'notes.txt'), 'mine');
    await expect(unpackArchive({ file, dir: other })).rejects.toThrow(/holds files outside its snapshot \(first: notes\.txt\)/);
    expect(readFileSync(join(other, 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('an older archive unpacked over a newer snapshot publishes through the journal, writing only what differs; the next sync brings it level', async () => {
    const service = await useUpstream({ scale: 30 });
    const older = join(tempDir(), 'older');
    await syncInto(service, older);
    const file = join(tempDir(), 'older.tar.gz');
    await packSnapshot({ dir: older, out: file });
    service.mutate({ seed: 9, share: 0.2 });
    const dir = join(tempDir(), 'current');
    await syncInto(service, dir);
    const hashes = (folder: string): Record<string, { sha256: string }> => (JSON.parse(readFileSync(join(folder, MANIFEST_FILE), 'utf8')) as { files: Record<string, { sha256: string }> }).files;
    const [oldFiles, newFiles] = [hashes(older), hashes(dir)];
    const shared = Object.keys(newFiles).find((path) => path.startsWith('servers/') && oldFiles[path]?.sha256 === newFiles[path]!.sha256)!;
    const differing = Object.keys(newFiles).filter((path) => oldFiles[path]?.sha256 !== newFiles[path]!.sha256);
    expect(differing.length).toBeGreaterThan(0);
    const before = (await treeState(dir)).get(shared);

    expect((await unpackArchive({ file, dir })).replaced).toBe(true);
    expect(await verifyFolder(dir)).toMatchObject({ missing: [], altered: [], extra: [] });
    expect(readFileSync(join(dir, MANIFEST_FILE)).equals(readFileSync(join(older, MANIFEST_FILE)))).toBe(true);
    // Files the two snapshots share are left as they were, not rewritten.
    expect((await treeState(dir)).get(shared)).toEqual(before);
    expect(existsSync(join(dir, LAST_SYNC_FILE))).toBe(false);
    expect(existsSync(join(dir, HTTP_CACHE_FILE))).toBe(false);
    expect(existsSync(join(dir, '.inventory-mirror', 'staging'))).toBe(false);

    // The ETags of the replaced snapshot are gone with it: the next sync fetches what the archive changed.
    await syncInto(service, dir);
    const fresh = join(tempDir(), 'fresh');
    await syncInto(service, fresh);
    expect(await snapshotData(dir)).toEqual(await snapshotData(fresh));
  });

  it('names missing, altered and extra entries; unpack refuses such an archive and writes nothing', async () => {
    const dir = await syncedFolder();
    const manifest = readFileSync(join(dir, MANIFEST_FILE));
    const listed = Object.keys((JSON.parse(manifest.toString()) as { files: Record<string, unknown> }).files);
    const file = join(tempDir(), 'bad.tar.gz');
    const entries = listed
      .filter((p) => p !== 'applications.json')
      .map((path) => ({ path, body: path === 'servers.json' ? '{"servers":[]}\n' : readFileSync(join(dir, path)) }));
    craftArchive(file, [{ path: MANIFEST_FILE, body: manifest }, ...entries, { path: 'servers/planted.json', body: '{}' }]);
    const report = await verifyArchive(file);
    expect(report).toMatchObject({ missing: ['applications.json'], altered: ['servers.json'], extra: ['servers/planted.json'] });
    const target = join(tempDir(), 'never');
    // Unpacking holds each entry to the size its manifest lists before writing it.
    await expect(unpackArchive({ file, dir: target })).rejects.toThrow(/entry "servers\.json" holds 15 bytes where its manifest says \d+; nothing was unpacked/);
    expect(readdirSync(join(target, '..'))).toEqual([]);

    // What only the whole archive shows (a missing entry, bytes altered at the same size) is refused at the end.
    const servers = readFileSync(join(dir, 'servers.json'));
    const sameSize = Buffer.from(servers);
    sameSize[sameSize.indexOf('"id"') + 1] = 'I'.charCodeAt(0);
    const quiet = join(tempDir(), 'quiet.tar.gz');
    craftArchive(quiet, [{ path: MANIFEST_FILE, body: manifest }, ...entries.map((e) => (e.path === 'servers.json' ? { path: e.path, body: sameSize } : e))]);
    await expect(unpackArchive({ file: quiet, dir: target })).rejects.toThrow(/does not match its own manifest, nothing was unpacked: missing: applications\.json, altered: servers\.json$/);
    expect(readdirSync(join(target, '..'))).toEqual([]);
  });

  it('refuses, before writing a byte, an entry larger than its manifest says, one it does not list, a manifest that does not come first, and files that cannot fit', async () => {
    const body = '{"a":1}\n';
    const manifestOf = (size: number): string => JSON.stringify({ format: 1, generator: 'inventory-mirror', files: { 'a.json': { sha256: sha256(Buffer.from(body)), size } } });
    const cases: [string, Parameters<typeof craftArchive>[1], RegExp][] = [
      ['bigger', [{ path: MANIFEST_FILE, body: manifestOf(body.length) }, { path: 'a.json', body: 'x'.repeat(100_000) }], /entry "a\.json" holds 100000 bytes where its manifest says 8; nothing was unpacked/],
      ['unlisted', [{ path: MANIFEST_FILE, body: manifestOf(body.length) }, { path: 'a.json', body }, { path: 'b.json', body }], /entry "b\.json" is not in its manifest; nothing was unpacked/],
      ['manifest last', [{ path: 'a.json', body }, { path: MANIFEST_FILE, body: manifestOf(body.length) }], /its first entry is "a\.json", not _meta\/manifest\.json/],
      ['too big for the disk', [{ path: MANIFEST_FILE, body: manifestOf(2 ** 52) }, { path: 'a.json', body }], /its manifest lists 4503599627370496 bytes of files and .* free; nothing was unpacked/],
    ];
    for (const [name, entries, message] of cases) {
      const root = tempDir();
      const file = join(root, `${name}.tar.gz`);
      craftArchive(file, entries);
      await expect(unpackArchive({ file, dir: join(root, 'out') }), name).rejects.toThrow(message);
      expect(readdirSync(root), name).toEqual([`${name}.tar.gz`]);
    }
  });

  const hostile: [string, Parameters<typeof craftArchive>[1], RegExp][] = [
    ['a ../ path', [{ path: '../evil', body: 'x' }], /"\.\.\/evil" climbs out/],
    ['a nested ../ path', [{ path: 'servers/../../evil', body: 'x' }], /climbs out/],
    ['an absolute path', [{ path: '/tmp/im-abs-evil', body: 'x' }], /"\/tmp\/im-abs-evil" has an absolute path/],
    ['a symlink', [{ path: 'servers', type: 'SymbolicLink', linkpath: '/etc' }, { path: 'servers/passwd', body: 'x' }], /"servers" is a SymbolicLink entry/],
    ['a hardlink', [{ path: 'link', type: 'Link', linkpath: '/etc/passwd' }], /"link" is a Link entry/],
    ['a fifo', [{ path: 'pipe', type: 'FIFO' }], /"pipe" is a FIFO entry/],
    ['a device', [{ path: 'dev', type: 'CharacterDevice' }], /"dev" is a CharacterDevice entry/],
    ['a work file', [{ path: '.inventory-mirror/journal.json', body: '{}' }], /work file or run metadata/],
    ['a duplicate', [{ path: MANIFEST_FILE, body: JSON.stringify({ format: 1, generator: 'inventory-mirror', files: { 'a.json': { sha256: sha256(Buffer.from('1')), size: 1 } } }) }, { path: 'a.json', body: '1' }, { path: 'a.json', body: '2' }], /"a\.json" appears twice/],
  ];
  for (const [name, entries, message] of hostile) {
    it(`refuses ${name}: unpack writes nothing anywhere, verify --archive fails`, async () => {
      const root = tempDir();
      const file = join(root, 'hostile.tar.gz');
      craftArchive(file, entries);
      mkdirSync(join(root, 'parent'));
      const target = join(root, 'parent', 'out');
      await expect(unpackArchive({ file, dir: target })).rejects.toThrow(message);
      await expect(verifyArchive(file)).rejects.toThrow(message);
      expect(readdirSync(root).sort()).toEqual(['hostile.tar.gz', 'parent']);
      expect(readdirSync(join(root, 'parent'))).toEqual([]);
      expect(existsSync('/tmp/im-abs-evil')).toBe(false);
    });
  }

  it('refuses what is not an archive, with one line naming the file', async () => {
    const file = join(tempDir(), 'junk.tar.gz');
    writeFileSync(file, 'this is not a tar file at all'.repeat(40));
    await expect(verifyArchive(file)).rejects.toThrow(/junk\.tar\.gz: (not a readable \.tar\.gz archive|holds)/);
    await expect(verifyArchive(join(tempDir(), 'absent.tar.gz'))).rejects.toThrow(/absent\.tar\.gz: cannot read it \(ENOENT\)/);
  });

  it('keeps an unchanged folder untouched while packing (no lock or work folder left)', async () => {
    const dir = await syncedFolder();
    const before = await treeState(dir);
    await packSnapshot({ dir, out: join(tempDir(), 'p.tar.gz') });
    expect(await treeState(dir)).toEqual(before);
  });
});
