import { messageText, type Task } from '../agent-api/task.js';
import type { Clock } from '../clock.js';
import { sumUsage, type TokenUsage } from '../profiles/usage-records.js';
import type { UsageSource } from './usage-sources.js';

/** After a turn, the CLI may still be writing its last record: read once more this much later. */
const LATE_READ_MS = 1500;
/** A CLI's own clock stamps its records: a record this much before the delivery still counts. */
const CLOCK_SLACK_MS = 50;

/**
 * Attributes the CLI's own usage records to the task whose turn wrote them (issue 20 §3): when a
 * task is delivered, what the CLI wrote so far is passed over; when its turn ends, what it wrote
 * since is summed and handed to `attach`, and read once more a moment later (a record written
 * after the screen went idle). The next delivery closes the window first. Records written
 * between tasks (the human's own prompts in the foreground) belong to no task.
 *
 * Never throws: usage is a record, and a missing or garbled file must not touch a task.
 */
export class UsageTracker {
  private current: { taskId: string; marker: string | null; since: number; usage: TokenUsage | null } | null = null;
  private late: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: {
      source: UsageSource;
      clock: Clock;
      attach: (taskId: string, usage: TokenUsage) => void;
      log: (msg: string) => void;
    },
  ) {}

  /** The task is about to be typed into the CLI. */
  begin(task: Task): void {
    this.settle();
    this.safely('skip', () => this.deps.source.skip());
    this.current = { taskId: task.id, marker: markerOf(task), since: this.deps.clock.now(), usage: null };
  }

  /** The CLI is idle after the task's turn. */
  end(taskId: string): void {
    if (this.current?.taskId !== taskId) return;
    this.collect();
    this.deps.clock.clearTimeout(this.late);
    this.late = this.deps.clock.setTimeout(() => this.settle(), LATE_READ_MS);
    this.late.unref?.();
  }

  /** Reads what is left for the open window and closes it. */
  settle(): void {
    this.deps.clock.clearTimeout(this.late);
    this.late = undefined;
    if (!this.current) return;
    this.collect();
    this.current = null;
  }

  stop(): void {
    this.settle();
  }

  private collect(): void {
    const c = this.current!;
    // A record the CLI stamped before the delivery is an earlier turn's, flushed late (Claude Code
    // writes its session file in batches): not this task's.
    const records = (this.safely('read', () => this.deps.source.take(c.marker)) ?? []).filter((r) => r.at === null || r.at >= c.since - CLOCK_SLACK_MS);
    if (records.length === 0) return;
    c.usage = sumUsage(records, c.usage);
    if (c.usage) {
      const usage = c.usage;
      this.safely('record', () => this.deps.attach(c.taskId, usage));
    }
  }

  private safely<T>(what: string, fn: () => T): T | undefined {
    try {
      return fn();
    } catch (err) {
      this.deps.log(`usage: cannot ${what} the CLI's usage records: ${(err as Error).message}`);
      return undefined;
    }
  }
}

/** The start of the message's first line with text: enough to find it in one CLI session file among several. */
function markerOf(task: Task): string | null {
  const line = messageText(task.message)
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.length >= 8);
  return line ? line.slice(0, 60) : null;
}
