/**
 * The bytes under an archive's entries: the file must be one gzip stream and nothing after it, and
 * the tar stream inside it must end with tar's end-of-archive marker (two zero blocks) followed by
 * no more than one record of zero padding. Reading stops as soon as either rule is broken, so what
 * follows the marker costs at most a record of work, however large it is (tar's own parser keeps
 * every byte after the marker and copies that buffer again for each chunk: quadratic time).
 */
import { createReadStream } from 'node:fs';
import { once } from 'node:events';
import { open } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Parser } from 'tar';
import { ArchiveError } from '../errors.js';

const BLOCK = 512;

/**
 * tar writers pad the archive to a whole record (10240 bytes by default) after the end marker;
 * one whole record of zeros past the marker covers that with room to spare.
 */
const MAX_PADDING = 10240;

const ZERO_BLOCK = Buffer.alloc(BLOCK);
const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);

function isZeroBlock(data: Buffer, at: number): boolean {
  // Headers and JSON bodies start with a non-zero byte, so this is one comparison per block.
  return data[at] === 0 && data.subarray(at, at + BLOCK).equals(ZERO_BLOCK);
}

/**
 * Feeds the tar stream of `file` into `parser` up to its end marker and ends the parser; throws an
 * ArchiveError when the layout breaks a rule above, or the raw error when gzip cannot read it.
 * `signal` stops the reading early (a refused entry).
 */
export async function feedTarStream(file: string, parser: Parser, signal: AbortSignal): Promise<void> {
  const handle = await open(file, 'r');
  const size = await handle.stat().then(
    (stat) => stat.size,
    async (error: unknown) => {
      await handle.close();
      throw error;
    },
  );
  const gunzip = createGunzip({ chunkSize: 64 * 1024 });
  let eof = false;
  parser.on('eof', () => {
    eof = true;
  });
  let tarBytes = 0;
  let padding = 0;
  let consumed = false;
  // The pipeline may reject with the abort its own teardown causes rather than with our refusal.
  let refusal: ArchiveError | undefined;

  const write = async (piece: Buffer): Promise<void> => {
    // The parser's 'eof' may wait for the last entry to be read; it comes before 'drain'.
    if (!parser.write(piece)) await once(parser, 'drain', { signal });
  };
  const trailer = (bytes: Buffer): void => {
    if (bytes.length === 0) return;
    if (bytes.some((b) => b !== 0)) refusal = new ArchiveError(file, `holds data after tar's end-of-archive marker; an archive made by \`inventory-mirror pack\` ends there; refusing the archive`);
    padding += bytes.length;
    if (!refusal && padding > MAX_PADDING) refusal = new ArchiveError(file, `more than ${MAX_PADDING} bytes follow tar's end-of-archive marker, more than any tar writer pads; refusing the archive`);
    if (refusal) throw refusal;
  };

  const consume = async (source: AsyncIterable<Buffer>): Promise<void> => {
    // Blocks may straddle chunks: `carry` holds the part of a block not yet handed on.
    let carry = Buffer.alloc(0);
    for await (const chunk of source) {
      tarBytes += chunk.length;
      if (eof) {
        trailer(chunk);
        continue;
      }
      const data = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
      const whole = data.length - (data.length % BLOCK);
      carry = Buffer.from(data.subarray(whole));
      // Each zero block ends a piece, so the parser meets the end marker at the end of a
      // piece and nothing after it is ever written to it.
      let start = 0;
      for (let at = 0; at < whole && !eof; at += BLOCK) {
        if (!isZeroBlock(data, at)) continue;
        await write(data.subarray(start, at + BLOCK));
        start = at + BLOCK;
      }
      if (eof) {
        trailer(data.subarray(start, whole));
        trailer(carry);
        carry = Buffer.alloc(0);
      } else if (start < whole) {
        await write(data.subarray(start, whole));
      }
    }
    consumed = true;
  };

  try {
    const magic = Buffer.alloc(2);
    await handle.read(magic, 0, 2, 0);
    if (!magic.equals(GZIP_MAGIC)) throw new ArchiveError(file, 'not a readable .tar.gz archive: it is not gzip-compressed, as `inventory-mirror pack` writes it');
    try {
      await pipeline(createReadStream('', { fd: handle, autoClose: false, start: 0 }), gunzip, consume, { signal });
    } catch (error) {
      if (refusal) throw refusal;
      if (signal.aborted) throw error;
      // gunzip stops at zero bytes after its stream (and the pipeline then stops reading the
      // file); other bytes there it takes for a second member, whose header check fails.
      if (!consumed || gunzip.bytesWritten >= size) {
        if (/incorrect header check/.test((error as Error).message)) throw new ArchiveError(file, `holds bytes after its gzip stream that are not gzip (${(error as Error).message}); \`inventory-mirror pack\` writes nothing after it; refusing the archive`, { cause: error });
        throw error;
      }
    }
    if (gunzip.bytesWritten < size) throw new ArchiveError(file, `holds ${size - gunzip.bytesWritten} bytes after its gzip stream; \`inventory-mirror pack\` writes nothing after it; refusing the archive`);
    // A gzip stream ends with the size of what it holds (mod 2^32); after several members, the
    // last one's size only. One gzip stream is what `pack` writes and all a reader should trust.
    const isize = Buffer.alloc(4);
    if (size >= 4) await handle.read(isize, 0, 4, size - 4);
    if (size < 4 || isize.readUInt32LE(0) !== tarBytes % 2 ** 32) throw new ArchiveError(file, 'holds a second gzip member after its first; `inventory-mirror pack` writes one gzip stream; refusing the archive');
  } finally {
    await handle.close();
  }
  if (!eof) throw new ArchiveError(file, `ends before tar's end-of-archive marker (after ${tarBytes} bytes of tar); it is truncated: copy it again`);
  parser.end();
}
