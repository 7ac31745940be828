/**
 * The run metadata's validator columns (`_meta/http-cache.json`): what a sync writes is what the
 * next one reads back, entry for entry, and a cache that does not hold together is not used at all.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bindHttpCache, httpCacheChunks, readHttpCache as readFile } from '../../src/snapshot/http-cache.js';
import { FileTable, type Validators } from '../../src/snapshot/table.js';
import { tempDir } from '../helpers/tmp.js';
import { OutputError } from '../../src/errors.js';

const MANIFEST = 'f'.repeat(64);
const HEAD = { run: 9, verified: 4, service: 'http://127.0.0.1:1' };

/** Files in manifest order, with every form of validators a table keeps. */
const FILES: [string, Validators | undefined][] = [
  ['_meta/quality.json', undefined],
  ['servers.json', { etag: 'W/"0123456789abcdef0123456789abcdef"' }],
  ['servers/1.json', { etag: '"fedcba9876543210fedcba9876543210"', item: 'AbCdEfGhIjKlMnOp', seen: 7, refs: '3/12 3/13' }],
  ['servers/2.json', { etag: 'W/"not-hex"', lastModified: 'Mon, 23 Nov 2026 10:00:00 GMT', seen: 9 }],
  ['servers/3.json', { lastModified: 'Tue, 24 Nov 2026 10:00:00 GMT', item: 'zzzzzzzzzzzzzzzz' }],
];

function tableOf(withValidators: boolean): FileTable {
  const table = new FileTable();
  FILES.forEach(([path, validators], n) => table.set(path, String(n).repeat(64), 10 + n, withValidators ? validators : undefined));
  return table;
}

function writeCache(dir: string, table: FileTable): string {
  mkdirSync(join(dir, '_meta'), { recursive: true });
  const file = join(dir, '_meta/http-cache.json');
  writeFileSync(file, [...httpCacheChunks(table, FILES.map((_, n) => n), MANIFEST, HEAD, new Map([['servers', ['{"stamped":true}']]]), new Map([['servers', '1:2:3:4'], ['', '1:5:6:7']]))].join(''));
  return file;
}

/** The cache in `dir` loaded into `table`, as a sync binds it to the manifest with `sha256`. */
async function readHttpCache(dir: string, table: FileTable, sha256: string): Promise<ReturnType<typeof bindHttpCache>> {
  const cache = await readFile(dir);
  return cache && bindHttpCache(cache, table, sha256);
}

