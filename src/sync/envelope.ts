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
const BATCH_CHARS = 256 * 1024;

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
 * What to do with each item: return the text to publish for it (already encoded at depth 2, see
 * EnvelopeEncoder.encoded) or the value to encode, or `skip` to leave it out.
 */
type ItemHandler = (element: ScannedElement, encoder: EnvelopeEncoder) => string | { value: unknown } | 'skip';

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
}

/** Streams the body into `file`'s staged copy; the caller finishes (or aborts) the returned stream. */
export async function stageEnvelope(options: StageEnvelope): Promise<StagedStream> {
  const { writer, file, key, where, body, onItem } = options;
  const scanner = new EnvelopeScanner(key);
  const staged = await writer.stream(file, { replace: true });
  try {
    let encoder: EnvelopeEncoder | undefined;
    let text = '';
    for await (const chunk of body) {
      for (const element of scanner.push(chunk)) {
        if (!encoder) {
          encoder = new EnvelopeEncoder(key, envelopeParts(scanner, where).before);
          text = encoder.head();
        }
        const out = onItem(element, encoder);
        if (out === 'skip') continue;
        text += typeof out === 'string' ? encoder.encoded(out) : encoder.item(out.value);
        if (text.length >= BATCH_CHARS) {
          await staged.write(text);
          text = '';
        }
      }
    }
    scanner.end();
    const parts = envelopeParts(scanner, where);
    if (!encoder) {
      encoder = new EnvelopeEncoder(key, parts.before);
      text = encoder.head();
    }
    await staged.write(text + encoder.tail(parts.after));
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
