/**
 * The new snapshot remembers what it staged by table index. A file put again (a list rewritten without
 * records that answered 404) may move to another index: what is staged, read back and published
 * must follow the last put.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readManifest } from '../../src/snapshot/manifest-read.js';
import { NextSnapshot } from '../../src/publish/next.js';
import { pendingOf, publish, publishFiles, stageManifest } from '../../src/publish/publish.js';
import { PublishedSnapshot } from '../../src/snapshot/published.js';
import { BitSet } from '../../src/util/bit-set.js';
import { registerSecret } from '../../src/util/secrets.js';
import { tempDir } from '../helpers/tmp.js';

const bytes = (text: string): Buffer => Buffer.from(`${text}\n`);

describe('staged files', () => {
  it('follow the last put of a path, whether it then matches the published file or not', async () => {
    const dir = tempDir();
    await publishFiles(dir, ['a', 'b', 'c', 'd'].map((name) => `${name}.json`), async (path) => bytes(path.replace('.json', '')));

    const writer = await NextSnapshot.open(dir, PublishedSnapshot.of(dir, (await readManifest(dir))!));
    // As published, then changed: staged.
    await writer.put('a.json', bytes('a'));
    await writer.put('a.json', bytes('a2'), { replace: true });
    // Changed, then back as published: not staged, and read from the folder.
    await writer.put('b.json', bytes('b2'));
    await writer.put('b.json', bytes('b'), { replace: true });
    // Changed, then kept as published.
    await writer.put('c.json', bytes('c2'));
    expect(writer.keep('c.json')).toBe(true);
    // New, changed again.
    await writer.put('e.json', bytes('e'));
    await writer.put('e.json', bytes('e2'), { replace: true });

    expect(pendingOf(writer)).toEqual({ written: ['a.json', 'e.json'], removed: ['d.json'] });
    expect((await writer.read('a.json'))?.toString()).toBe('a2\n');
    expect((await writer.read('b.json'))?.toString()).toBe('b\n');
    expect((await writer.read('c.json'))?.toString()).toBe('c\n');
    const manifest = await stageManifest(writer);
    expect(await publish(writer, { manifest, pending: pendingOf(writer, manifest.order), meta: new Map() })).toBe(true);
    for (const [name, text] of [['a', 'a2'], ['b', 'b'], ['c', 'c'], ['e', 'e2']]) expect(readFileSync(join(dir, `${name}.json`), 'utf8')).toBe(`${text}\n`);
  });

  it('may come in pieces: published as their bytes joined, not staged when the folder holds them already', async () => {
    const dir = tempDir();
    await publishFiles(dir, ['q.json'], async () => bytes('{"a": 1, "b": 2}'));
    const writer = await NextSnapshot.open(dir, PublishedSnapshot.of(dir, (await readManifest(dir))!));
    await writer.put('q.json', [Buffer.from('{"a": 1,'), Buffer.from(' "b": 2}\n')]);
    await writer.put('r.json', [Buffer.from('{"c":'), Buffer.from(' "é"}\n')]);
    expect(pendingOf(writer)).toEqual({ written: ['r.json'], removed: [] });
    const manifest = await stageManifest(writer);
    await publish(writer, { manifest, pending: pendingOf(writer, manifest.order), meta: new Map() });
    expect([readFileSync(join(dir, 'q.json'), 'utf8'), readFileSync(join(dir, 'r.json'), 'utf8')]).toEqual(['{"a": 1, "b": 2}\n', '{"c": "é"}\n']);
  });

  it('refuse the token in a file put in pieces, even split between two', async () => {
    registerSecret('t0ken-of-the-test');
    const writer = await NextSnapshot.open(tempDir(), undefined);
    await expect(writer.put('s.json', [Buffer.from('{"note": "t0ken-of'), Buffer.from('-the-test"}\n')])).rejects.toThrow(/s\.json: the service sent the API token inside its data/);
    expect(pendingOf(writer)).toEqual({ written: [], removed: [] });
  });

  it('are held as bits that grow with the index', () => {
    const set = new BitSet();
    const members = [0, 7, 8, 1023, 1024, 70_001, 999_999];
    for (const n of members) set.add(n);
    set.delete(8);
    set.delete(5_000_000);
    expect([0, 1, 7, 8, 1023, 1024, 70_000, 70_001, 999_999, 5_000_000].filter((n) => set.has(n))).toEqual([0, 7, 1023, 1024, 70_001, 999_999]);
  });
});
