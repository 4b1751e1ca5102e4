import fs from 'node:fs';
import path from 'node:path';
import { registryDir, type Env } from '../config/paths.js';
import { isSynapseError } from '../errors.js';
import { hostName } from '../registry/host.js';
import { openRegistry } from '../registry/lookup.js';
import { BOARD_MIGRATIONS } from './board-schema.js';
import { FILE_SAFETY_MIGRATIONS } from './file-safety-schema.js';
import { HISTORY_MIGRATIONS, historyDbPath } from './history-schema.js';
import { HISTORY_PG_MIGRATIONS } from './history-pg-schema.js';
import { MEMORY_MIGRATIONS } from './memory-schema.js';
import { boardDbPath, fileSafetyDbPath, memoryDbPath } from './settings.js';
import { storeTarget, type StoreTarget } from './store-url.js';

/**
 * Components still kept in local files whatever the store URL says: none since issue 22's history
 * and registry phases (with a PostgreSQL store every agent is also in its table). Kept in the
 * status so scripts reading `local_only` keep working.
 */
const LOCAL_ONLY: readonly string[] = [];

interface ComponentStatus {
  schema_version: number;
  latest_version: number;
  rows: Record<string, number>;
  created: boolean;
}

/**
 * The registry: with a PostgreSQL store its table (`synapse_agents`, live agents per host); on
 * SQLite this host's registry files (there is no table: `schema_version` 0, `created` false).
 */
interface RegistryStatus extends ComponentStatus {
  /** `table synapse_agents`, or the registry directory. */
  location: string;
  /** Live agents per host. */
  hosts: Record<string, number>;
}

export interface StoreStatus {
  backend: 'sqlite' | 'postgres';
  /** The project's .synapse/ board file, or the database URL with its password hidden. */
  location: string;
  health: { ok: boolean; latency_ms: number | null; server_version: string | null; error: string | null; code: string | null };
  /** history on SQLite is the user's file (`location` names it), not the project's. */
  components: {
    board: ComponentStatus;
    memory: ComponentStatus;
    file_safety: ComponentStatus;
    history: ComponentStatus & { location?: string };
    registry: RegistryStatus;
  };
  local_only: readonly string[];
}

export interface MigrateResult {
  backend: 'sqlite' | 'postgres';
  location: string;
  components: {
    board: { from: number; to: number };
    memory: { from: number; to: number };
    file_safety: { from: number; to: number };
    history: { from: number; to: number };
    /** PostgreSQL only: SQLite has no registry table (the registry is this host's files). */
    registry?: { from: number; to: number };
  };
}

/** This host's live registry files (dead entries pruned on the way, as `synapse list` does). */
function localRegistry(env: Env): RegistryStatus {
  const n = openRegistry(env).scanLive().entries.length;
  return { schema_version: 0, latest_version: 0, rows: { agents: n }, created: false, location: registryDir(env), hosts: n > 0 ? { [hostName(env)]: n } : {} };
}

const empty = (latest: number, rows: Record<string, number>): ComponentStatus => ({ schema_version: 0, latest_version: latest, rows, created: false });

