import type { StreamEvent, StreamListener, TaskEventSink, TaskEventSource } from '../agent-api/task-events.js';
import { TERMINAL_STATES, type Task, type TaskState } from '../agent-api/task.js';
import { doneEvent, outputEvent, statusEvent, wireState } from '../agent-api/wire.js';
import { systemClock, type Clock } from '../clock.js';

type Listener = StreamListener;

interface Journal {
  events: StreamEvent[];
  /** The id of the next event (events dropped from the front keep their ids). */
  nextId: number;
  listeners: Set<Listener>;
  outputLines: number;
  /** Lines held in the journal's `output` events. */
  heldOutput: number;
  finishedAt: number | null;
}

/** Journals of finished tasks kept for a client that reconnects; older ones are answered from the store. */
const KEEP_FINISHED = 100;
/** Output lines held per journal; a reconnecting client misses older ones (the store has the reply). */
const KEEP_OUTPUT_LINES = 2000;
const GLOBAL_RING = 1000;

/**
 * Per-task event journals for `GET /tasks/:id/subscribe` (so `Last-Event-ID` can replay what
 * a reconnecting client missed) and one ring for `GET /events`. A task's events carry the
 * original Synapse's SSE payloads (`{type: status|output|done, …}`, agent-api/wire.ts). Bounded:
 * the journals of the last KEEP_FINISHED finished tasks, KEEP_OUTPUT_LINES output lines per
 * journal, GLOBAL_RING events in the ring. Everything older is in SQLite.
 */
export class TaskEvents implements TaskEventSource, TaskEventSink {
  private readonly journals = new Map<string, Journal>();
  private readonly global: StreamEvent[] = [];
  private readonly globalListeners = new Set<Listener>();
  private globalSeq = 0;

  constructor(private readonly clock: Clock = systemClock) {}

  private journal(taskId: string): Journal {
    let j = this.journals.get(taskId);
    if (!j) {
      j = { events: [], nextId: 1, listeners: new Set(), outputLines: 0, heldOutput: 0, finishedAt: null };
      this.journals.set(taskId, j);
    }
    return j;
  }

  private append(taskId: string, event: string, data: unknown): void {
    const j = this.journal(taskId);
    const e = { id: j.nextId++, event, data };
    j.events.push(e);
    for (const l of j.listeners) l(e);
  }

  /** Drops the oldest output events of a journal beyond KEEP_OUTPUT_LINES (status events stay). */
  private trimOutput(j: Journal): void {
    while (j.heldOutput > KEEP_OUTPUT_LINES) {
      const i = j.events.findIndex((e) => e.event === 'output');
      if (i < 0) return;
      j.heldOutput -= (j.events[i]!.data as { lines: string[] }).lines.length;
      j.events.splice(i, 1);
    }
  }

  /** Every persisted task change. */
  taskUpdated(task: Task, previous: string | null): void {
    if (previous !== task.status.state) {
      this.append(task.id, 'status', statusEvent(task));
      const before = previous === null ? null : wireState(previous as TaskState);
      this.publish('task', { task_id: task.id, state: wireState(task.status.state), previous: before, receipt: task.receipt });
    }
    if (TERMINAL_STATES.has(task.status.state)) {
      const j = this.journal(task.id);
      if (j.finishedAt === null) {
        j.finishedAt = this.clock.now();
        this.append(task.id, 'done', doneEvent(task));
        this.trim();
      }
    }
  }

  /** New cleaned output of a running task; only whole new lines are sent. */
  output(taskId: string, text: string): void {
    const j = this.journal(taskId);
    if (j.finishedAt !== null) return;
    const lines = text.split('\n');
    // The last line may still be growing; send it once a newer one follows.
    const complete = lines.slice(0, -1);
    if (complete.length <= j.outputLines) return;
    const fresh = complete.slice(j.outputLines);
    this.append(taskId, 'output', outputEvent(taskId, fresh));
    j.outputLines = complete.length;
    j.heldOutput += fresh.length;
    this.trimOutput(j);
  }

  /** Events after `afterId`, then live ones until `done`. Returns an unsubscribe function. */
  subscribe(taskId: string, afterId: number, listener: Listener): () => void {
    const j = this.journal(taskId);
    for (const e of j.events) if (e.id > afterId) listener(e);
    j.listeners.add(listener);
    return () => j.listeners.delete(listener);
  }

  hasJournal(taskId: string): boolean {
    return (this.journals.get(taskId)?.events.length ?? 0) > 0;
  }

  publish(event: string, data: unknown): void {
    const e = { id: ++this.globalSeq, event, data };
    this.global.push(e);
    if (this.global.length > GLOBAL_RING) this.global.shift();
    for (const l of this.globalListeners) l(e);
  }

  subscribeAll(afterId: number, listener: Listener): () => void {
    for (const e of this.global) if (e.id > afterId) listener(e);
    this.globalListeners.add(listener);
    return () => this.globalListeners.delete(listener);
  }

  private trim(): void {
    const finished = [...this.journals.entries()].filter(([, j]) => j.finishedAt !== null && j.listeners.size === 0);
    if (finished.length <= KEEP_FINISHED) return;
    finished.sort((a, b) => a[1].finishedAt! - b[1].finishedAt!);
    for (const [id] of finished.slice(0, finished.length - KEEP_FINISHED)) this.journals.delete(id);
  }
}
