import type { Task } from './task.js';

/** One event of a task's journal (`GET /tasks/:id/subscribe`) or of the agent ring (`GET /events`). */
export interface StreamEvent {
  id: number;
  event: string;
  data: unknown;
}

export type StreamListener = (e: StreamEvent) => void;

/**
 * What the HTTP and A2A layers read of an agent's task events. The runtime's journal implements
 * it (`runtime/task-events.ts`); readers never publish.
 */
export interface TaskEventSource {
  /** Events of `taskId` after `afterId`, then live ones. Returns an unsubscribe function. */
  subscribe(taskId: string, afterId: number, listener: StreamListener): () => void;
  /** Agent-wide events (status changes, task changes) after `afterId`, then live ones. */
  subscribeAll(afterId: number, listener: StreamListener): () => void;
  /** Whether any event of `taskId` is still held (a long-finished task's journal is dropped). */
  hasJournal(taskId: string): boolean;
}

/** The journal's writing side, for the components that report task progress. */
export interface TaskEventSink {
  taskUpdated(task: Task, previous: string | null): void;
  output(taskId: string, text: string): void;
  publish(event: string, data: unknown): void;
}
