/**
 * How far V8 lets the heap grow past what a full collection left alive: by 30%, or, while the
 * heap is small, by 32 MB when that is more. V8's default lets it grow to about four times the
 * live set while collecting is cheap, which put a 200 000-server sync at 450 MB of RSS; 30% holds
 * that near 340 MB, and a 200 000-server re-sync under 300 MB, where more would not fit. But at
 * 20 000 servers the live set is about 25 MB, and 30% of it (the 8 MB V8 grants at least) made 27
 * full collections a first sync, their marking a tenth of its CPU on V8's helper threads.
 *
 * V8 reads the flag when a full collection sets the next limit, so it is set after every
 * collection from the heap as it is then: a live set that jumped (a large snapshot's metadata
 * read) meets 30% at the next full collection, never a share meant for a small heap.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';

const SHARE_PERCENT = 30;
const STEP_BYTES = 32 * 2 ** 20;
/** From here on the heap grows by SHARE_PERCENT only. */
const SMALL_HEAP_BYTES = 64 * 2 ** 20;
/** A heap that holds next to nothing grows three-fold at most. */
const MOST_PERCENT = 200;

/** The growth allowed past a heap of `usedBytes`, in percent (a multiple of 10). */
export function growthPercent(usedBytes: number): number {
  if (usedBytes >= SMALL_HEAP_BYTES) return SHARE_PERCENT;
  const percent = Math.ceil((100 * STEP_BYTES) / Math.max(1, usedBytes) / 10) * 10;
  return Math.min(MOST_PERCENT, Math.max(SHARE_PERCENT, percent));
}

/** Keeps V8's heap growth at growthPercent of the heap in use, for this process and its threads. */
export function boundHeapGrowth(): void {
  let current = 0;
  const apply = (): void => {
    const percent = growthPercent(getHeapStatistics().used_heap_size);
    if (percent === current) return;
    current = percent;
    setFlagsFromString(`--heap-growing-percent=${percent}`);
  };
  apply();
  // An observer of collections holds no handle: it never keeps the process alive.
  new PerformanceObserver(apply).observe({ entryTypes: ['gc'] });
}
