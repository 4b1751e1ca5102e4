import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The real-CLI suite runs on its own, one file at a time (test/e2e/vitest.config.ts).
    exclude: ['test/e2e/**', '**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests start real processes and PTYs; two cores, so keep the fan-out small.
    pool: 'forks',
    maxWorkers: 2,
    isolate: true,
  },
});
