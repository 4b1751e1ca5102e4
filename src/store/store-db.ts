import type { Statement, Transaction } from 'better-sqlite3';
import { openDatabase, type Db, type Migration } from './sqlite.js';
import { SynapseError, isSynapseError } from '../errors.js';

/** The part of a connection store code uses; `prepare` returns cached statements. */
export type Sql = Pick<Db, 'prepare' | 'pragma'>;

/**
 * A shared-store file opened through `openDatabase`, plus `run`/`write` wrappers that turn
 * SQLite failures (busy past the timeout, corruption found mid-query, disk full) into a
 * `database_error` naming the file, so a broken store never looks like an empty one.
 */
export class StoreDb {
  readonly db: Db;
  readonly file: string;
  /** What store code queries through: `prepare` is cached, since parsing SQL on every call costs more than running it. */
  readonly sql: Sql;
  private readonly statements = new Map<string, Statement>();
  private readonly transaction: Transaction<(fn: (sql: Sql) => unknown) => unknown>;

  constructor(file: string, migrations: Migration[]) {
    this.file = file;
    this.db = openDatabase(file, migrations);
    const db = this.db;
    const statements = this.statements;
    this.sql = {
      prepare(source: string): Statement {
        let stmt = statements.get(source);
        if (!stmt) {
          stmt = db.prepare(source);
          statements.set(source, stmt);
        }
        return stmt;
      },
      pragma: (source, options) => db.pragma(source, options),
    } as Sql;
    // Built once: better-sqlite3 prepares BEGIN/COMMIT for each transaction function it makes.
    this.transaction = db.transaction((fn: (sql: Sql) => unknown) => fn(this.sql));
  }

  /** A plain read (or a single self-contained statement). */
  run<T>(fn: (sql: Sql) => T): T {
    try {
      return fn(this.sql);
    } catch (err) {
      throw this.wrap(err);
    }
  }

  /** A read-modify-write under `BEGIN IMMEDIATE`: the write lock is taken before the first read. */
  write<T>(fn: (sql: Sql) => T): T {
    try {
      return this.transaction.immediate(fn) as T;
    } catch (err) {
      throw this.wrap(err);
    }
  }

  schemaVersion(): number {
    return this.run((db) => db.pragma('user_version', { simple: true }) as number);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  private wrap(err: unknown): unknown {
    if (isSynapseError(err)) return err;
    const e = err as { code?: string; message?: string };
    if (typeof e?.code === 'string' && e.code.startsWith('SQLITE')) {
      return new SynapseError('database_error', `database ${this.file}: ${e.message ?? e.code}`, { file: this.file, sqlite_code: e.code });
    }
    return err;
  }
}
