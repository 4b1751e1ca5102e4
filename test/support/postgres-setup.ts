// Vitest global setup for the suites that need PostgreSQL (test/contract/**): starts a private
// server for the run (test/support/postgres.ts) and stops it afterwards, also when tests fail.
// SYNAPSE_TEST_POSTGRES_URL points at an existing server instead (a database the tests may
// create databases in). When no server can be had, the reason is handed to the tests, which
// then skip with that reason printed; in CI (CI=true) the run fails instead, since there the
// Postgres tests must run.
import type { TestProject } from 'vitest/node';
import { startPostgres } from './postgres-server.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Admin URL of the run's PostgreSQL server, or '' when none could be started. */
    pgUrl: string;
    /** Why there is no server (empty when there is one). */
    pgUnavailable: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const given = process.env.SYNAPSE_TEST_POSTGRES_URL;
  if (given) {
    project.provide('pgUrl', given);
    project.provide('pgUnavailable', '');
    return () => {};
  }
  const started = await startPostgres();
  if (!started.ok) {
    if (process.env.CI === 'true') throw new Error(`PostgreSQL tests must run in CI, but no server could be started: ${started.reason}`);
    process.stderr.write(`\nPostgreSQL tests will be SKIPPED: ${started.reason}\n`);
    project.provide('pgUrl', '');
    project.provide('pgUnavailable', started.reason);
    return () => {};
  }
  const server = started.server;
  // Stop the server even when the run is interrupted.
  const onSignal = () => {
    server.stop();
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  project.provide('pgUrl', server.url);
  project.provide('pgUnavailable', '');
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    server.stop();
  };
}
