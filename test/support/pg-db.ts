// A fresh PostgreSQL database per test file, on the run's server (test/support/postgres-setup.ts).
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import pg from 'pg';

/** Why the Postgres tests cannot run here ('' when they can). */
export function postgresUnavailable(): string {
  return inject('pgUnavailable') || (inject('pgUrl') ? '' : 'no PostgreSQL server was provided to this run');
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Creates an empty database; returns its URL and a `drop` that removes it. */
export async function freshDatabase(prefix = 'synapse_test'): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = inject('pgUrl');
  if (!admin) throw new Error(`PostgreSQL unavailable: ${postgresUnavailable()}`);
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return {
    url: withDatabase(admin, name),
    drop: async () => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * Empties a contract suite's tables between tests, once its migrations have created them
 * (`tables` in the order TRUNCATE takes them; `how` e.g. 'RESTART IDENTITY' or 'CASCADE').
 */
export async function emptyTables(url: string, tables: string[], how: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`DO $$ BEGIN IF to_regclass('${tables[0]}') IS NOT NULL THEN TRUNCATE ${tables.join(', ')} ${how}; END IF; END $$`);
  } finally {
    await c.end();
  }
}
