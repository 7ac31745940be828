/**
 * Writes many small files from a worker thread, a batch at a time. A first sync creates a file per
 * record. Through the thread pool each costs three round trips (open, write, close), and each trip
 * wakes a pool thread and calls back into the main thread: at 20 000 servers on two cores that
 * was about 2.5 s of a 15 s sync, on the thread that also runs HTTP and the checks. Here the main
 * thread only copies bytes into the next batch; the worker writes a batch with plain synchronous
 * calls while the next one gathers, and answers with the files that failed.
 */
import { Worker } from 'node:worker_threads';
import { packBytes, WorkerBatches } from '../util/worker-batches.js';

/** What the worker is sent: the files' bytes end to end, their paths, and where each ends. */
interface Batch {
  buffer: ArrayBuffer;
  paths: string[];
  ends: number[];
}

/** A file the worker could not write, with the parts of its error that messages use. */
interface Failure {
  index: number;
  message: string;
  code: string | undefined;
  errno: number | undefined;
  syscall: string | undefined;
}

/**
 * The worker's code. It runs from its source text (no module file to find, whether running from
 * dist/ or from the TypeScript sources under test), so it reaches modules through
 * process.getBuiltinModule only.
 */
function writeBatches(): void {
  const { parentPort } = process.getBuiltinModule('node:worker_threads');
  const { writeFileSync } = process.getBuiltinModule('node:fs');
  parentPort!.on('message', (batch: Batch) => {
    const bytes = Buffer.from(batch.buffer);
    const failures: Failure[] = [];
    let start = 0;
    for (let index = 0; index < batch.paths.length; index++) {
      const end = batch.ends[index]!;
      try {
        writeFileSync(batch.paths[index]!, bytes.subarray(start, end));
      } catch (error) {
        const { message, code, errno, syscall } = error as NodeJS.ErrnoException;
        failures.push({ index, message, code, errno, syscall });
      }
      start = end;
    }
    parentPort!.postMessage(failures);
  });
}

/** Writes files from a worker thread, a batch at a time; each write resolves once its file is written. */
export class FileBatcher {
  readonly #batches = new WorkerBatches<{ path: string; bytes: Buffer }, void>({
    name: 'file-writing',
    start: () => new Worker(`(${writeBatches.toString()})()`, { eval: true }),
    pack: (files) => {
      const { buffer, ends } = packBytes(files.map((file) => file.bytes));
      return { message: { buffer, paths: files.map((file) => file.path), ends } satisfies Batch, transfer: [buffer] };
    },
    unpack: (reply, files) => {
      const failed = new Map((reply as Failure[]).map((failure) => [failure.index, failure]));
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
