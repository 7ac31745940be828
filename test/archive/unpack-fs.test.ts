/**
 * unpack against what the file system refuses: entries that need one path to be both a file and a
 * folder, and a target folder that cannot be written. Each is one line and exit 1, never the
 * "internal error" of exit 70, and nothing is left behind.
 */
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/snapshot/manifest.js';
import { MANIFEST_FILE } from '../../src/snapshot/paths.js';
import { runCli, UNPRIVILEGED, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { craftArchive, type CraftedEntry } from './helpers.js';

const BODY = '{"a":1}\n';
const listed = (paths: string[]): CraftedEntry => ({ path: MANIFEST_FILE, body: JSON.stringify({ format: 1, generator: 'inventory-mirror', files: Object.fromEntries(paths.map((p) => [p, { sha256: sha256(Buffer.from(BODY)), size: BODY.length }])) }) });

function oneLine(result: CliResult, message: RegExp): void {
  expect(result.stderr).toMatch(message);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.code).toBe(1);
}

describe('unpack and the file system', () => {
  for (const order of [['servers', 'servers/x.json'], ['servers/x.json', 'servers']]) {
    it(`refuses an archive holding ${order.map((p) => JSON.stringify(p)).join(' then ')}, naming both, writing nothing`, async () => {
      const root = tempDir();
      const file = join(root, 'a.tar.gz');
      craftArchive(file, [listed(['servers', 'servers/x.json']), ...order.map((path) => ({ path, body: BODY }))]);
      const message = /a\.tar\.gz: entries "servers" and "servers\/x\.json" cannot both be in it: "servers" would be a file and a folder; refusing the archive/;
      oneLine(await runCli(['unpack', file, '--dir', join(root, 'out')]), message);
      expect(readdirSync(root)).toEqual(['a.tar.gz']);
      oneLine(await runCli(['verify', '--archive', file]), message);
    });
  }

  it('refuses a --dir under a file, naming it, and leaves nothing behind', async () => {
    const root = tempDir();
    const file = join(root, 'a.tar.gz');
    craftArchive(file, [listed(['a.json']), { path: 'a.json', body: BODY }]);
    writeFileSync(join(root, 'plain'), 'a file');
    const result = await runCli(['unpack', file, '--dir', join(root, 'plain', 'sub', 'out')]);
    oneLine(result, /inventory-mirror unpack: cannot unpack into .*plain.*: .*(a parent that is a file, not a folder|already exists) \(\w+ (ENOTDIR|EEXIST)\)/);
    expect(result.stderr).not.toMatch(/internal error/);
    expect(readdirSync(root).sort()).toEqual(['a.tar.gz', 'plain']);
  });

  it('refuses a --dir whose name the file system cannot hold, and leaves nothing behind', async () => {
    const root = tempDir();
    const file = join(root, 'a.tar.gz');
    craftArchive(file, [listed(['a.json']), { path: 'a.json', body: BODY }]);
    const result = await runCli(['unpack', file, '--dir', join(root, 'n'.repeat(250))]);
    oneLine(result, /inventory-mirror unpack: .*ENAMETOOLONG/);
    expect(readdirSync(root)).toEqual(['a.tar.gz']);
  });

  it.skipIf(!UNPRIVILEGED)('refuses a --dir in a folder it may not write to (run as an unprivileged user when root)', async () => {
    const root = tempDir();
    chmodSync(root, 0o755);
    const file = join(root, 'a.tar.gz');
    craftArchive(file, [listed(['a.json']), { path: 'a.json', body: BODY }]);
    chmodSync(file, 0o644);
    const locked = join(root, 'locked');
    mkdirSync(locked, { mode: 0o555 });
    chmodSync(locked, 0o555);
    const result = await runCli(['unpack', file, '--dir', join(locked, 'out')], { ...UNPRIVILEGED, cwd: root });
    oneLine(result, /inventory-mirror unpack: cannot unpack into .*locked.*: .*permission denied.*\(\w+ EACCES\)/);
    expect(readdirSync(locked)).toEqual([]);
    expect(existsSync(join(locked, 'out'))).toBe(false);
  });

  it('removes the folders it made for a target when the archive is refused', async () => {
    const root = tempDir();
    const file = join(root, 'a.tar.gz');
    craftArchive(file, [listed(['a.json']), { path: 'a.json', body: 'a different body\n' }]);
    const result = await runCli(['unpack', file, '--dir', join(root, 'new', 'deeper', 'out')]);
    expect(result).toMatchObject({ code: 1 });
    expect(result.stderr).toMatch(/entry "a\.json" holds 17 bytes where its manifest says 8/);
    expect(readdirSync(root)).toEqual(['a.tar.gz']);
  });

  it.skipIf(!UNPRIVILEGED)('pack refuses an --out in a folder it may not write to with one line (run as an unprivileged user when root)', async () => {
    const root = tempDir();
    chmodSync(root, 0o755);
    const file = join(root, 'a.tar.gz');
    craftArchive(file, [listed(['a.json']), { path: 'a.json', body: BODY }]);
    const snapshot = join(root, 'snapshot');
    expect((await runCli(['unpack', file, '--dir', snapshot])).code).toBe(0);
    const locked = join(root, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o555);
    const { uid, gid } = UNPRIVILEGED!;
    if (uid !== undefined && gid !== undefined) for (const path of [snapshot, join(snapshot, 'a.json'), join(snapshot, '_meta'), join(snapshot, '_meta', 'manifest.json')]) chownSync(path, uid, gid);
    const result = await runCli(['pack', '--dir', snapshot, '--out', join(locked, 'out.tar.gz')], { ...UNPRIVILEGED, cwd: root });
    oneLine(result, /inventory-mirror pack: cannot pack .*snapshot into .*locked\/out\.tar\.gz: .*locked.* is not accessible to this user \(permission denied\).*\(open EACCES\)/);
    expect(readdirSync(locked)).toEqual([]);
  });
});
