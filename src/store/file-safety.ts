import fs from 'node:fs';
import path from 'node:path';
import { SynapseError } from '../errors.js';
import type { Env } from '../config/paths.js';
import type { Sql } from './store-db.js';
import { StoreDb } from './store-db.js';
import { systemClock, iso, type Clock } from '../clock.js';
import { isPidAlive } from '../registry/liveness.js';
import { normalizeFilePath } from './file-paths.js';
import { fileSafetyDbPath, fileSafetyEnabled } from './settings.js';
import { heldError, lockTarget, overlaps, parseLockPattern, requireAgent, waitForLock } from './file-safety-rules.js';
import type { LockWaitOptions } from './file-safety-api.js';
import {
  CHANGE_TYPES,
  FILE_SAFETY_MIGRATIONS,
  type ChangeType,
  type FileChange,
  type FileLock,
  type LockKind,
  type LockRequest,
  type LockResult,
  type WriteCheck,
} from './file-safety-schema.js';

export * from './file-safety-schema.js';
export { normalizeFilePath } from './file-paths.js';

export interface FileSafetyOptions {
  /** Relative paths are resolved against this directory (the project). */
  baseDir: string;
  clock?: Clock;
  /** Replaced in unit tests; the real check is `kill(pid, 0)`. */
  isAlive?: (pid: number) => boolean;
}

/**
 * Advisory per-file locks and a change log (`.synapse/file_safety.db`). A lock row per
 * normalised path, so the primary key guarantees one holder; every acquire and release runs
 * under `BEGIN IMMEDIATE`. A lock is live until its TTL passes or its owner pid dies; stale
 * locks are ignored by reads and removed by the next write that touches them.
 */
export class FileSafetyStore {
  readonly file: string;
  readonly baseDir: string;
  private readonly store: StoreDb;
  private readonly clock: Clock;
  private readonly isAlive: (pid: number) => boolean;

  constructor(file: string, options: FileSafetyOptions) {
    this.file = file;
    this.baseDir = options.baseDir;
    this.clock = options.clock ?? systemClock;
    this.isAlive = options.isAlive ?? isPidAlive;
    this.store = new StoreDb(file, FILE_SAFETY_MIGRATIONS);
  }

  static forProject(projectDir: string, env: Env, options: Omit<FileSafetyOptions, 'baseDir'> = {}): FileSafetyStore {
    return new FileSafetyStore(fileSafetyDbPath(projectDir, env), { ...options, baseDir: projectDir });
  }

  close(): void {
    this.store.close();
  }

  schemaVersion(): number {
    return this.store.schemaVersion();
  }

  normalize(filePath: string): string {
    return normalizeFilePath(filePath, this.baseDir);
  }

  /** A lock target: a file, or a directory tree written `dir/**`; any other glob is refused. */
  target(input: string): { path: string; kind: LockKind } {
    return lockTarget(input, this.baseDir);
  }

  /** Another agent's live lock that overlaps `target` (same path, or one inside the other's tree). */
  private conflict(db: Sql, target: { path: string; kind: LockKind }, agent: string, now: number): FileLock | undefined {
    const rows = db.prepare(`SELECT * FROM locks`).all() as FileLock[];
    return rows.find((l) => l.agent_id !== agent && this.isLive(l, now) && overlaps(l, target));
  }

