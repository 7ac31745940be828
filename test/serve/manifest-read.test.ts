/** The fast manifest reader serve loads with: the same table and digest as the general reader, for any manifest. */
import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fileTableSink, readManifestChunks, readManifestInto } from '../../src/snapshot/manifest-read.js';
import { encodeManifest, parseManifest, type ManifestRead } from '../../src/snapshot/manifest.js';
import { FileTable } from '../../src/snapshot/table.js';

const PATHS = ['servers/_filter/by_system/1.json', '_browser/records/servers/0.js', 'servers.json', 'servers/1.json', 'servers/%2E%2E.json', 'servers/it%27s.json', 'a%22b/%5Cc.json', '%E6%97%A5%E6%9C%AC/x.json', 'x'.repeat(250), 'sp%20ace.json', '.gitignore'];
/** Paths no snapshot has: both readers refuse a manifest that lists one (issue 29). */
const HOSTILE = ['../victim.txt', 'servers/../../x.json', '/etc/passwd', 'a"b/\\c.json', '日本/x.json', 'x'.repeat(300), 'sp ace.json', 'tab\there.json', 'servers//1.json', './x.json', 'x.json"; root /etc; #', ''];

function table(paths: readonly string[]): FileTable {
  const out = new FileTable();
  paths.forEach((path, i) => out.set(path, hash('sha256', path, 'hex'), i * 997));
  return out;
}

