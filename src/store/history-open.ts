import type { Clock } from '../clock.js';
import type { Env } from '../config/paths.js';
import { secretRedactor } from '../redact.js';
import { hostName } from '../registry/host.js';
import type { History } from './history-api.js';
import { storeTarget, type StoreTarget } from './store-url.js';

export type { History } from './history-api.js';

interface OpenOptions {
  env: Env;
  target?: StoreTarget;
  clock?: Clock;
  retryForMs?: number;
  /** PostgreSQL: the machine name rows record (default SYNAPSE_HOST_NAME, else os.hostname()). */
  host?: string;
}

/**
 * Which history a project uses (issue 22): with a PostgreSQL store configured for it
 * (SYNAPSE_STORE_URL / settings store.url), the team's history in that database; otherwise the
 * user's own file, `~/.synapse/history/history.db`, as before. better-sqlite3 or pg loads only now.
 */
export async function openHistory(projectDir: string, options: OpenOptions): Promise<History> {
  return (await open(projectDir, options, false))!;
}

/** As openHistory, but null when the local file was never created (reading creates no file). */
export async function openExistingHistory(projectDir: string, options: OpenOptions): Promise<History | null> {
  return open(projectDir, options, true);
}

async function open(projectDir: string, options: OpenOptions, existingOnly: boolean): Promise<History | null> {
  const target = options.target ?? storeTarget(projectDir, options.env);
  const redact = secretRedactor(options.env);
  if (target.backend === 'postgres') {
    const { PgHistory } = await import('./history-pg.js');
    return PgHistory.open(target.url, { redact, clock: options.clock, retryForMs: options.retryForMs, host: options.host ?? hostName(options.env) });
  }
  const [{ HistoryStore }, { SqliteHistory }] = await Promise.all([import('./history.js'), import('./history-sqlite.js')]);
  const clock = options.clock ? { clock: options.clock } : {};
  const store = existingOnly ? HistoryStore.openExisting(options.env, clock) : HistoryStore.open(options.env, clock);
  return store ? new SqliteHistory(store) : null;
}
