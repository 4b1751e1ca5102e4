import type { ChangeType, FileChange, FileLock, LockKind, LockRequest, LockResult, WriteCheck } from './file-safety-schema.js';

export interface LockWaitOptions {
  timeoutMs: number;
  intervalMs: number;
  /** Called before each wait with the current holder, e.g. to show progress. */
  onWait?: (holder: FileLock) => void;
}

export interface FileSafetyStatus {
  active_locks: number;
  stale_locks: number;
  agents: Record<string, number>;
  changes_total: number;
  changes_last_24h: number;
}

export type LockRow = FileLock & { live: boolean; expired: boolean; pid_alive: boolean | null };

/**
 * The project's file locks and change records, whichever backend holds them (issue 22): SQLite
 * (`.synapse/file_safety.db`, the default) or PostgreSQL (`SYNAPSE_STORE_URL=postgres://…`, tables
 * `file_locks` and `file_changes`). Both pass one contract suite (test/contract/store). A path has
 * at most one holder: SQLite decides under `BEGIN IMMEDIATE`, PostgreSQL under a transaction-scoped
 * advisory lock with the primary key (`INSERT … ON CONFLICT … WHERE agent_id = …`) as the final word.
 *
 * Liveness: a lock is live until its TTL passes. On SQLite (one machine) it also dies with its
 * owner pid. On PostgreSQL the row records the holder's host: the pid is checked only by a
 * process on that same host; from any other host the TTL alone decides, so a dead host's locks
 * expire when their TTL runs out (a live holder renews by locking again).
 */
export interface FileSafety {
  readonly backend: 'sqlite' | 'postgres';
  /** The file, or the database URL with its password hidden. */
  readonly location: string;
  readonly baseDir: string;
  close(): Promise<void>;
  schemaVersion(): Promise<number>;
  normalize(filePath: string): string;
  target(input: string): { path: string; kind: LockKind };
  lock(req: LockRequest): Promise<LockResult>;
  lockWait(req: LockRequest, wait: LockWaitOptions): Promise<LockResult>;
  unlock(filePath: string, agent: string): Promise<{ path: string; released: boolean; lock: FileLock | null }>;
  check(filePath: string, agent: string): Promise<WriteCheck>;
  locks(options?: { agent?: string }): Promise<FileLock[]>;
  allLocks(): Promise<LockRow[]>;
  reap(): Promise<number>;
  record(change: { path: string; agent: string; type: ChangeType; intent?: string | null; taskId?: string | null }): Promise<FileChange>;
  history(filePath: string, limit?: number): Promise<FileChange[]>;
  recent(limit?: number): Promise<FileChange[]>;
  changesForTask(taskId: string): Promise<FileChange[]>;
  cleanup(days: number): Promise<{ changes_deleted: number; locks_reaped: number }>;
  status(): Promise<FileSafetyStatus>;
  debugInfo(): Promise<Record<string, unknown>>;
}