async function* pieces(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

function summary(read: ManifestRead | undefined): unknown {
  if (!read) return undefined;
  return { sha256: read.sha256, files: [...read.table.paths()].map((path, i) => [path, read.table.sha256(i), read.table.fileSize(i)]) };
}

describe('readManifestChunks', () => {
  it('reads the canonical form in pieces cut anywhere, as parseManifest reads it whole', async () => {
    for (const paths of [PATHS, [], ['one.json']]) {
      const bytes = encodeManifest(table(paths));
      const expected = summary(parseManifest(bytes));
      expect(expected).toBeDefined();
      for (const size of [1, 2, 7, 64, 1000, bytes.length]) {
        let again = 0;
        const read = await readManifestChunks(pieces(bytes, size), async () => {
          again += 1;
          return bytes;
        });
        expect(summary(read), `pieces of ${size}`).toEqual(expected);
        // The canonical form never needs the general reader.
        expect(again).toBe(0);
      }
    }
  });

  it('hands any other form to the general reader, and refuses what is not a manifest', async () => {
    const canonical = encodeManifest(table(PATHS));
    const compact = Buffer.from(JSON.stringify(JSON.parse(canonical.toString())));
    const cases: Buffer[] = [
      compact,
      Buffer.from(canonical.toString().replace('"size": 0', '"size": 00')),
      Buffer.from(canonical.toString().replace('"format": 1', '"format": 2')),
      Buffer.from(canonical.toString().replace(/"sha256": "[0-9a-f]{64}"/, '"sha256": "xyz"')),
      Buffer.from(`${canonical.toString()} `),
      Buffer.from(canonical.toString().replace('"servers/1.json"', '"servers.json"')),
      canonical.subarray(0, canonical.length - 3),
      Buffer.from('{}'),
    ];
    for (const bytes of cases) {
      const read = await readManifestChunks(pieces(bytes, 50), async () => bytes);
      expect(summary(read), bytes.toString().slice(0, 60)).toEqual(summary(parseManifest(bytes)));
    }
    expect(summary(await readManifestChunks(pieces(compact, 50), async () => compact))).toEqual({ ...(summary(parseManifest(canonical)) as object), sha256: hash('sha256', compact, 'hex') });
  });

  it('says whether the bytes are exactly the ones a sync writes for the entries read: a sync keeps such a manifest as it is', async () => {
    const canonical = encodeManifest(table(PATHS));
    const escaped = Buffer.from(canonical.toString().replace('"servers.json"', '"\\u0073ervers.json"'));
    const compact = Buffer.from(JSON.stringify(JSON.parse(canonical.toString())));
    for (const size of [1, 7, 64, canonical.length]) {
      expect((await readManifestChunks(pieces(canonical, size), async () => canonical))?.exact, `pieces of ${size}`).toBe(true);
      const read = await readManifestChunks(pieces(escaped, size), async () => escaped);
      expect(summary(read)).toEqual({ ...(summary(parseManifest(canonical)) as object), sha256: hash('sha256', escaped, 'hex') });
      expect(read?.exact, `escaped, pieces of ${size}`).toBe(false);
    }
    expect((await readManifestChunks(pieces(compact, 64), async () => compact))?.exact).toBe(false);
  });

  it('takes the digest of the bytes when the caller knows it, but for a manifest in another form, which it hashes', async () => {
    const canonical = encodeManifest(table(PATHS));
    const compact = Buffer.from(JSON.stringify(JSON.parse(canonical.toString())));
    const known = 'f'.repeat(64);
    expect(summary(await readManifestChunks(pieces(canonical, 100), async () => canonical, undefined, known))).toEqual({ ...(summary(parseManifest(canonical)) as object), sha256: known });
    expect((await readManifestChunks(pieces(compact, 100), async () => compact, undefined, known))?.sha256).toBe(hash('sha256', compact, 'hex'));
  });

  it('refuses a manifest that lists a path no snapshot has, by both readers', async () => {
    for (const path of HOSTILE) {
      const bytes = encodeManifest(table(['servers.json', path]));
      expect(parseManifest(bytes), JSON.stringify(path)).toBeUndefined();
      expect(await readManifestChunks(pieces(bytes, 64), async () => bytes), JSON.stringify(path)).toBeUndefined();
    }
  });

  it('fills a file table in pieces cut anywhere: every path found with its digest and size, others not', async () => {
    const paths = [...PATHS, ...Array.from({ length: 5000 }, (_, i) => `servers/${i}.json`), 'applications/a.json', 'z/y/x/w.json'];
    const bytes = encodeManifest(table(paths));
    const expected = parseManifest(bytes)!;
    for (const size of [3, 4096, bytes.length]) {
      const read = await readManifestInto(pieces(bytes, size), async () => bytes, fileTableSink);
      const index = read!.entries;
      expect(read!.sha256).toBe(expected.sha256);
      expect(index.size).toBe(expected.table.size);
      for (let i = 0; i < expected.table.size; i++) {
        const path = expected.table.path(i);
        const at = index.indexOf(path);
        expect(at, path).toBeDefined();
        expect(index.path(at!)).toBe(path);
        expect(index.sha256(at!)).toBe(expected.table.sha256(i));
        expect(index.fileSize(at!)).toBe(expected.table.fileSize(i));
      }
      for (const other of ['', 'servers', 'servers/', 'servers/5000.json', 'SERVERS.json', 'servers.json ', 'z/y/x', '日本']) expect(index.has(other), other).toBe(false);
    }
    // Listed twice: not a manifest (the general reader agrees).
    const twice = Buffer.from(bytes.toString().replace('"servers/1.json"', '"servers/0.json"'));
    expect(await readManifestInto(pieces(twice, 100), async () => twice, fileTableSink)).toBeUndefined();
    // Out of order, each path once: read all the same, every path found.
    const swapped = Buffer.from(bytes.toString().replace('"servers/1.json"', '"servers/1.tmp"').replace('"servers/0.json"', '"servers/1.json"').replace('"servers/1.tmp"', '"servers/0.json"'));
    const read = await readManifestInto(pieces(swapped, 100), async () => swapped, fileTableSink);
    expect(read!.entries.size).toBe(expected.table.size);
    for (const path of ['servers/0.json', 'servers/1.json', 'servers/4999.json', 'z/y/x/w.json']) expect(read!.entries.has(path), path).toBe(true);
    // Listed twice, the second time out of order: refused.
    const late = Buffer.from(bytes.toString().replace('"z/y/x/w.json"', '"servers/1.json"'));
    expect(await readManifestInto(pieces(late, 100), async () => late, fileTableSink)).toBeUndefined();
  });
});
