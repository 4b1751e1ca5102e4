import type { Task } from '../agent-api/task.js';
import { iso } from '../clock.js';
import type { HistoryHealth } from './history-api.js';
import { enqueueFinished } from './history-rules.js';
import type { HistoryAgent } from './history-schema.js';

interface Pending {
  task: Task;
  agent: HistoryAgent;
}

/**
 * What an agent's history recording keeps while it cannot write (both the SQLite recorder and the
 * network store's writer): the finished tasks not written yet, oldest first and at most `max`
 * (older ones beyond are dropped and counted), and since when and why writing fails. It says
 * once that writing fails and once that it works again; `health()` is the agent's view of it.
 */
export class HistoryBacklog {
  readonly items: Pending[] = [];
  private dropped = 0;
  private failing: { error: string; since: string } | null = null;

  constructor(
    private readonly o: {
      max: number;
      /** Where the entries go, for messages (no password). */
      location: string;
      log?: ((msg: string) => void) | undefined;
      warn?: ((msg: string) => void) | undefined;
    },
  ) {}

  /** Queues a finished task (a newer update of a queued one replaces it). */
  add(task: Task, agent: HistoryAgent): void {
    this.dropped += enqueueFinished(this.items, { task, agent }, this.o.max);
  }

  /** Why writing fails now, or null. */
  get error(): string | null {
    return this.failing?.error ?? null;
  }

  health(): HistoryHealth {
    return {
      ok: this.failing === null,
      backlog: this.items.length,
      dropped: this.dropped,
      error: this.failing?.error ?? null,
      since: this.failing?.since ?? null,
    };
  }

  /** A write failed at `now`: said once (with `retrying`, how it is tried again), then only the error is kept. */
  failed(error: string, now: number, retrying: string): void {
    if (this.failing) {
      this.failing.error = error;
      return;
    }
    this.failing = { error, since: iso(now) };
    (this.o.warn ?? this.o.log)?.(
      `history: cannot record finished tasks in ${this.o.location}: ${error}; keeping up to ${this.o.max} in memory and ${retrying} (tasks themselves are not affected)`,
    );
  }

  /** Everything waiting was written: said once after a failure. */
  recovered(): void {
    if (!this.failing) return;
    this.o.log?.(
      `history: writing to ${this.o.location} works again (failing since ${this.failing.since}); backlog recorded${this.dropped > 0 ? `, ${this.dropped} older entries were dropped` : ''}`,
    );
    this.failing = null;
  }

  /** What still waits, for a last warning: how many, their ids, why. */
  notWritten(why: string): string {
    const ids = this.items.map((p) => p.task.id.slice(0, 8)).join(', ');
    return `history: ${this.items.length} finished task(s) not recorded in ${this.o.location} (${ids}): ${this.failing?.error ?? why}`;
  }
}
