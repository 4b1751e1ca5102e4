import type { Task, TaskState } from '../a2a/task.js';
import type { AgentStatus } from '../profiles/types.js';
import type { RegistryEntry } from '../registry/entry.js';
import type { ReplyEntry } from '../registry/reply-stack.js';
import type { ForwardResult } from '../runtime/replies.js';
import type { TaskEvents } from '../runtime/task-events.js';
import type { NewTask } from '../runtime/tasks.js';

export interface ReplySelect {
  senderId?: string;
  taskId?: string;
}

/** What the HTTP layer may ask of a running agent; the runtime implements it. */
export interface AgentApi {
  entry(): RegistryEntry;
  status(): { status: AgentStatus; current_task: string | null; queued: number; ready_for_messages: boolean; started_at: string };
  /** False until the first READY and the start-up instruction are done. */
  readyForMessages(): boolean;
  peers(): RegistryEntry[];
  submit(input: NewTask): Task;
  getTask(id: string): Task;
  listTasks(options: { state?: TaskState; limit?: number }): Task[];
  cancelTask(id: string): Task;
  screen(): { lines: string[]; cols: number; rows: number };
  shutdown(reason: string): void;
  replyStack(): ReplyEntry[];
  peekReply(select: ReplySelect): ReplyEntry | null;
  popReply(select: ReplySelect): ReplyEntry | null;
  /** Completes the waiting task with the reply and posts it to an agent sender. */
  reply(input: { text: string } & ReplySelect): Promise<{ task: Task; entry: ReplyEntry | null; forward: ForwardResult }>;
  events: TaskEvents;
  /** Answers the CLI's approval dialog of an input-required task. */
  answerPermission(taskId: string, choice: string): { task: Task; choice: { key: string; label: string } };
}
