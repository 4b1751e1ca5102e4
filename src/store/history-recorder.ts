import type { Task } from '../agent-api/task.js';
import type { Env } from '../config/paths.js';
import { systemClock, type Clock } from '../clock.js';
import { isRecordable } from './history-entry.js';
import { historyDbPath, type HistoryAgent } from './history-schema.js';
import { HistoryStore, historyEnabled } from './history.js';
import { storeTarget } from './store-url.js';
import type { HistoryHealth } from './history-api.js';
import { AsyncHistoryWriter } from './history-writer.js';
import { HistoryBacklog } from './history-backlog.js';

/** Finished tasks kept in memory while the history database cannot be written; older ones beyond are dropped. */
const HISTORY_BACKLOG = 50;
/** How often a failing history database is tried again while entries wait. */
const RETRY_MS = 2000;

export type { HistoryHealth } from './history-api.js';

/** What an SQLite failure means for the user, in a few words. */
function describe(err: unknown): string {
  const e = err as { message?: string; details?: { sqlite_code?: unknown } };
  const message = e?.message ?? String(err);
  if (e?.details?.sqlite_code === 'SQLITE_FULL' || /SQLITE_FULL|disk is full|ENOSPC/i.test(message)) return `the disk is full (SQLITE_FULL): ${message}`;
  return message;
}

/**
 * What an agent keeps to record its finished tasks: one database handle for the life of the
 * process, opened on the first finished task (an agent that finishes none creates no file).
 * `record` never throws: history is a record, and its failure must not touch the task. When the
 * database cannot be written (a full disk, a broken file), entries wait in a bounded backlog,
 * a warning is logged once, `health()` says so, and the backlog is written, oldest first, as
 * soon as a retry (every RETRY_MS, or the next finished task) succeeds.
 */
export class HistoryRecorder {
  private store: HistoryStore | null = null;
  private readonly enabled: boolean;
  private readonly clock: Clock;
  private readonly backlog: HistoryBacklog;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    private readonly env: Env,
    private readonly options: { log?: (msg: string) => void; warn?: (msg: string) => void; clock?: Clock; backlog?: number; retryMs?: number } = {},
  ) {
    this.enabled = historyEnabled(env);
    this.clock = options.clock ?? systemClock;
    this.backlog = new HistoryBacklog({ max: options.backlog ?? HISTORY_BACKLOG, location: historyDbPath(env), log: options.log, warn: options.warn });
  }

  /** Records `task` when it is finished and worth keeping; true when it (and everything before it) was written. */
  record(task: Task, agent: HistoryAgent): boolean {
    if (!this.enabled || !isRecordable(task)) return false;
    this.backlog.add(task, agent);
    return this.flush();
  }

  /** Writes what waits, oldest first; true when nothing waits any more. */
  flush(): boolean {
    const waiting = this.backlog.items;
    while (waiting.length > 0) {
      const next = waiting[0]!;
      try {
        this.store ??= HistoryStore.open(this.env, this.options.clock ? { clock: this.options.clock } : {});
        this.store.record(next.task, next.agent);
      } catch (err) {
        this.failed(err);
        return false;
      }
      waiting.shift();
    }
    this.recovered();
    return true;
  }

  health(): HistoryHealth {
    return this.backlog.health();
  }

  /** Tries a last time to write what waits, then closes; what still waits is named in the log. */
  close(): void {
    if (this.retry) this.clock.clearTimeout(this.retry);
    this.retry = null;
    if (this.backlog.items.length > 0 && !this.flush()) {
      this.options.warn?.(this.backlog.notWritten('unknown error'));
      if (this.retry) this.clock.clearTimeout(this.retry);
      this.retry = null;
    }
    this.closeStore();
  }

  private failed(err: unknown): void {
    // A handle that hit a full disk or a broken file is not trusted again: reopen on the retry.
    this.closeStore();
    this.backlog.failed(describe(err), this.clock.now(), `trying again every ${Math.round((this.options.retryMs ?? RETRY_MS) / 1000)} s`);
    if (!this.retry) {
      this.retry = this.clock.setTimeout(() => {
        this.retry = null;
        this.flush();
      }, this.options.retryMs ?? RETRY_MS);
      this.retry.unref?.();
    }
  }

  private recovered(): void {
    if (this.retry) this.clock.clearTimeout(this.retry);
    this.retry = null;
    this.backlog.recovered();
  }

  private closeStore(): void {
    try {
      this.store?.close();
    } catch {
      // closing a broken handle: nothing left to save
    }
    this.store = null;
  }
}

/** What an agent records its finished tasks through, whichever store holds them. */
export interface HistoryRecording {
  /** Never waits on the network, never throws; true when the entry is already written. */
  record(task: Task, agent: HistoryAgent): boolean;
  health(): HistoryHealth;
  /** Writes (or drains, with a deadline) what waits and names in the log what could not be written. */
  close(): void | Promise<void>;
}

type RecorderOptions = ConstructorParameters<typeof HistoryRecorder>[1];

/**
 * The agent's recorder for the project at `projectDir`: with a PostgreSQL store configured, an
 * asynchronous writer into the team's database (issue 22); otherwise today's recorder into the
 * user's file. An invalid store URL is not silently replaced by the local file: writes fail
 * (and say why) as they would on an unreachable server.
 */
export function createHistoryRecording(env: Env, projectDir: string, options: RecorderOptions & { host?: string } = {}): HistoryRecording {
  let shown: string;
  try {
    const target = storeTarget(projectDir, env);
    if (target.backend === 'sqlite') return new HistoryRecorder(env, options);
    shown = target.shown;
  } catch (err) {
    shown = `the configured store (${(err as Error).message})`;
  }
  if (!historyEnabled(env)) return { record: () => false, health: () => ({ ok: true, backlog: 0, dropped: 0, error: null, since: null }), close: () => {} };
  const { host, backlog, clock, log, warn } = options;
  return new AsyncHistoryWriter({
    location: shown,
    log,
    warn,
    clock,
    backlog,
    open: async () => (await import('./history-open.js')).openHistory(projectDir, { env, clock, retryForMs: 2000, host }),
  });
}

const recorders = new Map<string, HistoryRecorder>();

/**
 * Records a finished task in the user's history through one recorder per history file for
 * the whole process. Never throws. Prefer a `HistoryRecorder` owned by the caller where there
 * is a composition root to close it; this is for callers without one.
 */
export function recordFinishedTask(env: Env, task: Task, agent: HistoryAgent, log?: (msg: string) => void): void {
  try {
    const file = historyDbPath(env);
    let r = recorders.get(file);
    if (!r) {
      r = new HistoryRecorder(env, log ? { log } : {});
      recorders.set(file, r);
    }
    r.record(task, agent);
  } catch (err) {
    log?.(`history: cannot record task ${task.id}: ${(err as Error).message}`);
  }
}

/** Closes the recorders `recordFinishedTask` opened. */
export function closeHistoryRecorders(): void {
  for (const r of recorders.values()) r.close();
  recorders.clear();
}
