/**
 * The helper threads of a sync (record checking, file writing) run a few nice levels below the
 * thread that talks to the service. On a machine with few cores, shared with the service or other
 * work, a woken helper took the core from the main thread while requests waited to be sent; the
 * helpers have batches queued ahead of them and can wait. At 20 000 servers on two cores, a first
 * sync was faster in 12 of 18 alternating pairs, by 6% on average (docs/benchmark.md).
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** How far below the main thread a helper thread runs (weight about a third of it). */
const NICE_STEPS = 5;

/**
 * Lowers the calling thread's priority. Only on Linux, where a thread has a priority of its own
 * (elsewhere it would lower the whole process); where it is not allowed, the thread keeps its own.
 */
export function yieldToMainThread(): void {
  let tid: number;
  try {
    // "<pid>/task/<tid>"
    tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return;
  }
  try {
    setPriority(tid, Math.min(19, getPriority(tid) + NICE_STEPS));
  } catch {
    // A sandbox that forbids setpriority: the sync runs as before.
  }
}
