import type { Clock } from '../clock.js';
import type { Env } from '../config/paths.js';
import { hostName } from '../registry/host.js';
import type { FileSafety } from './file-safety-api.js';
import type { FileChange, FileLock, WriteCheck } from './file-safety-schema.js';
import { fileSafetyEnabled } from './settings.js';
import { storeTarget, type StoreTarget } from './store-url.js';

export type { FileSafety } from './file-safety-api.js';

export interface OpenFileSafetyOptions {
  /** The effective environment (SYNAPSE_STORE_URL, SYNAPSE_FILE_SAFETY_DB_PATH). */
  env: Env;
  clock?: Clock;
  /** Chosen already (tests, `synapse store`); overrides env and settings. */
  target?: StoreTarget;
  /** PostgreSQL: how long a lost connection is retried before the call fails. */
  retryForMs?: number;
  /** Replaced in tests; the real check is `kill(pid, 0)`. */
  isAlive?: (pid: number) => boolean;
  /** PostgreSQL: this machine's name as lock rows record it (default SYNAPSE_HOST_NAME, else os.hostname()). */
  host?: string;
}

/**
 * Opens the project's file locks and change records on the configured backend (SYNAPSE_STORE_URL /
 * settings store.url); better-sqlite3 or pg is loaded only now.
 */
export async function openFileSafety(projectDir: string, options: OpenFileSafetyOptions): Promise<FileSafety> {
  const target = options.target ?? storeTarget(projectDir, options.env);
  if (target.backend === 'postgres') {
    const { PgFileSafety } = await import('./file-safety-pg.js');
    return PgFileSafety.open(target.url, {
      baseDir: projectDir,
      clock: options.clock,
      retryForMs: options.retryForMs,
      isAlive: options.isAlive,
      host: options.host ?? hostName(options.env),
    });
  }
  const [{ FileSafetyStore }, { SqliteFileSafety }] = await Promise.all([import('./file-safety.js'), import('./file-safety-sqlite.js')]);
  return new SqliteFileSafety(FileSafetyStore.forProject(projectDir, options.env, { clock: options.clock, isAlive: options.isAlive }));
}

/** Opens the project's file-safety store, runs `fn`, and closes it again, even when `fn` throws. */
export async function withFileSafety<T>(projectDir: string, options: OpenFileSafetyOptions, fn: (s: FileSafety) => T | Promise<T>): Promise<T> {
  const store = await openFileSafety(projectDir, options);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

// ── one-call helpers for code that holds no store open (hooks, status, trace, retention) ────
// On SQLite they read the file only when it exists (src/store/file-safety.ts); on PostgreSQL they ask the database.

function onPostgres(projectDir: string, env: Env): boolean {
  return storeTarget(projectDir, env).backend === 'postgres';
}

/** Live locks held by an agent (for `synapse status` and the agent's lock signal). */
export async function locksHeldBy(projectDir: string, agentId: string, env: Env): Promise<FileLock[]> {
  if (!onPostgres(projectDir, env)) return (await import('./file-safety.js')).locksHeldBy(projectDir, agentId, env);
  if (!fileSafetyEnabled(env)) return [];
  return withFileSafety(projectDir, { env }, (s) => s.locks({ agent: agentId }));
}

/** File changes recorded with `--task <taskId>` (for `synapse trace`). */
export async function changesForTask(projectDir: string, taskId: string, env: Env): Promise<FileChange[]> {
  if (!onPostgres(projectDir, env)) return (await import('./file-safety.js')).changesForTask(projectDir, taskId, env);
  if (!fileSafetyEnabled(env)) return [];
  return withFileSafety(projectDir, { env }, (s) => s.changesForTask(taskId));
}

/** Retention: change records older than `days` and every stale lock go; null when there is no SQLite file yet. */
export async function purgeFileSafety(projectDir: string, env: Env, days: number): Promise<{ changes_deleted: number; locks_reaped: number } | null> {
  if (!onPostgres(projectDir, env)) return (await import('./file-safety.js')).purgeFileSafety(projectDir, env, days);
  if (!fileSafetyEnabled(env)) return null;
  return withFileSafety(projectDir, { env }, (s) => s.cleanup(days));
}

/**
 * Fail-closed write check for hooks and `validate`: never throws. A store that cannot be read
 * (or reached) denies the write and says why; nothing ever locked allows it.
 */
export async function validateWrite(projectDir: string, filePath: string, agent: string, env: Env): Promise<WriteCheck> {
  const sqlite = await import('./file-safety.js');
  let postgres: boolean;
  try {
    postgres = onPostgres(projectDir, env);
  } catch (err) {
    const path = sqlite.normalizeFilePath(filePath, projectDir);
    return { allowed: false, path, holder: null, reason: `file-safety store misconfigured, denying writes: ${(err as Error).message}` };
  }
  if (!postgres || !fileSafetyEnabled(env)) return sqlite.validateWrite(projectDir, filePath, agent, env);
  try {
    // A hook waits for this before the write goes on: a store that cannot be reached is refused after seconds, not ten.
    return await withFileSafety(projectDir, { env, retryForMs: 3_000 }, (s) => s.check(filePath, agent));
  } catch (err) {
    const path = sqlite.normalizeFilePath(filePath, projectDir);
    return { allowed: false, path, holder: null, reason: `file-safety store unreadable, denying writes: ${(err as Error).message}` };
  }
}
