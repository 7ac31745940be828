/**
 * `_meta/manifest.json`: every other file of the snapshot with its sha256 and size, sorted by
 * path so it is byte-stable. The manifest is what `verify`, `serve` and the next sync trust. It is
 * written and read piece by piece: at 200 000 servers it lists 360 000 files (about 47 MB), which
 * parsed whole would take four times that in objects.
 */
import { createHash, hash } from 'node:crypto';
import { z } from 'zod';
import { EnvelopeScanner, ScanError } from '../json/scan.js';
import { isPlainObject } from '../util/json-value.js';
import { isSnapshotPath } from './paths.js';
import { FileTable } from './table.js';

const HEX64 = /^[0-9a-f]{64}$/;

export const manifestEntrySchema = z.strictObject({ sha256: z.string().regex(HEX64), size: z.int().min(0) });
type ManifestEntry = z.infer<typeof manifestEntrySchema>;

/** `manifestEntrySchema` as a predicate, for the hundreds of thousands of entries of a manifest. */
export function isManifestEntry(value: unknown): value is ManifestEntry {
  if (!isPlainObject(value)) return false;
  let keys = 0;
  for (const key in value) {
    if (key !== 'sha256' && key !== 'size') return false;
    keys++;
  }
  const { sha256, size } = value;
  return keys === 2 && typeof sha256 === 'string' && HEX64.test(sha256) && Number.isSafeInteger(size) && (size as number) >= 0;
}

export function sha256(bytes: Buffer): string {
  return hash('sha256', bytes, 'hex');
}

const HEAD = '{\n  "format": 1,\n  "generator": "inventory-mirror",\n  "files": {';
const CHUNK_CHARS = 64 * 1024;

/** The manifest of `table`'s files, as text pieces of about 64 KiB (encodeJson's exact bytes when joined). */
export function* manifestChunks(table: FileTable, order: readonly number[] = table.sortedIndexes()): Generator<string> {
  let text = HEAD;
  for (let n = 0; n < order.length; n++) {
    const i = order[n]!;
    text += `${n === 0 ? '' : ','}\n    ${JSON.stringify(table.path(i))}: {\n      "sha256": "${table.sha256(i)}",\n      "size": ${table.fileSize(i)}\n    }`;
    if (text.length >= CHUNK_CHARS) {
      yield text;
      text = '';
    }
  }
  yield `${text}${order.length === 0 ? '}' : '\n  }'}\n}\n`;
}

/** The manifest's bytes whole, for the small ones (archives compare it, tests build it). */
export function encodeManifest(table: FileTable): Buffer {
  return Buffer.from([...manifestChunks(table)].join(''), 'utf8');
}

/** A manifest read back: its files and the sha256 of its bytes (what the ETag cache is bound to). */
export interface ManifestRead {
  table: FileTable;
  sha256: string;
  /** Whether its bytes are the ones manifestChunks writes for its entries in the order read (sorted, they are a sync's own). */
  exact: boolean;
}

/** Reads manifest text piece by piece into a table; throws a ScanError on anything but our format. */
class ManifestReader {
  readonly table: FileTable;
  readonly #scanner = new EnvelopeScanner('files', 'object');
  readonly #hash = createHash('sha256');

  /** `bytes`: the manifest's size, to size the table (about 120 bytes an entry). */
  constructor(bytes = 0) {
    this.table = new FileTable(Math.ceil(bytes / 120));
  }

  push(chunk: Buffer): void {
    this.#hash.update(chunk);
    for (const element of this.#scanner.push(chunk)) {
      let entry: unknown;
      try {
        entry = JSON.parse(element.bytes.toString('utf8'));
      } catch {
        throw new ScanError(`the entry of ${JSON.stringify(element.key)} is not JSON`);
      }
      if (!isSnapshotPath(element.key!)) throw new ScanError(`${JSON.stringify(element.key)} is not a path of a snapshot (only A-Z a-z 0-9 . _ ~ - and %XX, no . or .. segment)`);
      if (!isManifestEntry(entry)) throw new ScanError(`the entry of ${JSON.stringify(element.key)} is not {sha256, size}`);
      if (this.table.has(element.key!)) throw new ScanError(`${JSON.stringify(element.key)} is listed twice`);
      this.table.set(element.key!, entry.sha256, entry.size);
    }
  }

  end(): ManifestRead {
    this.#scanner.end();
    const members = new Map(this.#scanner.members.map((m) => [m.key, m.bytes.toString('utf8').trim()]));
    if (!this.#scanner.found || members.size !== 2 || members.get('format') !== '1' || members.get('generator') !== '"inventory-mirror"') {
      throw new ScanError('not a manifest of inventory-mirror (format 1)');
    }
    return { table: this.table, sha256: this.#hash.digest('hex'), exact: false };
  }
}

/** Parses manifest bytes; undefined when they are not a manifest of ours. */
export function parseManifest(bytes: Buffer): ManifestRead | undefined {
  const read = readWhole(bytes);
  return typeof read === 'string' ? undefined : read;
}

/** Why `bytes` are not a manifest of ours (the first fault found), or undefined when they are one. */
export function manifestFault(bytes: Buffer): string | undefined {
  const read = readWhole(bytes);
  return typeof read === 'string' ? read : undefined;
}

function readWhole(bytes: Buffer): ManifestRead | string {
  const reader = new ManifestReader(bytes.length);
  try {
    reader.push(bytes);
    return reader.end();
  } catch (error) {
    if (error instanceof ScanError) return error.message;
    throw error;
  }
}
