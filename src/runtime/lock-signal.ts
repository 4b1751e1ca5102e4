import type { Env } from '../config/paths.js';
import { hasActiveLocks, locksHeldBy } from '../store/file-safety.js';
import type { FileSafety } from '../store/file-safety-api.js';
import { fileSafetyEnabled } from '../store/settings.js';
import { storeTarget } from '../store/store-url.js';
import type { AgentStatusModel } from './agent-status.js';

/** Locks are taken by other processes (`synapse file-safety lock`), so the agent looks. */
const POLL_MS = 2_000;

export interface LockSignal {
  /** Reads now (SQLite: before returning; PostgreSQL: starts a read, the status follows when it answers). */
  refresh(): void;
  /** Does the agent hold a lock? An unreadable store counts as held (fail closed). */
  held(): boolean;
  stop(): void;
}

function onPostgres(cwd: string, env: Env): boolean {
  try {
    return storeTarget(cwd, env).backend === 'postgres';
  } catch {
    return false;
  }
}

/**
 * Feeds the compound status: how many file-safety locks this agent holds. `refresh()` reads now
 * (called before a READY screen is reported, so READY never flashes while locks are held); a
 * timer reads every 2 s for locks taken or released while the screen stays quiet. An unreadable
 * database changes nothing: the last count stands until it can be read again.
 *
 * With a PostgreSQL store the read is asynchronous over one store kept open: `held()` answers
 * from the last count (unknown until the first read answers, which counts as held).
 */
export function startLockSignal(cwd: string, agentId: string, env: Env, status: AgentStatusModel): LockSignal {
  if (!onPostgres(cwd, env) || !fileSafetyEnabled(env)) return sqliteSignal(cwd, agentId, env, status);
  let count: number | null = null;
  let reading = false;
  let stopped = false;
  let store: Promise<FileSafety> | null = null;
  const refresh = (): void => {
    if (reading || stopped) return;
    reading = true;
    store ??= import('../store/file-safety-store.js').then((m) => m.openFileSafety(cwd, { env }));
    store
      .then((s) => s.locks({ agent: agentId }))
      .then((locks) => {
        count = locks.length;
        status.setLocksHeld(count);
      })
      .catch(() => {
        // Unreachable for a moment (or the open failed: try opening again): the next poll tries again.
        store?.then((s) => s.close()).catch(() => {});
        store = null;
      })
      .finally(() => (reading = false));
  };
  const timer = setInterval(refresh, POLL_MS);
  timer.unref();
  refresh();
  return {
    refresh,
    held: () => count !== 0,
    stop: () => {
      stopped = true;
      clearInterval(timer);
      store?.then((s) => s.close()).catch(() => {});
    },
  };
}

function sqliteSignal(cwd: string, agentId: string, env: Env, status: AgentStatusModel): LockSignal {
  const refresh = (): void => {
    try {
      status.setLocksHeld(locksHeldBy(cwd, agentId, env).length);
    } catch {
      // Busy or unreadable for a moment: the next poll tries again.
    }
  };
  const timer = setInterval(refresh, POLL_MS);
  timer.unref();
  const held = (): boolean => {
    try {
      return hasActiveLocks(cwd, agentId, env);
    } catch {
      return true;
    }
  };
  return { refresh, held, stop: () => clearInterval(timer) };
}
