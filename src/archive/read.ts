/**
 * Streams a `.tar.gz` archive of a snapshot: every entry is checked (entryProblem), hashed, and
 * optionally written to a sink, without ever holding the archive in memory. The manifest and
 * signature bytes are kept, since everything else is compared with them. The bytes around the
 * entries (gzip, tar's end marker and padding) are stream.ts's job.
 */
import { createHash } from 'node:crypto';
import { once, setMaxListeners } from 'node:events';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { Parser, type ReadEntry } from 'tar';
import { ArchiveError } from '../errors.js';
import { MANIFEST_FILE, SIGNATURE_FILE } from '../snapshot/paths.js';
import { entryProblem, placementProblem } from './entries.js';
import { feedTarStream } from './stream.js';

/** Limits on what is kept in memory while reading: the manifest and the signature. */
const MAX_MANIFEST_BYTES = 256 * 1024 * 1024;
const MAX_SIGNATURE_BYTES = 64 * 1024;

export interface ArchiveContents {
  manifest: Buffer | undefined;
  signature: Buffer | undefined;
  /** Every file entry with the sha256 and size of its bytes. */
  files: Map<string, { sha256: string; size: number }>;
}

/**
 * Opens the place an entry's bytes go (unpack), or undefined to only hash them (verify). It gets
 * the size the entry's header declares and, for every entry after them, the manifest and the
 * signature, which come first: so it can refuse an entry before a byte of it is written.
 */
type EntrySink = (path: string, size: number, heads: Pick<ArchiveContents, 'manifest' | 'signature'>) => Promise<Writable>;

/** Reads the whole archive; throws an ArchiveError at the first refused entry or format fault. */
export async function readArchive(file: string, sink?: EntrySink): Promise<ArchiveContents> {
  const contents: ArchiveContents = { manifest: undefined, signature: undefined, files: new Map() };
  let failure: Error | undefined;
  const pending: Promise<void>[] = [];
  // The first refusal stops the reading: nothing after it is read, hashed or written.
  const stop = new AbortController();
  // Each entry being read listens on it until it ends; many can be under way at once.
  setMaxListeners(0, stop.signal);
  const fail = (error: Error): void => {
    failure ??= error;
    stop.abort();
  };

  /** Every folder the file entries need, with the first entry needing it. */
  const folders = new Map<string, string>();

  /** The manifest's and signature's reading, which every later entry's sink waits for. */
  const heads: Promise<void>[] = [];

  const consume = async (path: string, entry: ReadEntry): Promise<void> => {
    const hash = createHash('sha256');
    const kept: Buffer[] = [];
    const keep = path === MANIFEST_FILE ? MAX_MANIFEST_BYTES : path === SIGNATURE_FILE ? MAX_SIGNATURE_BYTES : 0;
    if (keep && entry.size > keep) throw new ArchiveError(file, `${path} is ${entry.size} bytes, over the ${keep} allowed`);
    if (sink && !keep) await Promise.all(heads);
    const out = sink ? await sink(path, entry.size, contents) : undefined;
    // Listening at once, so a write error is never an unhandled 'error' event.
    const written = out ? finished(out) : undefined;
    written?.catch(() => undefined);
    let size = 0;
    entry.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      size += chunk.length;
      if (keep) kept.push(chunk);
      if (out && !out.write(chunk)) {
        entry.pause();
        out.once('drain', () => entry.resume());
      }
    });
    // An entry cut short by a refusal never ends: the refusal settles its reading instead.
    const ended = once(entry, 'end', { signal: stop.signal });
    entry.resume();
    try {
      await ended;
    } catch (error) {
      out?.destroy();
      throw error;
    }
    if (out) {
      out.end();
      await written;
    }
    contents.files.set(path, { sha256: hash.digest('hex'), size });
    if (path === MANIFEST_FILE) contents.manifest = Buffer.concat(kept);
    if (path === SIGNATURE_FILE) contents.signature = Buffer.concat(kept);
  };

  const parser = new Parser({
    strict: true,
    onReadEntry: (entry: ReadEntry) => {
      const path = entry.path;
      const problem = failure ? undefined : entryProblem(entry.type, path);
      if (problem) fail(new ArchiveError(file, `${problem}; refusing the archive`));
      if (failure || entry.type === 'Directory') {
        entry.resume();
        return;
      }
      // A second entry under one name would silently replace the first one's bytes.
      if (contents.files.has(path)) fail(new ArchiveError(file, `entry ${JSON.stringify(path)} appears twice; refusing the archive`));
      // Nor can a path be a file and a folder: whichever came second could not be written.
      const misplaced = failure ? undefined : placementProblem(path, contents.files, folders);
      if (misplaced) fail(new ArchiveError(file, `${misplaced}; refusing the archive`));
      if (failure) {
        entry.resume();
        return;
      }
      // Unpacking checks each entry against the manifest before writing it, so that comes first;
      // verify refuses what unpack would, so an archive it passes can be unpacked.
      if (path !== MANIFEST_FILE && !contents.files.has(MANIFEST_FILE)) {
        fail(new ArchiveError(file, `its first entry is ${JSON.stringify(path)}, not ${MANIFEST_FILE} as \`inventory-mirror pack\` writes it; refusing the archive`));
        entry.resume();
        return;
      }
      contents.files.set(path, { sha256: '', size: -1 });
      const reading = consume(path, entry).catch((error: unknown) => {
        fail(error instanceof Error ? error : new Error(String(error)));
        entry.resume();
      });
      if (path === MANIFEST_FILE || path === SIGNATURE_FILE) heads.push(reading);
      pending.push(reading);
    },
  });
  const unreadable = (error: unknown): Error => {
    if (error instanceof ArchiveError) return error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') return new ArchiveError(file, `cannot read it (${code})`, { cause: error });
    return new ArchiveError(file, `not a readable .tar.gz archive (${(error as Error).message})`, { cause: error });
  };
  const parsed = new Promise<void>((resolve) => {
    parser.on('error', (error: unknown) => {
      fail(unreadable(error));
      resolve();
    });
    parser.on('end', () => resolve());
    stop.signal.addEventListener('abort', () => resolve());
  });
  try {
    await feedTarStream(file, parser, stop.signal);
  } catch (error) {
    if (!stop.signal.aborted) fail(unreadable(error));
  }
  await parsed;
  await Promise.all(pending);
  if (failure) throw failure;
  return contents;
}
