import type { FileSafety, FileSafetyStatus, LockRow, LockWaitOptions } from './file-safety-api.js';
import type { FileSafetyStore } from './file-safety.js';
import type { ChangeType, FileChange, FileLock, LockKind, LockRequest, LockResult, WriteCheck } from './file-safety-schema.js';

/** The SQLite file-safety store behind the asynchronous interface: today's file and code, answered as Promises. */
export class SqliteFileSafety implements FileSafety {
  readonly backend = 'sqlite' as const;

  constructor(private readonly store: FileSafetyStore) {}

  get location(): string {
    return this.store.file;
  }
  get baseDir(): string {
    return this.store.baseDir;
  }
  async close(): Promise<void> {
    this.store.close();
  }
  async schemaVersion(): Promise<number> {
    return this.store.schemaVersion();
  }
  normalize(filePath: string): string {
    return this.store.normalize(filePath);
  }
  target(input: string): { path: string; kind: LockKind } {
    return this.store.target(input);
  }
  async lock(req: LockRequest): Promise<LockResult> {
    return this.store.lock(req);
  }
  lockWait(req: LockRequest, wait: LockWaitOptions): Promise<LockResult> {
    return this.store.lockWait(req, wait);
  }
  async unlock(filePath: string, agent: string): Promise<{ path: string; released: boolean; lock: FileLock | null }> {
    return this.store.unlock(filePath, agent);
  }
  async check(filePath: string, agent: string): Promise<WriteCheck> {
    return this.store.check(filePath, agent);
  }
  async locks(options?: { agent?: string }): Promise<FileLock[]> {
    return this.store.locks(options);
  }
  async allLocks(): Promise<LockRow[]> {
    return this.store.allLocks();
  }
  async reap(): Promise<number> {
    return this.store.reap();
  }
  async record(change: { path: string; agent: string; type: ChangeType; intent?: string | null; taskId?: string | null }): Promise<FileChange> {
    return this.store.record(change);
  }
  async history(filePath: string, limit?: number): Promise<FileChange[]> {
    return this.store.history(filePath, limit);
  }
  async recent(limit?: number): Promise<FileChange[]> {
    return this.store.recent(limit);
  }
  async changesForTask(taskId: string): Promise<FileChange[]> {
    return this.store.changesForTask(taskId);
  }
  async cleanup(days: number): Promise<{ changes_deleted: number; locks_reaped: number }> {
    return this.store.cleanup(days);
  }
  async status(): Promise<FileSafetyStatus> {
    return this.store.status();
  }
  async debugInfo(): Promise<Record<string, unknown>> {
    return this.store.debugInfo();
  }
}
