import pg from 'pg';
import { SynapseError, isSynapseError } from '../errors.js';
import { redactUrl } from '../redact.js';
import { trustExtraCaCerts } from '../extra-ca-certs.js';

/**
 * A PostgreSQL store database (issue 22): node-postgres's pool, versioned migrations per store
 * component, transactions, and what a lost connection means. This module (and `pg`) is loaded
 * only when a `postgres://` store URL is configured.
 *
 * Failures: a connection that cannot be had is retried with backoff, then reported as
 * `store_unavailable` naming the server (password hidden). A transaction that fails before its
 * COMMIT is rolled back by the server, so it is retried as a whole (also on a serialization
 * failure or deadlock); a connection lost during COMMIT leaves the outcome unknown, which is
 * reported as such: a write is never reported as done unless COMMIT answered.
 */

export interface PgMigration {
  /** The component's schema version this migration brings the database to (1, 2, …). */
  version: number;
  sql: string;
}

/** Runs one statement inside the current transaction (or alone) and returns its rows. */
export type Query = <T = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<T[]>;

export interface PgDbOptions {
  /** How long to keep retrying a connection before giving up (ms). */
  retryForMs?: number;
  /** Connections in the pool. */
  max?: number;
}

/** Network-level and server-going-away failures: worth a retry. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up)
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);
/** serialization_failure, deadlock_detected: the transaction may simply run again. */
const RETRY_TX_CODES = new Set(['40001', '40P01']);

function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (typeof e?.code === 'string' && CONNECTION_CODES.has(e.code)) return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i.test(
    e?.message ?? '',
  );
}

interface TxOptions {
  /** Only reads (a retry after a lost connection is always safe). */
  readOnly?: boolean;
  /** With readOnly: no BEGIN/COMMIT around `fn`. */
  plain?: boolean;
  /** `fn` runs one write statement that commits by itself (no BEGIN/COMMIT round trips). */
  autocommit?: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class PgDb {
  readonly shown: string;
  private readonly pool: pg.Pool;
  private readonly retryForMs: number;
  private closed = false;

  constructor(url: string, options: PgDbOptions = {}) {
    this.shown = redactUrl(url);
    this.retryForMs = options.retryForMs ?? 10_000;
    // The URL or the server may ask for TLS (sslmode, PGSSLMODE).
    trustExtraCaCerts();
    this.pool = new pg.Pool({
      connectionString: url,
      max: options.max ?? 4,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 10_000,
      application_name: 'synapse',
    });
    // An idle client losing its connection must not crash the process; the next use reconnects.
    this.pool.on('error', () => {});
  }

  /** One read outside a transaction; retried while the server cannot be reached. */
  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.tx((q) => q<T>(sql, params), { readOnly: true, plain: true });
  }

