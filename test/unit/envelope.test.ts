import { describe, expect, it } from 'vitest';
import { encodeJson } from '../../src/json/encode.js';
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
