import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests start real processes and PTYs; two cores, so keep the fan-out small.
    pool: 'forks',
    maxWorkers: 2,
    isolate: true,
  },
});
