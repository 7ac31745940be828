import { describe, expect, it } from 'vitest';
import { encodeJson } from '../../src/json/encode.js';
import { withoutItems } from '../../src/json/without.js';
import { NextSnapshot } from '../../src/publish/next.js';
import { stageEnvelope } from '../../src/sync/envelope.js';
import { createRng } from '../../src/upstream/random.js';
import { tempDir } from '../helpers/tmp.js';

/** The body in chunks of random sizes, cut anywhere (inside characters too). */
async function* chunked(bytes: Buffer, next: () => number): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; ) {
    const size = 1 + Math.floor(next() * 70_000);
    yield bytes.subarray(at, at + size);
    at += size;
  }
}

describe('a list streamed into its staged file', () => {
  it('is byte for byte what encodeJson writes for the whole body, items far larger than a write batch included', async () => {
    const writer = await NextSnapshot.open(tempDir(), undefined);
    const next = createRng(3).next;
    const servers = Array.from({ length: 3000 }, (_, n) => ({ id: String(n), name: `höst-${n}`, notes: n % 1000 === 7 ? 'ü€'.repeat(120_000) : 'x'.repeat(Math.floor(next() * 400)) }));
    const body = { total: servers.length, servers, next: null };
    const staged = await stageEnvelope({
      next: writer,
      file: 'servers.json',
      key: 'servers',
      where: 'GET /servers.json',
      body: chunked(Buffer.from(JSON.stringify(body)), next),
      onItem: (element) => ({ value: JSON.parse(element.bytes.toString('utf8')) as unknown }),
    });
    await staged.finish();
    expect((await writer.read('servers.json'))!.equals(encodeJson(body))).toBe(true);
    await writer.staging.discard();
  });
});

/** Everything `pieces` yields, joined. */
async function joined(pieces: AsyncIterable<Buffer>): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const piece of pieces) out.push(piece);
  return Buffer.concat(out);
}

describe('a list file without some of its items', () => {
  const next = createRng(5).next;
  const servers = Array.from({ length: 2000 }, (_, n) => ({ id: `s${n}`, name: `höst-${n}`, notes: n % 500 === 3 ? 'ü€'.repeat(100_000) : 'x'.repeat(Math.floor(next() * 300)) }));
  const file = encodeJson({ '10': 'index-like key', total: servers.length, servers, next: null });

  it('is what encodeJson writes for the body without them, the other members in place', async () => {
    const drop = new Set(['s0', 's3', 's1003', 's1999', 'not-there']);
    const out = await joined(withoutItems(chunked(file, next), 'servers', drop, 'servers.json'));
    const expected = { '10': 'index-like key', total: servers.length, servers: servers.filter((s) => !drop.has(s.id)), next: null };
    expect(out.equals(encodeJson(expected))).toBe(true);
  });

  it('without every item, is an empty list; without none, the same bytes', async () => {
    const none = await joined(withoutItems(chunked(file, next), 'servers', new Set(servers.map((s) => s.id)), 'servers.json'));
    expect(none.equals(encodeJson({ '10': 'index-like key', total: servers.length, servers: [], next: null }))).toBe(true);
    expect((await joined(withoutItems(chunked(file, next), 'servers', new Set(), 'servers.json'))).equals(file)).toBe(true);
  });

  it('a file that is not a list of the resource is refused, naming the file', async () => {
    await expect(joined(withoutItems(chunked(encodeJson({ servers: {} }), next), 'servers', new Set(), 'servers/_filter/by_virtual/1.json'))).rejects.toThrow('servers/_filter/by_virtual/1.json: not a list of servers any more');
  });
});
