/** The byte budget that bounds what uploads in flight hold in memory. */
import { expect, it } from 'vitest';
import { ByteBudget } from '../../src/util/byte-budget.js';

/** A promise the test resolves when it chooses. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

it('runs work only while its bytes fit, in the order asked; one larger than the budget runs alone', async () => {
  const budget = new ByteBudget(10);
  let held = 0;
  let most = 0;
  const started: string[] = [];
  const gates = new Map<string, ReturnType<typeof gate>>();
  const run = (name: string, bytes: number): Promise<void> =>
    budget.use(bytes, async () => {
      started.push(name);
      held += Math.min(bytes, 10);
      most = Math.max(most, held);
      const g = gate();
      gates.set(name, g);
      await g.promise;
      held -= Math.min(bytes, 10);
    });
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  const all = [run('a', 6), run('b', 4), run('huge', 50), run('c', 1)];
  await settle();
  expect(started).toEqual(['a', 'b']);
  gates.get('a')!.open();
  await settle();
  // 'huge' needs the whole budget; 'c' waits behind it rather than overtaking.
  expect(started).toEqual(['a', 'b']);
  gates.get('b')!.open();
  await settle();
  expect(started).toEqual(['a', 'b', 'huge']);
  gates.get('huge')!.open();
  await settle();
  expect(started).toEqual(['a', 'b', 'huge', 'c']);
  gates.get('c')!.open();
  await Promise.all(all);
  expect(most).toBeLessThanOrEqual(10);
});

it('gives the bytes back when the work fails', async () => {
  const budget = new ByteBudget(10);
  await expect(budget.use(10, () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
  expect(await budget.use(10, () => Promise.resolve('ran'))).toBe('ran');
});
