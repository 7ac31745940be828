/**
 * List-shaped bodies (`{"<resource>": [ ... ]}`: lists and filtered views) streamed item by item
 * into a staged file in their published form: each item checked and redacted as it comes, the
 * envelope's other members kept in place. Used for bodies from the service and for rewriting a
 * published list without the records that answered 404.
 */
import { BodyFault, ValidationError } from '../errors.js';
import { EnvelopeEncoder } from '../json/encode.js';
import { jsKeyOrder } from '../json/order.js';
import { EnvelopeScanner, type ScannedElement } from '../json/scan.js';
import type { SnapshotWriter, StagedStream } from '../publish/writer.js';

/** Encoded items written in one go, so a long list costs a write per batch, not per item. */
const BATCH_BYTES = 256 * 1024;

/** Bytes at most that a piece takes as UTF-8 (a UTF-16 unit takes 3 at most). */
const most = (piece: string | Buffer): number => (typeof piece === 'string' ? 3 * piece.length : piece.length);

/**
 * Text gathered into one reused buffer and written when full: no long string is built, copied
 * flat and then copied again into bytes, as joining the items' strings did.
 */
class ByteBatch {
  readonly #buffer = Buffer.allocUnsafe(BATCH_BYTES);
  #used = 0;
  #written = 0;

  constructor(readonly staged: StagedStream) {}

  /** Where the next piece goes in the file. */
  get position(): number {
    return this.#written + this.#used;
  }

  /** Whether this many bytes fit without a write first. */
  fits(bytes: number): boolean {
    return this.#used + bytes <= BATCH_BYTES;
  }

  /** Adds a piece that fits; `makeRoom` adds one that does not. */
  add(piece: string | Buffer): void {
    this.#used += typeof piece === 'string' ? this.#buffer.write(piece, this.#used, 'utf8') : piece.copy(this.#buffer, this.#used);
  }

  /** Writes what is gathered, then the piece directly when it would not fit an empty batch, else keeps it. */
  async makeRoom(piece: string | Buffer): Promise<void> {
    await this.flush();
    if (most(piece) <= BATCH_BYTES) return this.add(piece);
    const bytes = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
    await this.staged.write(bytes);
    this.#written += bytes.length;
  }

  async flush(): Promise<void> {
    if (this.#used === 0) return;
    // The stream hashes and writes the bytes before the promise settles: the buffer is free again after.
    await this.staged.write(this.#buffer.subarray(0, this.#used));
    this.#written += this.#used;
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
  const parse = (members: typeof scanner.members): [string, unknown][] => {
    const values = new Map(members.map((m) => [m.key, JSON.parse(m.bytes.toString('utf8')) as unknown]));
    return jsKeyOrder([...values.keys()]).map((key) => [key, values.get(key)]);
  };
  return { before: parse(scanner.members.slice(0, scanner.membersBefore)), after: parse(scanner.members.slice(scanner.membersBefore)) };
}

/**
 * What to do with each item: return what to publish for it, already encoded at depth 2 (see
 * EnvelopeEncoder.element) as text or bytes, or the value to encode, or `skip` to leave it out.
 */
type ItemHandler = (element: ScannedElement, encoder: EnvelopeEncoder) => string | Buffer | { value: unknown } | 'skip';

interface StageEnvelope {
  writer: SnapshotWriter;
  /** The snapshot file written. */
  file: string;
  /** The envelope key (the resource). */
  key: string;
  /** Names the body in messages (`GET /servers.json`). */
  where: string;
  body: AsyncIterable<Buffer>;
  onItem: ItemHandler;
  /** Told where each item landed in the file: its first byte and its length. */
  placed?: (at: number, length: number) => void;
}

/** Streams the body into `file`'s staged copy; the caller finishes (or aborts) the returned stream. */
export async function stageEnvelope(options: StageEnvelope): Promise<StagedStream> {
  const { writer, file, key, where, body, onItem, placed } = options;
  const scanner = new EnvelopeScanner(key);
  const staged = await writer.stream(file, { replace: true });
  const batch = new ByteBatch(staged);
  const add = async (piece: string | Buffer): Promise<void> => {
    if (batch.fits(most(piece))) batch.add(piece);
    else await batch.makeRoom(piece);
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
        if (out === 'skip') continue;
        const separator = encoder.separator();
        const text = typeof out === 'string' || Buffer.isBuffer(out) ? out : encoder.element(out.value);
        // Most items fit: no promise per item.
        if (batch.fits(most(separator) + most(text))) {
          batch.add(separator);
          const at = batch.position;
          batch.add(text);
          placed?.(at, batch.position - at);
        } else {
          await add(separator);
          const at = batch.position;
          await add(text);
          placed?.(at, batch.position - at);
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

/** The id of an item as published (an object with a string id: the list checked it). */
function itemId(element: ScannedElement): string {
  return (JSON.parse(element.bytes.toString('utf8')) as { id: string }).id;
}

/** Rewrites a file of the new snapshot without the items whose id `drop` holds; no validators (not the service's body any more). */
export async function dropItems(writer: SnapshotWriter, file: string, key: string, drop: ReadonlySet<string>): Promise<void> {
  const source = writer.readStream(file);
  if (!source) return;
  const staged = await stageEnvelope({
    writer,
    file,
    key,
    where: file,
    body: source,
    onItem: (element) => (drop.has(itemId(element)) ? 'skip' : element.bytes.toString('utf8')),
  });
  await staged.finish();
}
