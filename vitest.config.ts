import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests start real processes and PTYs; two cores, so keep the fan-out small.
    pool: 'forks',
    maxWorkers: 2,
    isolate: true,
    projects: [
      {
        extends: true,
        // Everything that imports src/ directly. The real-CLI suite runs on its own, one file at
        // a time (test/e2e/vitest.config.ts).
        test: {
          name: 'source',
          include: ['test/**/*.test.ts'],
          exclude: ['test/e2e/**', 'test/integration/**', 'test/security/**', 'test/contract/**', '**/node_modules/**'],
        },
      },
      {
        extends: true,
        // These spawn bin/synapse.js (the hostile-input suite, test/security, too), which runs dist/: build first when dist/ is older than src/
        // (only when one of them is selected, so `vitest run test/unit` never builds).
        test: { name: 'built', include: ['test/integration/**/*.test.ts', 'test/security/**/*.test.ts'], globalSetup: ['test/support/build-fresh.ts'] },
      },
      {
        extends: true,
        // The store contract: the same cases against SQLite and a real PostgreSQL server that
        // test/support/postgres-setup.ts starts for the run (and stops after, also on failure).
        test: { name: 'store', include: ['test/contract/**/*.test.ts'], globalSetup: ['test/support/build-fresh.ts', 'test/support/postgres-setup.ts'] },
      },
    ],
  },
});
