import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Type-check and build dist/ and dist-bench/ once before any test: tests spawn the built CLI and bench.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Tests spawn servers and CLIs; two cores, so keep parallelism modest.
    maxWorkers: 2,
  },
});
