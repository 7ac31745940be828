/** _meta/quality.json read a finding group at a time (readQuality), with or without the records' names. */
import { describe, expect, it } from 'vitest';
import { encodeQuality, readQuality, type Quality } from '../../src/validate/quality.js';

const QUALITY: Quality = {
  format: 1,
  records: { servers: 3, databases: 1 },
  shape: { servers: { listOnly: ['arch'], singleOnly: ['hardware'] } },
  findings: [
    { resource: 'servers', field: 'ip', code: 'null', count: 2, share: 0.6667, ids: ['1', '3'], names: ['Tōkyō-web-1', ''] },
    { resource: 'servers', field: 'memory_GB', code: 'wrong_type', count: 1, share: 0.3333, ids: ['2'], names: ['日本-db-2'], values: { '2': '"16"' } },
    { resource: 'databases', field: 'type', code: 'null', count: 1, share: 1, ids: ['7'] },
  ],
};

/** `bytes` in pieces of `size` bytes (a multibyte character split across two, for small sizes), counting those read. */
function piecesOf(bytes: Buffer, size: number): { pieces: AsyncIterable<Buffer>; read: () => number; total: number } {
  let read = 0;
  const total = Math.ceil(bytes.length / size);
  async function* pieces(): AsyncGenerator<Buffer> {
    for (let at = 0; at < bytes.length; at += size) {
      read++;
      yield bytes.subarray(at, at + size);
    }
  }
  return { pieces: pieces(), read: () => read, total };
}

const encoded = (quality: unknown): Buffer => Buffer.concat([...encodeQuality(quality as Quality)]);

describe('readQuality', () => {
  it('reads what encodeQuality wrote from pieces of any size, with names or without', async () => {
    for (const size of [1, 5, 64, 1 << 20]) {
      expect(await readQuality(piecesOf(encoded(QUALITY), size).pieces, { names: true })).toEqual(QUALITY);
      const without = await readQuality(piecesOf(encoded(QUALITY), size).pieces, { names: false });
      expect(without).toEqual({ ...QUALITY, findings: QUALITY.findings.map(({ names: _, ...group }) => group) });
    }
  });

  it('is undefined for what is not a report of ours, and reads every piece all the same', async () => {
    const bad: Buffer[] = [
      encoded(QUALITY).subarray(0, 200),
      Buffer.from('not json'),
      encoded({ ...QUALITY, format: 2 }),
      encoded({ ...QUALITY, extra: 1 }),
      encoded({ ...QUALITY, findings: [{ ...QUALITY.findings[0], count: 0 }] }),
      encoded({ ...QUALITY, findings: [{ ...QUALITY.findings[0], names: [1] }] }),
      encoded({ ...QUALITY, findings: [{ ...QUALITY.findings[0], unknown: true }] }),
      encoded({ format: 1, records: {}, shape: {} }),
      Buffer.from(`${encoded(QUALITY).toString('utf8')} []`),
    ];
    for (const bytes of bad) {
      const source = piecesOf(bytes, 7);
      expect(await readQuality(source.pieces, { names: false })).toBeUndefined();
      expect(source.read()).toBe(source.total);
    }
  });
});
