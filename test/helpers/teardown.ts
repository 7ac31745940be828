/** One rule for when a test's resources go: the teardown of the scope that made them. */
import { afterAll, onTestFinished, TestRunner } from 'vitest';

/**
 * Runs `close` when the scope that calls it ends: inside a test, as that test finishes (pass or
 * fail; the latest registered first); at a test file's top level, after the file's tests. Not
 * from a hook: a `beforeAll` has no test and no longer collects.
 */
export function atTeardown(close: () => unknown): void {
  const run = async (): Promise<void> => {
    await close();
  };
  if (TestRunner.getCurrentTest()) onTestFinished(run);
  else afterAll(run);
}
