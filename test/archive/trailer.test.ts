/**
 * What may follow an archive's end: tar's end-of-archive marker may be followed by the zero padding
 * tar writers add (up to one 10240-byte record), and nothing else; the gzip stream must be the
 * file's one and only member. Trailer bombs are refused after a bounded amount of work: their
 * inputs are large enough that reading the whole trailer (which once took minutes) would run
 * past the CLI call's own timeout (64 MB of zeros, 64 KB gzipped, took the old reader minutes, as
 * it copied its whole unread buffer again for every chunk), and a killed run prints no refusal.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/snapshot/manifest.js';
import { MANIFEST_FILE } from '../../src/snapshot/paths.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { craftArchive, type CraftOptions } from './helpers.js';

const BODY = '{"a":1}\n';
const ENTRIES = [
  { path: MANIFEST_FILE, body: JSON.stringify({ format: 1, generator: 'inventory-mirror', files: { 'a.json': { sha256: sha256(Buffer.from(BODY)), size: BODY.length } } }) },
  { path: 'a.json', body: BODY },
];
const CALL = { timeoutMs: 20_000 };

/** Crafts the archive, then runs verify --archive and unpack on it through the CLI. */
async function both(options: CraftOptions): Promise<{ root: string; target: string; verify: Awaited<ReturnType<typeof runCli>>; unpack: Awaited<ReturnType<typeof runCli>> }> {
  const root = tempDir();
  const file = join(root, 'a.tar.gz');
  craftArchive(file, ENTRIES, options);
  const target = join(root, 'out');
  const verify = await runCli(['verify', '--archive', file], CALL);
  const unpack = await runCli(['unpack', file, '--dir', target], CALL);
  return { root, target, verify, unpack };
}

describe('what follows the end of an archive', () => {
  it('accepts the zero padding tar writers add after the end marker (to a 10240-byte record)', async () => {
    const { target, verify, unpack } = await both({ trailer: Buffer.alloc(10240 - 2048) });
    expect(verify).toMatchObject({ code: 0, stderr: '' });
    expect(verify.stdout).toMatch(/^ok: .*a\.tar\.gz matches its manifest \(1 files\)/);
    expect(unpack).toMatchObject({ code: 0, stderr: '' });
    expect(readdirSync(target).sort()).toEqual(['_meta', 'a.json']);
  });

  const refused: [string, CraftOptions, RegExp][] = [
    ['64 MB of zeros after the end marker (64 KB gzipped)', { trailer: Buffer.alloc(64 * 1024 * 1024) }, /a\.tar\.gz: more than 10240 bytes follow tar's end-of-archive marker/],
    ['non-zero bytes after the end marker', { trailer: Buffer.concat([Buffer.alloc(512), Buffer.from('x'.repeat(512))]) }, /a\.tar\.gz: holds data after tar's end-of-archive marker/],
    ['garbage after the gzip stream', { after: Buffer.from('garbage that is not gzip') }, /a\.tar\.gz: .*after its gzip stream/],
    ['zeros after the gzip stream', { after: Buffer.alloc(4 * 1024 * 1024) }, /a\.tar\.gz: .*after its gzip stream/],
    ['a second gzip member of zeros', { after: gzipSync(Buffer.alloc(64 * 1024 * 1024)) }, /a\.tar\.gz: (more than 10240 bytes follow tar's end-of-archive marker|.*second gzip member)/],
    ['an empty second gzip member', { after: gzipSync(Buffer.alloc(0)) }, /a\.tar\.gz: .*second gzip member/],
  ];
  for (const [name, options, message] of refused) {
    it(`refuses ${name} with one line, exit 1, writing nothing`, async () => {
      const { root, verify, unpack } = await both(options);
      for (const result of [verify, unpack]) {
        expect(result.stderr).toMatch(message);
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
        expect(result.code).toBe(1);
      }
      expect(readdirSync(root)).toEqual(['a.tar.gz']);
    }, 90_000);
  }

  it('refuses an archive cut before its end marker', async () => {
    const root = tempDir();
    const file = join(root, 'a.tar.gz');
    craftArchive(file, ENTRIES);
    // Re-gzip the same tar stream without its two zero blocks.
    const { gunzipSync } = await import('node:zlib');
    const { readFileSync, writeFileSync } = await import('node:fs');
    const tar = gunzipSync(readFileSync(file));
    writeFileSync(file, gzipSync(tar.subarray(0, tar.length - 1024)));
    const result = await runCli(['verify', '--archive', file], CALL);
    expect(result).toMatchObject({ code: 1 });
    expect(result.stderr).toMatch(/a\.tar\.gz: ends before tar's end-of-archive marker/);
    expect(existsSync(join(root, 'out'))).toBe(false);
  });
});
