/** The record thread (see record-checker.ts): answers each batch of records it is sent. */
import { parentPort, workerData } from 'node:worker_threads';
import type { RedactPolicy } from '../redact/policy.js';
import { yieldToMainThread } from '../util/thread-priority.js';
import { answerBatch } from './record-checker.js';

yieldToMainThread();
const { redact } = workerData as { redact: RedactPolicy | undefined };
parentPort!.on('message', (batch: Parameters<typeof answerBatch>[0]) => {
  const { reply, transfer } = answerBatch(batch, redact);
  parentPort!.postMessage(reply, transfer);
});