/** Schema version and row counts of one SQLite file, read-only; null when the file does not exist. */
async function sqliteComponent(file: string, latest: number, tables: Record<string, string>): Promise<ComponentStatus | null> {
  if (!fs.existsSync(file)) return null;
  const { openDatabase } = await import('./sqlite.js');
  const db = openDatabase(file, [], { readonly: true });
  try {
    const rows: Record<string, number> = {};
    for (const [name, table] of Object.entries(tables)) rows[name] = (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { schema_version: db.pragma('user_version', { simple: true }) as number, latest_version: latest, rows, created: true };
  } finally {
    db.close();
  }
}

/** Backend, schema versions, row counts and connection health; never creates or migrates anything. */
export async function storeStatus(projectDir: string, options: { env: Env; target?: StoreTarget; retryForMs?: number }): Promise<StoreStatus> {
  const t = options.target ?? storeTarget(projectDir, options.env);
  const status: StoreStatus = {
    backend: t.backend,
    location: t.backend === 'sqlite' ? boardDbPath(projectDir) : t.shown,
    health: { ok: t.backend === 'sqlite', latency_ms: null, server_version: null, error: null, code: null },
    components: {
      board: empty(BOARD_MIGRATIONS.at(-1)!.version, { tasks: 0, task_deps: 0 }),
      memory: empty(MEMORY_MIGRATIONS.at(-1)!.version, { notes: 0 }),
      file_safety: empty(FILE_SAFETY_MIGRATIONS.at(-1)!.version, { locks: 0, changes: 0 }),
      history: empty((t.backend === 'sqlite' ? HISTORY_MIGRATIONS : HISTORY_PG_MIGRATIONS).at(-1)!.version, { entries: 0 }),
      registry: t.backend === 'sqlite' ? localRegistry(options.env) : { ...empty(0, { agents: 0 }), location: 'table synapse_agents', hosts: {} },
    },
    local_only: LOCAL_ONLY,
  };
  try {
    if (t.backend === 'sqlite') {
      const board = await sqliteComponent(boardDbPath(projectDir), status.components.board.latest_version, { tasks: 'tasks', task_deps: 'task_deps' });
      const memory = await sqliteComponent(memoryDbPath(projectDir, options.env), status.components.memory.latest_version, { notes: 'memories' });
      const files = await sqliteComponent(fileSafetyDbPath(projectDir, options.env), status.components.file_safety.latest_version, {
        locks: 'locks',
        changes: 'changes',
      });
      if (board) status.components.board = board;
      if (memory) status.components.memory = memory;
      if (files) status.components.file_safety = files;
      const history = await sqliteComponent(historyDbPath(options.env), status.components.history.latest_version, { entries: 'history' });
      status.components.history = { ...(history ?? status.components.history), location: historyDbPath(options.env) };
      return status;
    }
    const { pgStoreStatus } = await import('./board-pg.js');
    const s = await pgStoreStatus(t.url, { retryForMs: options.retryForMs });
    status.health = { ok: true, latency_ms: s.latency_ms, server_version: s.server_version, error: null, code: null };
    status.components.board = { ...s.board, created: s.board.schema_version > 0 };
    status.components.memory = { ...s.memory, latest_version: 1, created: s.memory.schema_version > 0 };
    const { pgFileSafetyStatus } = await import('./file-safety-pg.js');
    const f = await pgFileSafetyStatus(t.url, { retryForMs: options.retryForMs });
    status.components.file_safety = { ...f, created: f.schema_version > 0 };
    const { pgHistoryStatus } = await import('./history-pg.js');
    const h = await pgHistoryStatus(t.url, { retryForMs: options.retryForMs });
    status.components.history = { ...h, created: h.schema_version > 0 };
    const { pgRegistryStatus } = await import('./registry-pg.js');
    const r = await pgRegistryStatus(t.url, { retryForMs: options.retryForMs });
    status.components.registry = { ...r, created: r.schema_version > 0, location: 'table synapse_agents' };
  } catch (err) {
    status.health = {
      ok: false,
      latency_ms: null,
      server_version: null,
      error: (err as Error).message,
      code: isSynapseError(err) ? err.code : 'database_error',
    };
  }
  return status;
}

/** Runs the migrations of every store component on the configured backend. */
export async function migrateStore(projectDir: string, options: { env: Env; target?: StoreTarget; retryForMs?: number }): Promise<MigrateResult> {
  const t = options.target ?? storeTarget(projectDir, options.env);
  if (t.backend === 'sqlite') {
    const { openDatabase } = await import('./sqlite.js');
    const migrate = (file: string, migrations: typeof BOARD_MIGRATIONS) => {
      const before = fs.existsSync(file) ? openDatabase(file, [], { readonly: true }) : null;
      const from = before ? (before.pragma('user_version', { simple: true }) as number) : 0;
      before?.close();
      const db = openDatabase(file, migrations);
      const to = db.pragma('user_version', { simple: true }) as number;
      db.close();
      return { from, to };
    };
    return {
      backend: 'sqlite',
      location: boardDbPath(projectDir),
      components: {
        board: migrate(boardDbPath(projectDir), BOARD_MIGRATIONS),
        memory: migrate(memoryDbPath(projectDir, options.env), MEMORY_MIGRATIONS),
        file_safety: migrate(fileSafetyDbPath(projectDir, options.env), FILE_SAFETY_MIGRATIONS),
        history: migrateHistory(options.env, migrate),
      },
    };
  }
  const [{ pgStoreMigrate }, { pgMemoryMigrate }, { pgFileSafetyMigrate }, { pgHistoryMigrate }, { pgRegistryMigrate }] = await Promise.all([
    import('./board-pg.js'),
    import('./memory-pg.js'),
    import('./file-safety-pg.js'),
    import('./history-pg.js'),
    import('./registry-pg.js'),
  ]);
  return {
    backend: 'postgres',
    location: t.shown,
    components: {
      board: await pgStoreMigrate(t.url, { retryForMs: options.retryForMs }),
      memory: await pgMemoryMigrate(t.url, { retryForMs: options.retryForMs }),
      file_safety: await pgFileSafetyMigrate(t.url, { retryForMs: options.retryForMs }),
      history: await pgHistoryMigrate(t.url, { retryForMs: options.retryForMs }),
      registry: await pgRegistryMigrate(t.url, { retryForMs: options.retryForMs }),
    },
  };
}

/** The user's history file, made private as HistoryStore makes it (it holds every conversation). */
function migrateHistory(
  env: Env,
  migrate: (file: string, migrations: typeof HISTORY_MIGRATIONS) => { from: number; to: number },
): { from: number; to: number } {
  const file = historyDbPath(env);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  return migrate(file, HISTORY_MIGRATIONS);
}
