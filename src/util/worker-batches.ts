/**
 * Work for a worker thread, handed over in batches: the jobs given in one turn of the event loop
 * go as one message, and one batch is out at a time, so the next gathers while the worker is busy.
 * A message per job would cost the main thread more than many jobs' work (posting, waking, the
 * reply); per batch it costs one of each. Each job gets its own answer or error.
 */
import type { Transferable, Worker } from 'node:worker_threads';

export interface BatchProtocol<Job, Answer> {
  /** Names the thread in the error when it stops. */
  name: string;
  /** A new worker (started with the first batch). */
  start(): Worker;
  /** The message for a batch, and the buffers it transfers. */
  pack(jobs: readonly Job[]): { message: unknown; transfer: Transferable[] };
  /** The worker's reply to a batch, as one answer (or the error it failed with) per job, in order. */
  unpack(reply: unknown, jobs: readonly Job[]): (Answer | Error)[];
}

interface Pending<Job, Answer> {
  job: Job;
  resolve: (answer: Answer) => void;
  reject: (error: Error) => void;
}

export class WorkerBatches<Job, Answer> {
  readonly #protocol: BatchProtocol<Job, Answer>;
  #worker: Worker | undefined;
  #queue: Pending<Job, Answer>[] = [];
  /** The batch the worker has. */
  #out: Pending<Job, Answer>[] | undefined;
  #sendScheduled = false;
  /** Set when the worker stopped: every job from then on fails with it. */
  #broken: Error | undefined;
  #drained: (() => void) | undefined;

  constructor(protocol: BatchProtocol<Job, Answer>) {
    this.#protocol = protocol;
  }

  /** Hands `job` over; resolves with its answer. */
  run(job: Job): Promise<Answer> {
    if (this.#broken) return Promise.reject(this.#broken);
    return new Promise((resolve, reject) => {
      this.#queue.push({ job, resolve, reject });
      if (!this.#out && !this.#sendScheduled) {
        this.#sendScheduled = true;
        setImmediate(() => {
          this.#sendScheduled = false;
          this.#send();
        });
      }
    });
  }

  /**
   * Starts the worker before the first batch, so it loads its modules while the caller does other
   * work. It holds the process open only while it has a batch, as when started by one.
   */
  startEarly(): void {
    if (!this.#broken && !this.#worker) this.#start().unref();
  }

  /** Waits for every job handed over, then stops the worker. */
  async close(): Promise<void> {
    if (this.#out || this.#queue.length > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

  #send(): void {
    if (this.#out || this.#queue.length === 0) {
      if (!this.#out) this.#drained?.();
      return;
    }
    const batch = this.#queue;
    this.#queue = [];
    this.#out = batch;
    let packed;
    try {
      packed = this.#protocol.pack(batch.map((pending) => pending.job));
    } catch (error) {
      this.#settle(batch.map(() => error as Error));
      return;
    }
    const worker = this.#start();
    // Held open only while it works: an idle worker never keeps the process alive.
    worker.ref();
    worker.postMessage(packed.message, packed.transfer);
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = this.#protocol.start();
    worker.on('message', (reply: unknown) => {
      const batch = this.#out;
      if (!batch) return;
      let answers: (Answer | Error)[];
      try {
        answers = this.#protocol.unpack(reply, batch.map((pending) => pending.job));
      } catch (error) {
        answers = batch.map(() => error as Error);
      }
      this.#settle(answers);
    });
    worker.on('error', (error) => this.#fail(error));
    worker.on('exit', (code) => this.#fail(new Error(`the ${this.#protocol.name} thread stopped (exit code ${code})`)));
    this.#worker = worker;
    return worker;
  }

  #settle(answers: (Answer | Error)[]): void {
    const batch = this.#out!;
    this.#out = undefined;
    batch.forEach((pending, index) => {
      const answer = answers[index];
      if (answer instanceof Error) pending.reject(answer);
      else pending.resolve(answer as Answer);
    });
    this.#worker?.unref();
    this.#send();
  }

  #fail(error: Error): void {
    // An exit asked for by close() is no failure.
    if (!this.#worker) return;
    this.#worker = undefined;
    this.#broken = error;
    for (const pending of [...(this.#out ?? []), ...this.#queue]) pending.reject(error);
    this.#out = undefined;
    this.#queue = [];
    this.#drained?.();
  }
}

/** Byte strings end to end in one new buffer (to transfer, not copy, to a thread), with where each ends. */
export function packBytes(parts: readonly Uint8Array[]): { buffer: ArrayBuffer; ends: number[] } {
  let size = 0;
  for (const part of parts) size += part.length;
  const buffer = new ArrayBuffer(size);
  const view = new Uint8Array(buffer);
  const ends: number[] = [];
  let offset = 0;
  for (const part of parts) {
    view.set(part, offset);
    offset += part.length;
    ends.push(offset);
  }
  return { buffer, ends };
}

/** The byte strings packBytes packed, as views into its buffer. */
export function unpackBytes(buffer: ArrayBuffer, ends: readonly number[]): Buffer[] {
  let start = 0;
  return ends.map((end) => {
    const part = Buffer.from(buffer, start, end - start);
    start = end;
    return part;
  });
}
