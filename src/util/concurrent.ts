/**
 * Runs `work` on every item of an (async) iterable, at most `width` at a time, pulling the next
 * item only when a worker is free: with 360 000 records, queueing them all up front (as p-limit
 * would) holds 360 000 waiting closures; here only the items in flight exist. The first failure
 * stops the workers from starting more and is thrown once the others have settled.
 */
export function forEachConcurrent<T>(items: Iterable<T> | AsyncIterable<T>, width: number, work: (item: T) => Promise<void>): Promise<void> {
  if (Array.isArray(items)) return forEachInBatches([items as readonly T[]], width, work);
  const iterator = Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : (items as Iterable<T>)[Symbol.iterator]();
  const single = (step: IteratorResult<T>): IteratorResult<readonly T[]> => (step.done ? step : { value: [step.value], done: false });
  const batches: AsyncIterator<readonly T[]> = {
    next: async () => single(await iterator.next()),
    return: async () => {
      await iterator.return?.();
      return { value: undefined, done: true };
    },
  };
  return forEachInBatches({ [Symbol.asyncIterator]: () => batches }, width, work);
}

/**
 * forEachConcurrent over items that come in batches: the workers take items from the batch at
 * hand and ask the source for the next batch only when it is used up. A record pass hands over
 * tens of thousands of items; an async generator step per item cost more than many items' work.
 */
export async function forEachInBatches<T>(batches: Iterable<readonly T[]> | AsyncIterable<readonly T[]>, width: number, work: (item: T) => Promise<void>): Promise<void> {
  const iterator = Symbol.asyncIterator in batches ? batches[Symbol.asyncIterator]() : (batches as Iterable<readonly T[]>)[Symbol.iterator]();
  let failure: { error: unknown } | undefined;
  let batch: readonly T[] = [];
  let taken = 0;
  let done = false;
  // One pull at a time: an async generator must not be asked for its next batch concurrently.
  let pulling: Promise<void> | undefined;
  const pull = async (): Promise<void> => {
    try {
      const step = await iterator.next();
      if (step.done) done = true;
      else {
        batch = step.value;
        taken = 0;
      }
    } finally {
      pulling = undefined;
    }
  };
  const worker = async (): Promise<void> => {
    while (!failure) {
      if (taken === batch.length) {
        if (done) return;
        try {
          await (pulling ??= pull());
        } catch (error) {
          failure ??= { error };
          return;
        }
        continue;
      }
      try {
        await work(batch[taken++]!);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, width) }, worker));
  if (failure) {
    await iterator.return?.();
    throw failure.error;
  }
}

/**
 * Several sources of batches taken in turn: one batch from each, their items interleaved (the
 * first of each, then the second of each, ...), until all are done. Closes the ones still open
 * when the consumer stops early.
 */
export async function* inTurns<T>(sources: readonly AsyncIterator<readonly T[]>[]): AsyncGenerator<T[]> {
  let live = [...sources];
  try {
    while (live.length > 0) {
      const still: AsyncIterator<readonly T[]>[] = [];
      const batches: (readonly T[])[] = [];
      for (const source of live) {
        const step = await source.next();
        if (step.done) continue;
        still.push(source);
        batches.push(step.value);
      }
      live = still;
      const turn: T[] = [];
      const longest = Math.max(0, ...batches.map((b) => b.length));
      for (let k = 0; k < longest; k++) for (const b of batches) if (k < b.length) turn.push(b[k]!);
      if (turn.length > 0) yield turn;
    }
  } finally {
    await Promise.all(live.map((source) => source.return?.()));
  }
}

/**
 * Promise.all, except that a failure is thrown only once every promise has settled: work still
 * writing (a list streaming into staging) must not go on after the caller, told of the failure,
 * has cleaned up after it.
 */
export async function allSettled<T>(promises: readonly Promise<T>[]): Promise<T[]> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((result) => (result as PromiseFulfilledResult<T>).value);
}
