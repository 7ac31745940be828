/**
 * Files hashed on a thread of their own. A re-sync keeps the five lists the service answers 304
 * for and checks their bytes against the manifest: 200 MB at 200 000 servers, which on the main
 * thread held up reading the run metadata and planning. The thread reads and hashes them meanwhile,
 * answers once and ends; digest-thread.ts is its entry.
 */
import { startWorker } from '../util/worker.js';

/** What a file held when it was hashed. */
export interface FileDigest {
  /** Hex. */
  sha256: string;
  size: number;
}

/** The digest of each of `files` (absolute paths), in order; undefined for one that is not a file that could be read (a link is not followed), and for all when the thread failed. */
export function digestFiles(files: readonly string[]): Promise<(FileDigest | undefined)[]> {
  const none = files.map(() => undefined);
  return new Promise((resolve) => {
    try {
      const worker = startWorker(new URL('./digest-thread.js', import.meta.url), { workerData: { files } });
      // Whichever comes first: a later event changes nothing.
      worker.once('message', (answer: (FileDigest | null)[]) => resolve(answer.map((digest) => digest ?? undefined)));
      worker.once('error', () => resolve(none));
      worker.once('exit', () => resolve(none));
    } catch {
      resolve(none);
    }
  });
}