  /**
   * Takes the lock, or renews it when `agent` already holds it; `lock_held` names the holder.
   * `src/auth/**` locks the tree: refused while another agent holds any file in it or a tree
   * around it, and a file lock inside another agent's tree is refused too.
   */
  lock(req: LockRequest): LockResult {
    const agent = requireAgent(req.agent);
    if (!Number.isFinite(req.ttlMs) || req.ttlMs <= 0) throw new SynapseError('usage', 'lock TTL must be greater than zero');
    const target = this.target(req.path);
    const filePath = target.path;
    const intent = req.intent?.trim() ? req.intent.trim() : null;
    // Fast refusal from a plain read when another agent's live lock is there; only a write
    // transaction ever grants a lock, so a stale read can cost a retry but never a double lock.
    const seen = this.store.run((db) => this.conflict(db, target, agent, this.clock.now()));
    if (seen) throw heldError(seen, this.clock.now());
    return this.store.write((db) => {
      const now = this.clock.now();
      db.prepare(`DELETE FROM locks WHERE expires_at <= ?`).run(iso(now));
      let current = getLock(db, filePath);
      let reaped: FileLock | null = null;
      if (current && !this.isLive(current, now)) {
        db.prepare(`DELETE FROM locks WHERE path = ?`).run(filePath);
        reaped = current;
        current = undefined;
      }
      const other = this.conflict(db, target, agent, now);
      if (other) throw heldError(other, now);
      const expires = iso(now + req.ttlMs);
      if (current) {
        db.prepare(`UPDATE locks SET kind = ?, pid = ?, intent = COALESCE(?, intent), expires_at = ? WHERE path = ?`).run(
          target.kind,
          req.pid,
          intent,
          expires,
          filePath,
        );
      } else {
        db.prepare(`INSERT INTO locks (path, kind, agent_id, pid, intent, locked_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)`).run(
          filePath,
          target.kind,
          agent,
          req.pid,
          intent,
          iso(now),
          expires,
        );
      }
      return { lock: getLock(db, filePath)!, renewed: current !== undefined, reaped };
    });
  }

  /** `lock`, retrying while another agent holds it, until `timeoutMs` has passed. */
  lockWait(req: LockRequest, wait: LockWaitOptions): Promise<LockResult> {
    return waitForLock(async () => this.lock(req), this.clock, wait);
  }

  /**
   * Releases `agent`'s lock. Only the owner may release a live lock; a stale lock of anyone
   * is simply cleared. `released` is false when there was no live lock of `agent`.
   */
  unlock(filePath: string, agent: string): { path: string; released: boolean; lock: FileLock | null } {
    const who = requireAgent(agent);
    const p = this.normalize(parseLockPattern(filePath).base);
    return this.store.write((db) => {
      const current = getLock(db, p);
      if (!current) return { path: p, released: false, lock: null };
      const now = this.clock.now();
      const live = this.isLive(current, now);
      if (live && current.agent_id !== who) {
        throw new SynapseError('lock_held', `${p} is locked by ${current.agent_id}, not ${who}; only the owner can unlock it`, { holder: current });
      }
      db.prepare(`DELETE FROM locks WHERE path = ?`).run(p);
      return { path: p, released: live, lock: current };
    });
  }

  /** May `agent` write `filePath` now? Read-only: stale locks do not deny. */
  check(filePath: string, agent: string): WriteCheck {
    const who = requireAgent(agent);
    const p = this.normalize(filePath);
    return this.store.run((db) => {
      const now = this.clock.now();
      // The file itself, or a tree around it.
      const holder = this.conflict(db, { path: p, kind: 'file' }, who, now);
      if (!holder) return { allowed: true, path: p, holder: null, reason: null };
      return { allowed: false, path: p, holder, reason: heldError(holder, now).message };
    });
  }

  /** Live locks, optionally only one agent's, oldest first. */
  locks(options: { agent?: string } = {}): FileLock[] {
    return this.store.run((db) => {
      const rows = (
        options.agent === undefined
          ? db.prepare(`SELECT * FROM locks ORDER BY locked_at, path`).all()
          : db.prepare(`SELECT * FROM locks WHERE agent_id = ? ORDER BY locked_at, path`).all(options.agent)
      ) as FileLock[];
      const now = this.clock.now();
      return rows.filter((l) => this.isLive(l, now));
    });
  }

  /** Every lock row, live or not, with why it is (not) live; for `debug`. */
  allLocks(): (FileLock & { live: boolean; expired: boolean; pid_alive: boolean | null })[] {
    return this.store.run((db) => {
      const now = this.clock.now();
      return (db.prepare(`SELECT * FROM locks ORDER BY locked_at, path`).all() as FileLock[]).map((l) => ({
        ...l,
        live: this.isLive(l, now),
        expired: l.expires_at <= iso(now),
        pid_alive: l.pid === null ? null : this.isAlive(l.pid),
      }));
    });
  }

