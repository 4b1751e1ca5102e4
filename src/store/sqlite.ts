import fs from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { requireCjs } from '../require-cjs.js';
import { SynapseError } from '../errors.js';

const Database = requireCjs('better-sqlite3') as typeof BetterSqlite3;

export type Db = BetterSqlite3.Database;

export interface Migration {
  /** Schema version this migration brings the file to; versions start at 1 and increase by 1. */
  version: number;
  sql: string;
}

/**
 * Each connection's page cache, in KiB (negative: SQLite's unit for a size in KiB): 512 KiB.
 * better-sqlite3 builds SQLite with 16 MiB, and the cache fills as a database grows: an agent's
 * task database grows ~1.5 KiB a message, so its RSS grew ~2 MiB per 1,000 messages until 16 MiB
 * per connection, and at SQLite's own default (2 MiB) an agent still held ~1 MiB more after
 * 1,000 messages than at 512 KiB (guides/agent-runtime.md, "Memory"). A page the cache does not
 * hold is read from the OS's cache of the file: a system call, not a disk read.
 */
const PAGE_CACHE_KIB = -512;

/**
 * Opens a SQLite file the way every Synapse store does: WAL, a busy timeout so concurrent
 * writers wait instead of failing, foreign keys on, a 512 KiB page cache, and versioned migrations run once under
 * an immediate transaction (whichever process opens the file first runs them).
 */
export function openDatabase(file: string, migrations: Migration[], options: { readonly?: boolean } = {}): Db {
  let db: Db;
  try {
    if (!options.readonly) createPrivate(file);
    db = new Database(file, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
    db.pragma('busy_timeout = 5000');
    // Deleted and replaced content is overwritten, not left in free pages (redacted secrets stay gone).
    db.pragma('secure_delete = ON');
    if (!options.readonly) db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    db.pragma(`cache_size = ${PAGE_CACHE_KIB}`);
    if (!options.readonly) migrate(db, migrations);
  } catch (err) {
    throw new SynapseError('database_error', `cannot open database ${file}: ${(err as Error).message}`, { file });
  }
  return db;
}

/**
 * Data at rest is the user's alone: a new database file is created 0600 (SQLite gives its -wal
 * and -shm files the same mode) in a directory created 0700. Existing files keep their mode.
 */
function createPrivate(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // 'a' creates the file when it is missing and leaves an existing one as it is.
  fs.closeSync(fs.openSync(file, 'a', 0o600));
}

function migrate(db: Db, migrations: Migration[]): void {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  const target = sorted.at(-1)?.version ?? 0;
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current >= target) return;
  db.transaction(() => {
    // Re-read inside the write lock: another process may have migrated meanwhile.
    const now = db.pragma('user_version', { simple: true }) as number;
    for (const m of sorted) {
      if (m.version <= now) continue;
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    }
  }).immediate();
}
