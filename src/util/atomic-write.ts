/**
 * Files written whole or not at all. A new file is created exclusively and never through a link
 * (O_CREAT | O_EXCL | O_NOFOLLOW): a link planted under its name makes the write fail instead of
 * following it out of the folder. A file is replaced by writing such a new file beside it, under
 * an unguessable name, and renaming it over the old one, so a reader sees one or the other.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import fs from 'fs-extra';

/** `error` (a filesystem error of a call on a descriptor) given the `path` it concerns, when it has none. */
export function withPath(error: unknown, path: string): unknown {
  const fsError = error as NodeJS.ErrnoException | undefined;
  if (fsError && typeof fsError.errno === 'number' && typeof fsError.code === 'string' && typeof fsError.path !== 'string') fsError.path = path;
  return error;
}

/** What a file is written from: bytes, text, or pieces of either in order. */
export type Content = string | Buffer | Iterable<string | Buffer>;

/** open(2) flags of a new file: created here, never an existing one, never through a link. */
export const NEW_FILE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** A name beside `file` for its replacement while it is written: nobody can plant a link there in advance. */
export function tempBeside(file: string): string {
  return join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
}

function pieces(content: Content): Iterable<string | Buffer> {
  return typeof content === 'string' || Buffer.isBuffer(content) ? [content] : content;
}

/** Writes `content` into the new file `path` (which must not exist); resolves to the sha256 (hex) of what was written. */
export async function writeNew(path: string, content: Content, mode = 0o666): Promise<string> {
  const hash = createHash('sha256');
  const fd = await fs.open(path, NEW_FILE, mode);
  try {
    for (const piece of pieces(content)) {
      const bytes = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
      hash.update(bytes);
      await fs.write(fd, bytes);
    }
  } catch (error) {
    // write(2) on a descriptor fails without a path (a full disk: ENOSPC); the message must name the file.
    throw withPath(error, path);
  } finally {
    await fs.close(fd);
  }
  return hash.digest('hex');
}

/**
 * The sha256 (hex) of the file at `path`, read a piece at a time into one buffer (the run metadata
 * is 33 MB at 200 000 servers: a new buffer per piece held 30 MB until the next GC, at the moment a
 * large re-sync peaks); undefined when it cannot be read.
 */
async function digestOf(path: string): Promise<string | undefined> {
  const hash = createHash('sha256');
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const piece = Buffer.allocUnsafe(1024 * 1024);
    for (let read = (await handle.read(piece, 0, piece.length)).bytesRead; read > 0; read = (await handle.read(piece, 0, piece.length)).bytesRead) hash.update(piece.subarray(0, read));
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}

interface ReplaceOptions {
  mode?: number;
  /** Leave the file untouched (same mtime) when it already holds exactly these bytes. */
  unlessSame?: boolean;
}

/** Replaces `file` whole with `content`; resolves to the sha256 (hex) of the content. Nothing is left behind on failure. */
export async function replaceFile(file: string, content: Content, options: ReplaceOptions = {}): Promise<string> {
  const temp = tempBeside(file);
  try {
    const digest = await writeNew(temp, content, options.mode);
    if (options.unlessSame) {
      if ((await digestOf(file)) === digest) {
        await fs.rm(temp, { force: true });
        return digest;
      }
    }
    await fs.rename(temp, file);
    return digest;
  } catch (error) {
    await fs.rm(temp, { force: true });
    // The file the caller named, not the temporary name beside it that nobody asked for.
    const fsError = error as NodeJS.ErrnoException | undefined;
    if (fsError && typeof fsError.path === 'string' && fsError.path === temp) fsError.path = file;
    if (fsError && typeof fsError.message === 'string') fsError.message = fsError.message.split(temp).join(file);
    throw error;
  }
}
