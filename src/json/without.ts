/**
 * A list-shaped file of ours (`{"<key>": [ ... ]}`, as EnvelopeEncoder writes it) without some of
 * its items, as a stream: read in chunks and given back in pieces, never held whole (the server
 * list is 87 MB at 200 000 servers). The envelope's other members keep their places, and the
 * items kept keep their bytes: what comes out is what encoding the shorter body would write.
 */
import { ValidationError } from '../errors.js';
import { EnvelopeEncoder } from './encode.js';
import { parsedInOrder } from './order.js';
import { EnvelopeScanner, type ScannedElement } from './scan.js';

/** About how many bytes a piece holds: a long list costs a write per piece, not per item. */
const PIECE_BYTES = 256 * 1024;

/** The id of an item (the items of our lists and views are objects with a string id). */
function idOf(element: ScannedElement): unknown {
  return (JSON.parse(element.bytes.toString('utf8')) as { id?: unknown }).id;
}

/** `chunks` (a file named `where` in messages) without the items whose id `drop` holds. */
export async function* withoutItems(chunks: AsyncIterable<Buffer>, key: string, drop: ReadonlySet<string>, where: string): AsyncGenerator<Buffer> {
  const scanner = new EnvelopeScanner(key);
  let encoder: EnvelopeEncoder | undefined;
  let pieces: Buffer[] = [];
  let size = 0;
  const take = (text: string | Buffer): void => {
    const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    pieces.push(bytes);
    size += bytes.length;
  };
  const open = (): EnvelopeEncoder => {
    if (!scanner.found) throw new ValidationError(`${where}: not a list of ${key} any more (no "${key}" array in it); was it changed while the sync ran? Run the sync again`);
    const made = new EnvelopeEncoder(key, parsedInOrder(scanner.members.slice(0, scanner.membersBefore)));
    take(made.head());
    return made;
  };
  for await (const chunk of chunks) {
    for (const element of scanner.push(chunk)) {
      encoder ??= open();
      const id = idOf(element);
      if (typeof id === 'string' && drop.has(id)) continue;
      take(encoder.separator());
      take(element.bytes);
    }
    if (size >= PIECE_BYTES) {
      yield Buffer.concat(pieces, size);
      pieces = [];
      size = 0;
    }
  }
  scanner.end();
  encoder ??= open();
  take(encoder.tail(parsedInOrder(scanner.members.slice(scanner.membersBefore))));
  yield Buffer.concat(pieces, size);
}