  /**
   * `fn` inside BEGIN … COMMIT on one connection. `fn` may run more than once (a retry after a
   * lost connection or a serialization failure), so it must do nothing but queries.
   */
  async tx<T>(fn: (q: Query) => Promise<T>, options: TxOptions = {}): Promise<T> {
    const started = Date.now();
    let delay = 50;
    let attempts = 0;
    for (;;) {
      attempts++;
      let phase: 'connect' | 'body' | 'commit' = 'connect';
      let client: pg.PoolClient | null = null;
      try {
        client = await this.pool.connect();
        phase = 'body';
        const c = client;
        const q: Query = async <R>(sql: string, params: unknown[] = []) => (await c.query(sql, params)).rows as R[];
        let result: T;
        if (options.plain && options.readOnly) {
          result = await fn(q);
        } else if (options.autocommit) {
          // One statement that commits itself: once it is sent, a lost connection leaves its outcome unknown.
          phase = 'commit';
          result = await fn(q);
        } else {
          await c.query(options.readOnly ? 'BEGIN READ ONLY' : 'BEGIN');
          try {
            result = await fn(q);
          } catch (err) {
            await c.query('ROLLBACK').catch(() => {});
            throw err;
          }
          phase = 'commit';
          await c.query('COMMIT');
        }
        client.release();
        return result;
      } catch (err) {
        const lost = isConnectionError(err);
        client?.release(lost ? (err as Error) : undefined);
        if (isSynapseError(err)) throw err;
        if (lost && phase === 'commit' && !options.readOnly) {
          throw new SynapseError(
            'store_unavailable',
            `the connection to PostgreSQL at ${this.shown} was lost while committing; the write may or may not have been applied: check with synapse store status and the data before repeating it`,
            { store: this.shown, outcome: 'unknown' },
          );
        }
        const retryable = lost || RETRY_TX_CODES.has((err as { code?: string }).code ?? '');
        const elapsed = Date.now() - started;
        if (retryable && elapsed + delay <= this.retryForMs && !this.closed) {
          await sleep(delay);
          delay = Math.min(delay * 2, 1_000);
          continue;
        }
        if (lost) {
          throw new SynapseError(
            'store_unavailable',
            `cannot reach the PostgreSQL store at ${this.shown}: ${(err as Error).message} (tried ${attempts} times over ${(elapsed / 1000).toFixed(1)} s); nothing was written. Check that the server runs and the URL (SYNAPSE_STORE_URL or settings store.url), then try again`,
            { store: this.shown, attempts },
          );
        }
        throw this.wrap(err);
      }
    }
  }

  /** Brings `component`'s tables to the newest version, once, whichever process comes first. */
  async migrate(component: string, migrations: PgMigration[]): Promise<{ from: number; to: number }> {
    const sorted = [...migrations].sort((a, b) => a.version - b.version);
    const target = sorted.at(-1)?.version ?? 0;
    const current = await this.schemaVersion(component);
    if (current >= target) return { from: current, to: current };
    return this.tx(async (q) => {
      // One migrator at a time across every host; the version is read again under the lock.
      await q(`SELECT pg_advisory_xact_lock(hashtext('synapse_schema'))`);
      await q(
        `CREATE TABLE IF NOT EXISTS synapse_schema (component TEXT PRIMARY KEY, version INTEGER NOT NULL, migrated_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
      );
      const rows = await q<{ version: number }>(`SELECT version FROM synapse_schema WHERE component = $1`, [component]);
      const from = rows[0]?.version ?? 0;
      for (const m of sorted) {
        if (m.version <= from) continue;
        await q(m.sql);
      }
      await q(
        `INSERT INTO synapse_schema (component, version) VALUES ($1, $2)
         ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version, migrated_at = now()`,
        [component, target],
      );
      return { from, to: Math.max(from, target) };
    });
  }

  /** 0 when the component was never migrated here. */
  async schemaVersion(component: string): Promise<number> {
    return this.tx(
      async (q) => {
        const [table] = await q<{ t: string | null }>(`SELECT to_regclass('synapse_schema')::text AS t`);
        if (!table?.t) return 0;
        const rows = await q<{ version: number }>(`SELECT version FROM synapse_schema WHERE component = $1`, [component]);
        return rows[0]?.version ?? 0;
      },
      { readOnly: true, plain: true },
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  private wrap(err: unknown): unknown {
    const e = err as { code?: string; message?: string };
    if (typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) {
      return new SynapseError('database_error', `PostgreSQL store ${this.shown}: ${e.message ?? e.code}`, { store: this.shown, sqlstate: e.code });
    }
    return err;
  }
}

/**
 * One short-lived connection for an administrative command (`synapse store status|migrate`):
 * runs `fn` on it and closes it, also when `fn` throws.
 */
export async function withPgDb<T>(url: string, options: { retryForMs?: number }, fn: (db: PgDb) => Promise<T>): Promise<T> {
  const db = new PgDb(url, { retryForMs: options.retryForMs, max: 1 });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** `synapse store migrate` for one component: brings its tables to the newest version. */
export function migrateComponent(
  url: string,
  component: string,
  migrations: PgMigration[],
  options: { retryForMs?: number } = {},
): Promise<{ from: number; to: number }> {
  return withPgDb(url, options, (db) => db.migrate(component, migrations));
}