  /** Removes every expired or orphaned lock; returns how many. */
  reap(): number {
    return this.store.write((db) => this.reapIn(db));
  }

  record(change: { path: string; agent: string; type: ChangeType; intent?: string | null; taskId?: string | null }): FileChange {
    const who = requireAgent(change.agent);
    if (!(CHANGE_TYPES as readonly string[]).includes(change.type)) {
      throw new SynapseError('usage', `unknown change type '${change.type}': use one of ${CHANGE_TYPES.join(', ')}`);
    }
    const p = this.normalize(change.path);
    return this.store.write((db) => {
      const info = db
        .prepare(`INSERT INTO changes (path, agent_id, change_type, intent, task_id, recorded_at) VALUES (?, ?, ?, ?, ?, ?)`)
        .run(p, who, change.type, change.intent?.trim() || null, change.taskId?.trim() || null, iso(this.clock.now()));
      return db.prepare(`SELECT * FROM changes WHERE id = ?`).get(info.lastInsertRowid) as FileChange;
    });
  }

  /** Changes of one file, newest first. */
  history(filePath: string, limit = 50): FileChange[] {
    const p = this.normalize(filePath);
    return this.store.run((db) => db.prepare(`SELECT * FROM changes WHERE path = ? ORDER BY recorded_at DESC, id DESC LIMIT ?`).all(p, limit) as FileChange[]);
  }

  recent(limit = 20): FileChange[] {
    return this.store.run((db) => db.prepare(`SELECT * FROM changes ORDER BY recorded_at DESC, id DESC LIMIT ?`).all(limit) as FileChange[]);
  }

  /** Changes recorded with this task id (board task or A2A task), oldest first. */
  changesForTask(taskId: string): FileChange[] {
    return this.store.run((db) => db.prepare(`SELECT * FROM changes WHERE task_id = ? ORDER BY recorded_at, id`).all(taskId) as FileChange[]);
  }

  /** Drops change records older than `days` days and every stale lock. */
  cleanup(days: number): { changes_deleted: number; locks_reaped: number } {
    if (!Number.isFinite(days) || days < 0) throw new SynapseError('usage', `--days must be zero or more, got ${days}`);
    return this.store.write((db) => {
      const cutoff = iso(this.clock.now() - days * 86_400_000);
      const changes = db.prepare(`DELETE FROM changes WHERE recorded_at < ?`).run(cutoff).changes;
      return { changes_deleted: changes, locks_reaped: this.reapIn(db) };
    });
  }

  status(): { active_locks: number; stale_locks: number; agents: Record<string, number>; changes_total: number; changes_last_24h: number } {
    const all = this.allLocks();
    const agents: Record<string, number> = {};
    for (const l of all) if (l.live) agents[l.agent_id] = (agents[l.agent_id] ?? 0) + 1;
    return this.store.run((db) => ({
      active_locks: all.filter((l) => l.live).length,
      stale_locks: all.filter((l) => !l.live).length,
      agents,
      changes_total: (db.prepare(`SELECT COUNT(*) AS n FROM changes`).get() as { n: number }).n,
      changes_last_24h: (db.prepare(`SELECT COUNT(*) AS n FROM changes WHERE recorded_at >= ?`).get(iso(this.clock.now() - 86_400_000)) as { n: number }).n,
    }));
  }

  /** Facts for `synapse file-safety debug`: where the file is, its schema and health. */
  debugInfo(): Record<string, unknown> {
    const size = (f: string) => {
      try {
        return fs.statSync(f).size;
      } catch {
        return null;
      }
    };
    return this.store.run((db) => ({
      file: this.file,
      base_dir: this.baseDir,
      schema_version: db.pragma('user_version', { simple: true }),
      journal_mode: db.pragma('journal_mode', { simple: true }),
      busy_timeout_ms: db.pragma('busy_timeout', { simple: true }),
      quick_check: db.pragma('quick_check', { simple: true }),
      size_bytes: size(this.file),
      wal_bytes: size(`${this.file}-wal`),
      caller_pid: process.pid,
      caller_parent_pid: process.ppid,
      locks: this.allLocks(),
      changes: (db.prepare(`SELECT COUNT(*) AS n FROM changes`).get() as { n: number }).n,
    }));
  }

