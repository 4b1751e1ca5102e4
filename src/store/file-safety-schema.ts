import type { Migration } from './sqlite.js';

/**
 * File-safety schema. v1 holds locks (one row per normalised path, so the primary key itself
 * guarantees one holder) and the change log; v2 adds the indexes for per-agent, per-task and
 * time-ordered queries.
 */
export const FILE_SAFETY_MIGRATIONS: Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE locks (
        path       TEXT PRIMARY KEY,
        agent_id   TEXT NOT NULL,
        pid        INTEGER,
        intent     TEXT,
        locked_at  TEXT NOT NULL,
        expires_at TEXT NOT NULL
      );
      CREATE TABLE changes (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        path        TEXT NOT NULL,
        agent_id    TEXT NOT NULL,
        change_type TEXT NOT NULL CHECK (change_type IN ('create', 'modify', 'delete')),
        intent      TEXT,
        task_id     TEXT,
        recorded_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 2,
    sql: `
      CREATE INDEX locks_by_agent ON locks(agent_id);
      CREATE INDEX locks_by_expiry ON locks(expires_at);
      CREATE INDEX changes_by_path ON changes(path, recorded_at);
      CREATE INDEX changes_by_task ON changes(task_id) WHERE task_id IS NOT NULL;
      CREATE INDEX changes_by_time ON changes(recorded_at);
    `,
  },
  {
    // Directory-tree locks (`src/auth/**`): the row's path is the directory, `kind` says it covers
    // everything under it. One row per path still, so a tree and a file on one path cannot both exist.
    version: 3,
    sql: `ALTER TABLE locks ADD COLUMN kind TEXT NOT NULL DEFAULT 'file' CHECK (kind IN ('file', 'tree'));`,
  },
];

export type LockKind = 'file' | 'tree';

export const CHANGE_TYPES = ['create', 'modify', 'delete'] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

export interface FileLock {
  /** Normalised absolute path (of the directory, for a tree lock). */
  path: string;
  /** `file`: this path; `tree`: the directory and everything under it (`dir/**`). */
  kind: LockKind;
  agent_id: string;
  /** The process whose death releases the lock; null = TTL only. */
  pid: number | null;
  intent: string | null;
  locked_at: string;
  expires_at: string;
  /** PostgreSQL store only: the host the holder runs on (its pid is checked on that host alone; elsewhere the TTL decides). */
  host?: string;
}

export interface FileChange {
  id: number;
  path: string;
  agent_id: string;
  change_type: ChangeType;
  intent: string | null;
  task_id: string | null;
  recorded_at: string;
}

export interface LockRequest {
  path: string;
  agent: string;
  pid: number | null;
  intent?: string | null;
  ttlMs: number;
}

export interface LockResult {
  lock: FileLock;
  /** The agent already held it; the expiry (and pid, intent) were refreshed. */
  renewed: boolean;
  /** A stale lock (expired or owner dead) that was removed to make room. */
  reaped: FileLock | null;
}

export interface WriteCheck {
  allowed: boolean;
  path: string;
  /** The live lock of another agent that denies the write. */
  holder: FileLock | null;
  /** Why writing is denied (lock holder or an unreadable database); null when allowed. */
  reason: string | null;
}