describe('the run metadata', () => {
  it('reads back every validator it wrote, with its head and list summaries', async () => {
    const dir = tempDir();
    writeCache(dir, tableOf(true));
    const read = tableOf(false);
    const cache = await readHttpCache(dir, read, MANIFEST);
    expect(cache && { run: cache.run, verified: cache.verified, service: cache.service }).toEqual(HEAD);
    expect(cache && Buffer.concat(cache.lists.get('servers')!.pieces).toString()).toBe('{"stamped":true}');
    expect(cache && Buffer.concat([...cache.lists.get('servers')!.again()]).toString()).toBe('{"stamped":true}');
    expect(cache && cache.stamps).toEqual(new Map([['servers', '1:2:3:4'], ['', '1:5:6:7']]));
    FILES.forEach(([path, validators], n) => expect([path, read.validators(n)]).toEqual([path, validators && expect.objectContaining(validators)]));
  });

  it('reads back columns longer than the pieces the file is read in, row for row', async () => {
    // 120 001 rows: the ETag column alone is 2.6 MB of base64, read in pieces of 1 MB; each column ends padded. References on every third row, written in slices.
    const rows = 120_001;
    const validators = (n: number): Validators => ({ etag: `"${n.toString(16).padStart(32, '0')}"`, item: `${n.toString(36).padStart(15, '-')}A`, seen: n + 1, refs: n % 3 === 0 ? `1/${n}` : undefined });
    const table = new FileTable(rows);
    for (let n = 0; n < rows; n++) table.set(`servers/${String(n).padStart(6, '0')}.json`, 'a'.repeat(64), n, validators(n));
    const dir = tempDir();
    mkdirSync(join(dir, '_meta'), { recursive: true });
    const order = Array.from({ length: rows }, (_, n) => n);
    writeFileSync(join(dir, '_meta/http-cache.json'), [...httpCacheChunks(table, order, MANIFEST, HEAD)].join(''));
    const read = new FileTable(rows);
    for (let n = 0; n < rows; n++) read.set(table.path(n), 'a'.repeat(64), n);
    expect(await readHttpCache(dir, read, MANIFEST)).not.toBe(false);
    for (const n of [0, 1, 8191, 8192, 8193, 43_690, 43_691, 65_535, 65_536, rows - 2, rows - 1]) expect([n, read.validators(n)]).toEqual([n, expect.objectContaining(validators(n))]);
  });

  it('writes the rows of a derived table in the order asked for, runs confirmed since included', () => {
    const base = tableOf(true);
    const next = FileTable.over(base);
    for (let n = FILES.length - 1; n >= 0; n--) next.copyFrom(base, n);
    next.confirm(base.indexOf('servers/1.json')!, 12);
    const columns = next.validatorColumns(FILES.map(([path]) => next.indexOf(path)!));
    expect(columns.seen.readUInt32LE(2 * 4)).toBe(12);
    expect(columns.refs[2]).toBe('3/12 3/13');
    expect(columns.otherEtags.get(3)).toBe('W/"not-hex"');
    expect(columns.modified.get(4)).toBe('Tue, 24 Nov 2026 10:00:00 GMT');
  });

  const damage: [string, (cache: Record<string, unknown>) => Record<string, unknown>][] = [
    ['an older format', (c) => ({ ...c, format: 4 })],
    ['another manifest', (c) => ({ ...c, manifest: 'e'.repeat(64) })],
    ['another file count', (c) => ({ ...c, count: FILES.length + 1 })],
    ['a column cut short', (c) => ({ ...c, etags: (c.etags as string).slice(0, 8) })],
    ['a column that is not base64', (c) => ({ ...c, seen: '!'.repeat((c.seen as string).length) })],
    ['one character of a column that is not base64', (c) => ({ ...c, etags: `A!${(c.etags as string).slice(2)}` })],
    ['an unknown ETag kind', (c) => ({ ...c, kinds: Buffer.from([0, 1, 2, 3, 7]).toString('base64') })],
    ['an other ETag missing', (c) => ({ ...c, otherEtags: {} })],
    ['a row number out of range', (c) => ({ ...c, modified: { 99: 'x' } })],
    ['references that are not strings', (c) => ({ ...c, refs: [1, 2, 3, 4, 5] })],
    ['a run before the verified one', (c) => ({ ...c, run: 3 })],
  ];
  it.each(damage)('is not used at all when it has %s', async (_, change) => {
    const dir = tempDir();
    const file = writeCache(dir, tableOf(true));
    writeFileSync(file, JSON.stringify(change(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)));
    const read = tableOf(false);
    expect(await readHttpCache(dir, read, MANIFEST)).toBe(false);
    FILES.forEach((_, n) => expect(read.validators(n)).toBeUndefined());
  });

  it('is not used when it is not JSON', async () => {
    const dir = tempDir();
    writeFileSync(writeCache(dir, tableOf(true)), '{"format":5,"count":');
    expect(await readHttpCache(dir, tableOf(false), MANIFEST)).toBe(false);
  });

  it('hands a kept list summary over again from the file, and refuses it once the file changed', async () => {
    // 2.5 MB: read again in three pieces.
    const summary = `{"stamped":true,"chunks":["${'x'.repeat(2_500_000)}"]}`;
    const dir = tempDir();
    mkdirSync(join(dir, '_meta'), { recursive: true });
    const file = join(dir, '_meta/http-cache.json');
    writeFileSync(file, [...httpCacheChunks(tableOf(true), FILES.map((_, n) => n), MANIFEST, HEAD, new Map([['servers', [summary]]]))].join(''));
    const kept = (await readFile(dir) || undefined)!.lists.get('servers')!.again();
    const pieces = [...kept];
    expect(pieces.length).toBe(3);
    expect(Buffer.concat(pieces).toString()).toBe(summary);

    // One byte of the summary changed on disk: the last piece is never handed over.
    const bytes = readFileSync(file);
    const at = bytes.indexOf('xxxx') + 2_000_000;
    bytes[at] = 0x79;
    writeFileSync(file, bytes);
    const handed: Buffer[] = [];
    expect(() => {
      for (const piece of kept) handed.push(piece);
    }).toThrow(OutputError);
    expect(handed.length).toBe(2);
  });
});