  private reapIn(db: Sql): number {
    const now = this.clock.now();
    const stale = (db.prepare(`SELECT * FROM locks`).all() as FileLock[]).filter((l) => !this.isLive(l, now));
    const del = db.prepare(`DELETE FROM locks WHERE path = ?`);
    for (const l of stale) del.run(l.path);
    return stale.length;
  }

  private isLive(lock: FileLock, now: number): boolean {
    if (lock.expires_at <= iso(now)) return false;
    return lock.pid === null || this.isAlive(lock.pid);
  }
}

function getLock(db: Sql, filePath: string): FileLock | undefined {
  return db.prepare(`SELECT * FROM locks WHERE path = ?`).get(filePath) as FileLock | undefined;
}

// ── one-call helpers for code that holds no store open (synapse list/status/trace, hooks) ──

/**
 * Opens the project's file-safety store only when it exists and the feature is on; returns
 * `fallback` otherwise, so status displays never create files or fail in a fresh directory.
 * Errors reading an existing file are thrown (a `database_error` naming the file).
 */
function withExisting<T>(projectDir: string, env: Env, fallback: T, fn: (s: FileSafetyStore) => T): T {
  if (!fileSafetyEnabled(env)) return fallback;
  const file = fileSafetyDbPath(projectDir, env);
  try {
    fs.statSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
    throw new SynapseError('database_error', `cannot read file-safety database ${file}: ${(err as Error).message}`, { file });
  }
  const store = new FileSafetyStore(file, { baseDir: projectDir });
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

/** Live locks held by an agent (for `synapse list` EDITING_FILE and `synapse status`). */
export function locksHeldBy(projectDir: string, agentId: string, env: Env): FileLock[] {
  return withExisting(projectDir, env, [], (s) => s.locks({ agent: agentId }));
}

/**
 * What `synapse list` shows as EDITING_FILE: the first file the agent holds a live lock on, relative
 * to its working directory, and how many more it holds; null when none.
 * Throws when the project's file-safety database cannot be read.
 */
export function editingFileOf(projectDir: string, agentId: string, env: Env): { file: string; more: number } | null {
  const locks = locksHeldBy(projectDir, agentId, env);
  const first = locks[0];
  if (!first) return null;
  const file = path.relative(projectDir, first.path) || first.path;
  return { file: first.kind === 'tree' ? `${file}/**` : file, more: locks.length - 1 };
}

/** Cheap "is this agent editing something?" for the status signal. */
export function hasActiveLocks(projectDir: string, agentId: string, env: Env): boolean {
  return locksHeldBy(projectDir, agentId, env).length > 0;
}

/**
 * Retention (`SYNAPSE_FILE_SAFETY_RETENTION_DAYS`): change records older than `days` and every
 * stale lock go; null when the project has no file-safety database.
 */
export function purgeFileSafety(projectDir: string, env: Env, days: number): { changes_deleted: number; locks_reaped: number } | null {
  return withExisting(projectDir, env, null, (s) => s.cleanup(days));
}

/** File changes recorded with `--task <taskId>` (for `synapse trace`). */
export function changesForTask(projectDir: string, taskId: string, env: Env): FileChange[] {
  return withExisting(projectDir, env, [], (s) => s.changesForTask(taskId));
}

/**
 * Fail-closed write check for hooks and `validate`: never throws. A database that cannot be
 * read denies the write and says why; a missing database (nothing ever locked) allows it.
 */
export function validateWrite(projectDir: string, filePath: string, agent: string, env: Env): WriteCheck {
  const normalized = normalizeFilePath(filePath, projectDir);
  if (!fileSafetyEnabled(env)) return { allowed: true, path: normalized, holder: null, reason: null };
  try {
    return withExisting(projectDir, env, { allowed: true, path: normalized, holder: null, reason: null }, (s) => s.check(filePath, agent));
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { allowed: false, path: normalized, holder: null, reason: `file-safety database unreadable, denying writes: ${message}` };
  }
}
