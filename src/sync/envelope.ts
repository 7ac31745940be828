/**
 * List-shaped bodies (`{"<resource>": [ ... ]}`: lists and filtered views) streamed item by item
 * into a staged file in their published form: each item checked and redacted as it comes, the
 * envelope's other members kept in place.
 */
import { BodyFault, ValidationError } from '../errors.js';
import { EnvelopeEncoder } from '../json/encode.js';
import { parsedInOrder } from '../json/order.js';
import { EnvelopeScanner, type ScannedElement } from '../json/scan.js';
import type { NextSnapshot, NextStream } from '../publish/next.js';

/** Encoded items written in one go, so a long list costs a write per batch, not per item. */
const BATCH_BYTES = 256 * 1024;

/** Text as a string, or as its UTF-8 bytes. */
type Text = string | Buffer;

/** At most how many bytes `text` takes in UTF-8 (3 per UTF-16 unit of a string). */
const mostBytes = (text: Text): number => (typeof text === 'string' ? 3 * text.length : text.length);

/**
 * Text gathered into one reused buffer and written when full: no long string is built, copied
 * flat and then copied again into bytes, as joining the items' strings did.
 */
class ByteBatch {
  readonly #buffer = Buffer.allocUnsafe(BATCH_BYTES);
  #used = 0;
  /** Bytes written before the gathered ones. */
  #flushed = 0;

  constructor(readonly staged: NextStream) {}

  /** Bytes taken so far: where the next text starts in the file. */
  get offset(): number {
    return this.#flushed + this.#used;
  }

  /** Whether this many bytes fit without a write first. */
  fits(bytes: number): boolean {
    return this.#used + bytes <= BATCH_BYTES;
  }

  /** Adds `text`, which fits; `makeRoom` adds one that does not. */
  add(text: Text): void {
    this.#used += typeof text === 'string' ? this.#buffer.write(text, this.#used, 'utf8') : text.copy(this.#buffer, this.#used);
  }

  /** Writes what is gathered, then `text` directly when it would not fit an empty batch, else keeps it. */
  async makeRoom(text: Text): Promise<void> {
    await this.flush();
    if (mostBytes(text) > BATCH_BYTES) {
      await this.staged.write(text);
      this.#flushed += typeof text === 'string' ? Buffer.byteLength(text) : text.length;
    } else this.add(text);
  }

  async flush(): Promise<void> {
    if (this.#used === 0) return;
    // The stream hashes and writes the bytes before the promise settles: the buffer is free again after.
    await this.staged.write(this.#buffer.subarray(0, this.#used));
    this.#flushed += this.#used;
    this.#used = 0;
  }
}

/** The envelope's other members in the order a whole parse would hold them, split around the list. */
function envelopeParts(scanner: EnvelopeScanner, where: string): { before: [string, unknown][]; after: [string, unknown][] } {
  if (!scanner.found) {
    const keys = scanner.members.slice(0, 5).map((m) => JSON.stringify(m.key)).join(', ');
    throw new BodyFault(`${where}: envelope key "${scanner.key}" is missing or not an array (keys: ${keys || 'none'})`);
  }
  if (scanner.members.some((m) => m.key === scanner.key)) throw new ValidationError(`${where}: the envelope holds "${scanner.key}" twice`);
  return { before: parsedInOrder(scanner.members.slice(0, scanner.membersBefore)), after: parsedInOrder(scanner.members.slice(scanner.membersBefore)) };
}

/**
 * What to do with each item: return the text to publish for it (already encoded at depth 2, see
 * EnvelopeEncoder.element; bytes are copied before the next item is read) or the value to encode.
 */
type ItemHandler = (element: ScannedElement, encoder: EnvelopeEncoder) => Text | { value: unknown };

interface StageEnvelope {
  next: NextSnapshot;
  /** The snapshot file written. */
  file: string;
  /** The envelope key (the resource). */
  key: string;
  /** Names the body in messages (`GET /servers.json`). */
  where: string;
  body: AsyncIterable<Buffer>;
  onItem: ItemHandler;
  /** Told each item's published text and where its bytes sit in the file, in order. */
  onPublished?: (text: Text, at: number, length: number) => void;
}

/** Streams the body into `file`'s staged copy; the caller finishes (or aborts) the returned stream. */
export async function stageEnvelope(options: StageEnvelope): Promise<NextStream> {
  const { next, file, key, where, body, onItem, onPublished } = options;
  const scanner = new EnvelopeScanner(key);
  const staged = await next.stream(file, { replace: true });
  const batch = new ByteBatch(staged);
  const add = async (text: Text): Promise<void> => {
    if (batch.fits(mostBytes(text))) batch.add(text);
    else await batch.makeRoom(text);
  };
  try {
    let encoder: EnvelopeEncoder | undefined;
    for await (const chunk of body) {
      for (const element of scanner.push(chunk)) {
        if (!encoder) {
          encoder = new EnvelopeEncoder(key, envelopeParts(scanner, where).before);
          await add(encoder.head());
        }
        const out = onItem(element, encoder);
        const separator = encoder.separator();
        const text = typeof out === 'string' || Buffer.isBuffer(out) ? out : encoder.element(out.value);
        // Most items fit: no promise per item.
        if (batch.fits(separator.length + mostBytes(text))) {
          batch.add(separator);
          const at = batch.offset;
          batch.add(text);
          onPublished?.(text, at, batch.offset - at);
        } else {
          await add(separator);
          const at = batch.offset;
          await add(text);
          onPublished?.(text, at, batch.offset - at);
        }
      }
    }
    scanner.end();
    const parts = envelopeParts(scanner, where);
    if (!encoder) {
      encoder = new EnvelopeEncoder(key, parts.before);
      await add(encoder.head());
    }
    await add(encoder.tail(parts.after));
    await batch.flush();
    return staged;
  } catch (error) {
    await staged.abort();
    throw error;
  }
}
