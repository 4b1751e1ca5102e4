// The e2e suite: real agent CLIs (test/e2e/clis) against the offline mock model server.
// One file at a time (two cores; each test runs one or two real CLIs), generous deadlines.
//   npx vitest run --config test/e2e/vitest.config.ts   (builds first when dist/ is stale)
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('../../', import.meta.url)),
  test: {
    include: ['test/e2e/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    isolate: true,
    // The agents under test run bin/synapse.js -> dist/: build first when dist/ is older than src/.
    globalSetup: ['test/support/build-fresh.ts'],
  },
});
