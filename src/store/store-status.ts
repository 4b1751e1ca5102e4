import fs from 'node:fs';
import type { Env } from '../config/paths.js';
import { isSynapseError } from '../errors.js';
import { BOARD_MIGRATIONS } from './board-schema.js';
import { boardDbPath } from './settings.js';
import { storeTarget, type StoreTarget } from './store-url.js';

/** Components still kept in local SQLite files whatever the store URL says (later phases of issue 22). */
const LOCAL_ONLY = ['file-safety', 'memory', 'history', 'registry'] as const;

export interface StoreStatus {
  backend: 'sqlite' | 'postgres';
  /** The board's file, or the database URL with its password hidden. */
  location: string;
  health: { ok: boolean; latency_ms: number | null; server_version: string | null; error: string | null; code: string | null };
  components: { board: { schema_version: number; latest_version: number; rows: Record<string, number>; created: boolean } };
  local_only: readonly string[];
}

export interface MigrateResult {
  backend: 'sqlite' | 'postgres';
  location: string;
  components: { board: { from: number; to: number } };
}

function target(projectDir: string, env: Env, given?: StoreTarget): StoreTarget {
  return given ?? storeTarget(projectDir, env);
}

/** Backend, schema versions, row counts and connection health; never creates or migrates anything. */
export async function storeStatus(projectDir: string, options: { env: Env; target?: StoreTarget; retryForMs?: number }): Promise<StoreStatus> {
  const t = target(projectDir, options.env, options.target);
  const latest = BOARD_MIGRATIONS.at(-1)!.version;
  if (t.backend === 'sqlite') {
    const file = boardDbPath(projectDir);
    const base: StoreStatus = {
      backend: 'sqlite',
      location: file,
      health: { ok: true, latency_ms: null, server_version: null, error: null, code: null },
      components: { board: { schema_version: 0, latest_version: latest, rows: { tasks: 0, task_deps: 0 }, created: false } },
      local_only: LOCAL_ONLY,
    };
    if (!fs.existsSync(file)) return base;
    try {
      const { openDatabase } = await import('./sqlite.js');
      const db = openDatabase(file, [], { readonly: true });
      try {
        const version = db.pragma('user_version', { simple: true }) as number;
        const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
        base.components.board = {
          schema_version: version,
          latest_version: latest,
          rows: { tasks: count('tasks'), task_deps: count('task_deps') },
          created: true,
        };
      } finally {
        db.close();
      }
    } catch (err) {
      base.health = {
        ok: false,
        latency_ms: null,
        server_version: null,
        error: (err as Error).message,
        code: isSynapseError(err) ? err.code : 'database_error',
      };
    }
    return base;
  }
  const { pgStoreStatus } = await import('./board-pg.js');
  const base: StoreStatus = {
    backend: 'postgres',
    location: t.shown,
    health: { ok: false, latency_ms: null, server_version: null, error: null, code: null },
    components: { board: { schema_version: 0, latest_version: latest, rows: { tasks: 0, task_deps: 0 }, created: false } },
    local_only: LOCAL_ONLY,
  };
  try {
    const s = await pgStoreStatus(t.url, { retryForMs: options.retryForMs });
    base.health = { ok: true, latency_ms: s.latency_ms, server_version: s.server_version, error: null, code: null };
    base.components.board = { ...s.board, created: s.board.schema_version > 0 };
  } catch (err) {
    base.health.error = (err as Error).message;
    base.health.code = isSynapseError(err) ? err.code : 'database_error';
  }
  return base;
}

/** Runs the migrations of every store component on the configured backend. */
export async function migrateStore(projectDir: string, options: { env: Env; target?: StoreTarget; retryForMs?: number }): Promise<MigrateResult> {
  const t = target(projectDir, options.env, options.target);
  if (t.backend === 'sqlite') {
    const file = boardDbPath(projectDir);
    const { openDatabase } = await import('./sqlite.js');
    const before = fs.existsSync(file) ? openDatabase(file, [], { readonly: true }) : null;
    const from = before ? (before.pragma('user_version', { simple: true }) as number) : 0;
    before?.close();
    const db = openDatabase(file, BOARD_MIGRATIONS);
    const to = db.pragma('user_version', { simple: true }) as number;
    db.close();
    return { backend: 'sqlite', location: file, components: { board: { from, to } } };
  }
  const { pgStoreMigrate } = await import('./board-pg.js');
  return { backend: 'postgres', location: t.shown, components: await pgStoreMigrate(t.url, { retryForMs: options.retryForMs }) };
}
