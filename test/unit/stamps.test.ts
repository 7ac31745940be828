/**
 * Stamps of the snapshot's folders and lists (snapshot/stamps.ts): what lets a sync in the same boot
 * skip listing a folder or hashing a list. They must vouch only for what is exactly as it was
 * checked, never for what changed a moment before they were taken.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keepsCtimes, stampsOf, untouched } from '../../src/snapshot/stamps.js';
import { tempDir } from '../helpers/tmp.js';

/** Longer than the stamps' racy window: a change within it is never stamped. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 150));

/** A folder with `servers/1.json`, `servers/2.json` and `servers.json`, settled. */
async function folder(): Promise<string> {
  const dir = tempDir();
  mkdirSync(join(dir, 'servers'));
  for (const path of ['servers/1.json', 'servers/2.json', 'servers.json']) writeFileSync(join(dir, path), `{"path": "${path}"}\n`);
  await settle();
  return dir;
}

/** The stamps a sync takes of `paths` of `dir` (asking about each before checking it), after one that took `recorded`. */
async function stamp(dir: string, paths: string[], recorded = new Map<string, string>()): Promise<ReadonlyMap<string, string>> {
  const stamps = stampsOf(dir, recorded);
  for (const path of paths) await stamps.unchanged(path);
  return stamps.seen;
}

describe('stamps of a snapshot', () => {
  it('vouch for a folder and a list exactly as they were, and for nothing else', async () => {
    const dir = await folder();
    const recorded = await stamp(dir, ['servers', 'servers.json', '', 'absent']);
    expect([...recorded.keys()]).toEqual(['servers', 'servers.json', '']);
    const again = stampsOf(dir, new Map(recorded));
    expect([await again.unchanged('servers'), await again.unchanged('servers.json'), await again.unchanged('')]).toEqual([true, true, true]);
    expect(again.seen).toEqual(recorded);
    // Never stamped; nor do stamps of another folder count.
    expect(await again.unchanged('servers/1.json')).toBe(false);
    expect(await stampsOf(await folder(), new Map(recorded)).unchanged('servers')).toBe(false);
    // Taken with another manifest: distrusted, they vouch for nothing, but go on noting stamps.
    const other = stampsOf(dir, new Map(recorded));
    other.distrust();
    expect(await other.unchanged('servers')).toBe(false);
    expect(other.seen).toEqual(new Map([['servers', recorded.get('servers')]]));
  });

  it('no longer vouch for a folder that lost, gained or renamed an entry, nor for a list written again with the same bytes', async () => {
    const changes: [string, (dir: string) => void][] = [
      ['servers', (dir) => rmSync(join(dir, 'servers/1.json'))],
      ['servers', (dir) => writeFileSync(join(dir, 'servers/3.json'), '{}')],
      ['servers', (dir) => renameSync(join(dir, 'servers/2.json'), join(dir, 'servers/9.json'))],
      ['servers.json', (dir) => writeFileSync(join(dir, 'servers.json'), readFileSync(join(dir, 'servers.json')))],
    ];
    for (const [path, change] of changes) {
      const dir = await folder();
      const recorded = await stamp(dir, [path]);
      change(dir);
      expect(await stampsOf(dir, new Map(recorded)).unchanged(path), `${path} after ${change.toString()}`).toBe(false);
    }
  });

  it('are not taken of what changed a moment before: a change after could keep its ctime', async () => {
    const dir = await folder();
    writeFileSync(join(dir, 'servers/4.json'), '{}');
    expect([...(await stamp(dir, ['servers', 'servers.json'])).keys()]).toEqual(['servers.json']);
  });

  it('are used only on a filesystem known to keep ctimes: not on /proc, nor where there is none', async () => {
    expect(await keepsCtimes('/proc')).toBe(false);
    expect(await keepsCtimes(join(tempDir(), 'absent'))).toBe(false);
  });

  it('are kept only for what a publish left as it was: neither the files it wrote or removed, their folders, nor _meta', () => {
    const seen = new Map([['', 'a'], ['servers', 'b'], ['databases', 'c'], ['servers.json', 'd'], ['databases.json', 'e'], ['_meta', 'f']]);
    expect([...untouched(seen, { written: ['servers/7.json', 'databases.json'], removed: [] }).keys()]).toEqual(['databases', 'servers.json']);
    expect([...untouched(seen, { written: [], removed: ['databases/3.json'] }).keys()]).toEqual(['', 'servers', 'servers.json', 'databases.json']);
    expect([...untouched(seen, { written: [], removed: [] }).keys()]).toEqual(['', 'servers', 'databases', 'servers.json', 'databases.json']);
  });
});
