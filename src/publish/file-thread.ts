/**
 * The file-writing thread (see file-batch.ts): writes each batch of new files with plain
 * synchronous calls and answers with the ones that failed.
 */
import { writeFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { yieldToMainThread } from '../util/thread-priority.js';
import type { FileBatch, FileFailure } from './file-batch.js';

yieldToMainThread();
parentPort!.on('message', (batch: FileBatch) => {
  const bytes = Buffer.from(batch.buffer);
  const failures: FileFailure[] = [];
  let start = 0;
  for (let index = 0; index < batch.paths.length; index++) {
    const end = batch.ends[index]!;
    try {
      // Staged files are always new: never write through a link planted in the work folder.
      writeFileSync(batch.paths[index]!, bytes.subarray(start, end), { flag: 'wx' });
    } catch (error) {
      const { message, code, errno, syscall } = error as NodeJS.ErrnoException;
      failures.push({ index, message, code, errno, syscall });
    }
    start = end;
  }
  parentPort!.postMessage(failures);
});
