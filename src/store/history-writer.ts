import type { Task } from '../agent-api/task.js';
import { systemClock, type Clock } from '../clock.js';
import type { History, HistoryHealth } from './history-api.js';
import { HistoryBacklog } from './history-backlog.js';
import { isRecordable } from './history-entry.js';
import type { HistoryAgent } from './history-schema.js';

/** Finished tasks kept in memory while the store cannot be written; older ones beyond are dropped. */
const BACKLOG = 200;
/** The first retry after a failed write; it doubles up to MAX_RETRY_MS. */
const RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;

export interface HistoryWriterOptions {
  /** Opens the store (once; again after a failure). */
  open: () => Promise<History>;
  /** Where the entries go, for messages (no password). */
  location: string;
  log?: (msg: string) => void;
  warn?: (msg: string) => void;
  clock?: Clock;
  backlog?: number;
  retryMs?: number;
}

/**
 * An agent's history recording into a network store (PostgreSQL, issue 22). `record` only queues:
 * the agent's PTY and HTTP paths never wait on the network. One writer drains the bounded
 * backlog, oldest first; a failed write stays queued and is retried with backoff (the upsert on
 * (task, agent) makes a retry after an unknown outcome harmless). Nothing counts as written until
 * the database answered: `flush()` awaits it. `close()` drains with a deadline and names in the
 * log what could not be written.
 */
export class AsyncHistoryWriter {
  private history: History | null = null;
  private readonly backlog: HistoryBacklog;
  private retry: NodeJS.Timeout | null = null;
  private delay: number;
  private draining: Promise<boolean> | null = null;
  private closed = false;
  private readonly clock: Clock;

  constructor(private readonly o: HistoryWriterOptions) {
    this.clock = o.clock ?? systemClock;
    this.delay = o.retryMs ?? RETRY_MS;
    this.backlog = new HistoryBacklog({ max: o.backlog ?? BACKLOG, location: o.location, log: o.log, warn: o.warn });
  }

  /** Queues `task` when it is finished and worth keeping; never waits, never throws. False: not written yet. */
  record(task: Task, agent: HistoryAgent): boolean {
    if (this.closed || !isRecordable(task)) return false;
    this.backlog.add(task, agent);
    if (!this.retry) void this.drain();
    return false;
  }

  /** Writes what waits now (without waiting for a scheduled retry); true when the database has every entry. */
  flush(): Promise<boolean> {
    if (this.retry) this.clock.clearTimeout(this.retry);
    this.retry = null;
    return this.drain();
  }

  health(): HistoryHealth {
    return this.backlog.health();
  }

  /** Drains for at most `deadlineMs`, then closes; what still waits is named in the log. */
  async close(deadlineMs = 3000): Promise<void> {
    if (this.retry) this.clock.clearTimeout(this.retry);
    this.retry = null;
    const end = this.clock.now() + deadlineMs;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<false>((resolve) => (timer = this.clock.setTimeout(() => resolve(false), deadlineMs)));
    try {
      while (this.backlog.items.length > 0 && this.clock.now() < end) {
        if (await Promise.race([this.drain(), expired])) break;
        // Failed: back off within the deadline, then try again.
        const wait = Math.min(this.delay, end - this.clock.now());
        if (wait <= 0) break;
        let t: NodeJS.Timeout | undefined;
        await Promise.race([new Promise<void>((r) => (t = this.clock.setTimeout(r, wait))), expired]);
        this.clock.clearTimeout(t);
      }
    } finally {
      this.clock.clearTimeout(timer);
    }
    this.closed = true;
    if (this.retry) this.clock.clearTimeout(this.retry);
    this.retry = null;
    if (this.backlog.items.length > 0) this.o.warn?.(this.backlog.notWritten(`not written within ${deadlineMs} ms`));
    const h = this.history;
    this.history = null;
    // A close stuck on a dead connection must not hold the agent's exit.
    if (h) await Promise.race([h.close().catch(() => undefined), new Promise<void>((r) => this.clock.setTimeout(r, 1000).unref?.())]);
  }

  private drain(): Promise<boolean> {
    this.draining ??= this.writeAll().finally(() => (this.draining = null));
    return this.draining;
  }

  private async writeAll(): Promise<boolean> {
    const waiting = this.backlog.items;
    while (waiting.length > 0) {
      const next = waiting[0]!;
      try {
        this.history ??= await this.o.open();
        await this.history.record(next.task, next.agent);
      } catch (err) {
        this.failed(err);
        return false;
      }
      // Replaced meanwhile by a newer update of the task: that one (later in the queue) is written next.
      const at = waiting.indexOf(next);
      if (at >= 0) waiting.splice(at, 1);
    }
    this.recovered();
    return true;
  }

  private failed(err: unknown): void {
    this.backlog.failed((err as Error)?.message ?? String(err), this.clock.now(), 'trying again with backoff');
    if (this.closed || this.retry) return;
    this.retry = this.clock.setTimeout(() => {
      this.retry = null;
      void this.drain();
    }, this.delay);
    this.retry.unref?.();
    this.delay = Math.min(this.delay * 2, MAX_RETRY_MS);
  }

  private recovered(): void {
    this.delay = this.o.retryMs ?? RETRY_MS;
    this.backlog.recovered();
  }
}
