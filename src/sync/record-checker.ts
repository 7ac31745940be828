/**
 * Checks single records on a thread of their own. Parsing, checking, redacting and encoding a
 * record is most of what a first sync does besides HTTP; on the main thread it delayed every
 * request behind it. Here the main thread only collects each body and hands it over with its list
 * item; the record thread answers with the findings and the file to publish. Both sides of the
 * exchange are in this module; record-thread.ts is the thread's entry.
 */
import { BodyFault, ValidationError } from '../errors.js';
import { MAX_DEPTH, TooDeepError } from '../json/scan.js';
import type { RedactPolicy } from '../redact/policy.js';
import type { ResourceName } from '../spec/resources.js';
import { packBytes, unpackBytes, WorkerBatches } from '../util/worker-batches.js';
import { startWorker } from '../util/worker.js';
import { checkPulledRecord, type CheckedRecord, type RecordJob } from './record.js';

/** The jobs of a batch: each body and item end to end in one buffer (body, item, body, item, ...). */
interface RecordBatch {
  jobs: { resource: ResourceName; id: string; path: string }[];
  buffer: ArrayBuffer;
  ends: number[];
}

/** How a job failed, for the main thread to throw as the error it was. */
interface WireError {
  kind: 'fault' | 'syntax' | 'too_deep' | 'invalid' | 'other';
  message: string;
}

/** The reply to a batch: per job its findings and shape, or its error; the files end to end. */
interface RecordReply {
  answers: (Omit<CheckedRecord, 'bytes'> | { error: WireError })[];
  buffer: ArrayBuffer;
  ends: number[];
}

function toWire(error: unknown): WireError {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof BodyFault) return { kind: 'fault', message };
  if (error instanceof TooDeepError) return { kind: 'too_deep', message };
  if (error instanceof SyntaxError) return { kind: 'syntax', message };
  if (error instanceof ValidationError) return { kind: 'invalid', message };
  return { kind: 'other', message };
}

function fromWire(error: WireError, path: string): Error {
  switch (error.kind) {
    case 'fault':
      return new BodyFault(error.message);
    case 'too_deep':
      return new TooDeepError(MAX_DEPTH);
    case 'syntax':
      return new SyntaxError(error.message);
    case 'invalid':
      return new ValidationError(error.message);
    case 'other':
      return new Error(`checking GET ${path} failed on the record thread: ${error.message}`);
  }
}

/** The thread's side: answers one batch. */
export function answerBatch(batch: RecordBatch, redact: RedactPolicy | undefined): { reply: RecordReply; transfer: ArrayBuffer[] } {
  const parts = unpackBytes(batch.buffer, batch.ends);
  const files: Buffer[] = [];
  const answers = batch.jobs.map(({ resource, id, path }, n): RecordReply['answers'][number] => {
    try {
      // Built whole, not as `{ ...job, body, item }`: a spread and then two keys more costs V8 about 2 µs a record.
      const { bytes, ...rest } = checkPulledRecord({ resource, id, path, body: parts[2 * n]!, item: parts[2 * n + 1]! }, redact);
      files.push(bytes);
      return rest;
    } catch (error) {
      files.push(Buffer.alloc(0));
      return { error: toWire(error) };
    }
  });
  const { buffer, ends } = packBytes(files);
  return { reply: { answers, buffer, ends }, transfer: [buffer] };
}

/** The main thread's side: hands records over and gets each one's result. */
export class RecordChecker {
  readonly #batches: WorkerBatches<RecordJob, CheckedRecord>;

  constructor(redact: RedactPolicy | undefined) {
    this.#batches = new WorkerBatches({
      name: 'record-checking',
      // Its objects live for one record, so a young generation of 16 MB is enough: at 4 MB it
      // collected three times as often, about 0.4 s more of a 20 000-server sync, to save 5-10 MB
      // of RSS; V8's default takes 25 MB more.
      start: () => startWorker(new URL('./record-thread.js', import.meta.url), { workerData: { redact }, resourceLimits: { maxYoungGenerationSizeMb: 16 } }),
      pack: (jobs) => {
        const { buffer, ends } = packBytes(jobs.flatMap((job) => [job.body, job.item]));
        return { message: { jobs: jobs.map(({ resource, id, path }) => ({ resource, id, path })), buffer, ends } satisfies RecordBatch, transfer: [buffer] };
      },
      unpack: (reply, jobs) => {
        const { answers, buffer, ends } = reply as RecordReply;
        const files = unpackBytes(buffer, ends);
        return answers.map((answer, n) => ('error' in answer ? fromWire(answer.error, jobs[n]!.path) : { ...answer, bytes: files[n]! }));
      },
    });
  }

  /** Checks one record: its result, or the error its body makes (BodyFault, SyntaxError and TooDeepError for the client to judge). */
  check(job: RecordJob): Promise<CheckedRecord> {
    return this.#batches.run(job);
  }

  /** Starts the record thread now: a first sync starts it while the lists come in, rather than keep the first records waiting for it (about 0.15 s). */
  startEarly(): void {
    this.#batches.startEarly();
  }

  close(): Promise<void> {
    return this.#batches.close();
  }
}
