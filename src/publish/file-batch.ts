/**
 * Writes many small files from a worker thread, a batch at a time. A first sync creates a file per
 * record. Through the thread pool each costs three round trips (open, write, close), and each trip
 * wakes a pool thread and calls back into the main thread: at 20 000 servers on two cores that
 * was about 2.5 s of a 15 s sync, on the thread that also runs HTTP and the checks. Here the main
 * thread only copies bytes into the next batch; the worker writes a batch with plain synchronous
 * calls while the next one gathers, and answers with the files that failed.
 */
import { packBytes, WorkerBatches } from '../util/worker-batches.js';
import { startWorker } from '../util/worker.js';

/** What the thread is sent: the files' bytes end to end, their paths, and where each ends. */
export interface FileBatch {
  buffer: ArrayBuffer;
  paths: string[];
  ends: number[];
}

/** A file the thread could not write, with the parts of its error that messages use. */
export interface FileFailure {
  index: number;
  message: string;
  code: string | undefined;
  errno: number | undefined;
  syscall: string | undefined;
}

/** Writes files from a worker thread, a batch at a time; each write resolves once its file is written. */
export class FileBatcher {
  readonly #batches = new WorkerBatches<{ path: string; bytes: Buffer }, void>({
    name: 'file-writing',
    start: () => startWorker(new URL('./file-thread.js', import.meta.url)),
    pack: (files) => {
      const { buffer, ends } = packBytes(files.map((file) => file.bytes));
      return { message: { buffer, paths: files.map((file) => file.path), ends } satisfies FileBatch, transfer: [buffer] };
    },
    unpack: (reply, files) => {
      const failed = new Map((reply as FileFailure[]).map((failure) => [failure.index, failure]));
      return files.map((file, index) => {
        const failure = failed.get(index);
        if (!failure) return undefined;
        const { message, code, errno, syscall } = failure;
        // Shaped as the fs error it was, so messages name the file and the cause as for any other write.
        return Object.assign(new Error(message), { code, errno, syscall, path: file.path });
      });
    },
  });

  /** Writes `bytes` to `path` (its folder must exist); resolves once the file is written. */
  write(path: string, bytes: Buffer): Promise<void> {
    return this.#batches.run({ path, bytes });
  }

  /** Waits for every file handed over, then stops the worker. */
  close(): Promise<void> {
    return this.#batches.close();
  }
}
