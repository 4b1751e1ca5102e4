import type { Clock } from '../clock.js';
import type { Env } from '../config/paths.js';
import type { FileSafety } from './file-safety-api.js';
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
  /** PostgreSQL: this machine's name as lock rows record it (default os.hostname()). */
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
    return PgFileSafety.open(target.url, { baseDir: projectDir, clock: options.clock, retryForMs: options.retryForMs, isAlive: options.isAlive, host: options.host });
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
