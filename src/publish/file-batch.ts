/**
 * Writes many small files from a worker thread, a batch at a time. A first sync creates a file per
 * record. Through the thread pool each costs three round trips (open, write, close), and each trip
 * wakes a pool thread and calls back into the main thread: at 20 000 servers on two cores that
 * was about 2.5 s of a 15 s sync, on the thread that also runs HTTP and the checks. Here the main
 * thread only copies bytes into the next batch; the worker writes a batch with plain synchronous
 * calls while the next one gathers, and answers with the files that failed.
 */
import { Worker } from 'node:worker_threads';

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

interface Pending {
  path: string;
  bytes: Buffer;
  resolve: () => void;
  reject: (error: Error) => void;
}

export class FileBatcher {
  #worker: Worker | undefined;
  /** Files waiting for the next batch. */
  #queue: Pending[] = [];
  /** The batch the worker is writing; one at a time, so the next one gathers meanwhile. */
  #writing: Pending[] | undefined;
  #sendScheduled = false;
  /** Set when the worker stopped: every write from then on fails with it. */
  #broken: Error | undefined;
  #drained: (() => void) | undefined;

  /** Writes `bytes` to `path` (its folder must exist); resolves once the file is written. */
  write(path: string, bytes: Buffer): Promise<void> {
    if (this.#broken) return Promise.reject(this.#broken);
    return new Promise((resolve, reject) => {
      this.#queue.push({ path, bytes, resolve, reject });
      // Files handed over in the same turn of the event loop go in one batch.
      if (!this.#writing && !this.#sendScheduled) {
        this.#sendScheduled = true;
        setImmediate(() => {
          this.#sendScheduled = false;
          this.#send();
        });
      }
    });
  }

  /** Waits for every file handed over, then stops the worker. */
  async close(): Promise<void> {
    if (this.#writing || this.#queue.length > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

  #send(): void {
    if (this.#writing || this.#queue.length === 0) {
      if (!this.#writing) this.#drained?.();
      return;
    }
    const batch = this.#queue;
    this.#queue = [];
    let size = 0;
    for (const file of batch) size += file.bytes.length;
    const buffer = new ArrayBuffer(size);
    const view = new Uint8Array(buffer);
    const ends: number[] = [];
    let offset = 0;
    for (const file of batch) {
      view.set(file.bytes, offset);
      offset += file.bytes.length;
      ends.push(offset);
    }
    this.#writing = batch;
    const worker = this.#start();
    // Held open only while it writes: an idle batcher never keeps the process alive.
    worker.ref();
    worker.postMessage({ buffer, paths: batch.map((file) => file.path), ends } satisfies Batch, [buffer]);
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(`(${writeBatches.toString()})()`, { eval: true });
    worker.on('message', (failures: Failure[]) => this.#settle(failures));
    worker.on('error', (error) => this.#fail(error));
    worker.on('exit', (code) => this.#fail(new Error(`the file-writing thread stopped (exit code ${code})`)));
    this.#worker = worker;
    return worker;
  }

  #settle(failures: Failure[]): void {
    const batch = this.#writing!;
    this.#writing = undefined;
    const failed = new Map(failures.map((failure) => [failure.index, failure]));
    batch.forEach((file, index) => {
      const failure = failed.get(index);
      if (!failure) return file.resolve();
      const { message, code, errno, syscall } = failure;
      // Shaped as the fs error it was, so messages name the file and the cause as for any other write.
      file.reject(Object.assign(new Error(message), { code, errno, syscall, path: file.path }));
    });
    this.#worker?.unref();
    this.#send();
  }

  #fail(error: Error): void {
    // An exit asked for by close() is no failure.
    if (!this.#worker) return;
    this.#worker = undefined;
    this.#broken = error;
    for (const file of [...(this.#writing ?? []), ...this.#queue]) file.reject(error);
    this.#writing = undefined;
    this.#queue = [];
    this.#drained?.();
  }
}
