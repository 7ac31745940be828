/**
 * Runs `work` on every item of an (async) iterable, at most `width` at a time, pulling the next
 * item only when a worker is free: with 360 000 records, queueing them all up front (as p-limit
 * would) holds 360 000 waiting closures; here only the items in flight exist. The first failure
 * stops the workers from starting more and is thrown once the others have settled.
 */
export async function forEachConcurrent<T>(items: Iterable<T> | AsyncIterable<T>, width: number, work: (item: T) => Promise<void>): Promise<void> {
  const iterator = Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : (items as Iterable<T>)[Symbol.iterator]();
  let failure: { error: unknown } | undefined;
  // One pull at a time: an async generator must not be asked for its next item concurrently.
  let pulling: Promise<unknown> = Promise.resolve();
  const next = (): Promise<IteratorResult<T>> => {
    const result = pulling.then(() => iterator.next());
    pulling = result.catch(() => undefined);
    return result;
  };
  const worker = async (): Promise<void> => {
    while (!failure) {
      let step: IteratorResult<T>;
      try {
        step = await next();
      } catch (error) {
        failure ??= { error };
        return;
      }
      if (step.done) return;
      try {
        await work(step.value);
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
 * The items of several async iterators taken in turn, one from each, until all are done. Closes
 * the ones still open when the consumer stops early.
 */
export async function* roundRobin<T>(sources: readonly AsyncIterator<T>[]): AsyncGenerator<T> {
  let live = [...sources];
  try {
    while (live.length > 0) {
      const still: AsyncIterator<T>[] = [];
      for (const source of live) {
        const step = await source.next();
        if (step.done) continue;
        still.push(source);
        yield step.value;
      }
      live = still;
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
