/** The digest thread (see file-digests.ts): hashes each file it was given, a piece at a time, answers once and ends. */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { FileDigest } from './file-digests.js';

const piece = Buffer.allocUnsafe(1024 * 1024);

function digest(file: string): FileDigest | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    if (!fstatSync(fd).isFile()) return null;
    const hash = createHash('sha256');
    let size = 0;
    for (let read = readSync(fd, piece); read > 0; read = readSync(fd, piece)) {
      hash.update(piece.subarray(0, read));
      size += read;
    }
    return { sha256: hash.digest('hex'), size };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

parentPort!.postMessage((workerData as { files: string[] }).files.map(digest));
