// A fresh PostgreSQL database per test file, on the run's server (test/support/postgres-setup.ts).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import pg from 'pg';
import type { StoreTarget } from '../../src/store/store-url.js';

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
async function emptyTables(url: string, tables: string[], how: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`DO $$ BEGIN IF to_regclass('${tables[0]}') IS NOT NULL THEN TRUNCATE ${tables.join(', ')} ${how}; END IF; END $$`);
  } finally {
    await c.end();
  }
}

/**
 * One side of a store contract suite: SQLite in a fresh temp project per test, or a fresh
 * PostgreSQL database for the file whose tables are emptied between tests. `dir` is the project
 * (and HOME) directory a suite opens its store from.
 */
export interface ContractBackend {
  name: 'sqlite' | 'postgres';
  /** Why the suite is skipped ('' when it runs). */
  skip: string;
  setup(): Promise<void>;
  /** An empty store for one test. */
  reset(): Promise<void>;
  target(): StoreTarget;
  dir(): string;
  teardown(): Promise<void>;
}

/** SQLite: a new temp directory for each test. */
export function sqliteContract(prefix: string): ContractBackend {
  let dir = '';
  const remove = () => dir && fs.rmSync(dir, { recursive: true, force: true });
  return {
    name: 'sqlite',
    skip: '',
    async setup() {},
    async reset() {
      remove();
      dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-contract-`));
    },
    target: () => ({ backend: 'sqlite' }),
    dir: () => dir,
    async teardown() {
      remove();
    },
  };
}

/** PostgreSQL: one database for the file (`database` names it), its `tables` emptied (`how`) between tests. */
export function postgresContract(prefix: string, database: string, tables: string[], how: string): ContractBackend {
  let db: { url: string; drop: () => Promise<void> } | null = null;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-contract-pg-`));
  return {
    name: 'postgres',
    skip: postgresUnavailable(),
    async setup() {
      db = await freshDatabase(database);
    },
    async reset() {
      await emptyTables(db!.url, tables, how);
    },
    target: () => ({ backend: 'postgres', url: db!.url, shown: db!.url.replace(/:[^:@/]+@/, ':***@') }),
    dir: () => dir,
    async teardown() {
      await db?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
