import type { AgentStatus } from '../profiles/types.js';
import type { RegistryEntry } from '../registry/entry.js';
import type { ReplyEntry } from '../registry/reply-stack.js';
import type { TaskEventSource } from './task-events.js';
import type { Message, Task, TaskMetadata, TaskState } from './task.js';

/**
 * The port between a running agent and the layers that serve it (HTTP routes, the A2A bridge).
 * It lives below `a2a/`, `server/` and `runtime/`: the runtime implements it, the others call it,
 * so no arrow points up.
 */

/** A message to queue as a new task. */
export interface NewTask {
  /** Client-chosen id; must be unused. */
  id?: string;
  message: Message;
  contextId?: string;
  metadata?: TaskMetadata;
  priority?: number;
}

interface ReplySelect {
  senderId?: string;
  taskId?: string;
}

/** A reply: its text, and for a failed one (`synapse reply --fail`) its error (default `REPLY_FAILED`). */
export interface ReplyOutcome {
  text: string;
  status?: 'completed' | 'failed';
  error?: { code: string; message: string; data?: Record<string, unknown> | null };
}

/** `POST /history/update`: another agent reports how a message this agent sent ended. */
export interface HistoryUpdate {
  task_id: string;
  status: 'completed' | 'failed' | 'canceled';
  output_summary?: string | null;
}

/** What happened to an answer posted back to the agent that asked. */
export interface ForwardResult {
  /** null: the sender is not an agent (a human at a terminal), nothing to post. */
  notified: boolean | null;
  error?: string;
}

interface AgentStatusInfo {
  status: AgentStatus;
  /** Why `status` is not what the screen alone says, e.g. `holds 2 file locks` (the compound status); else null. */
  status_reason: string | null;
  current_task: string | null;
  queued: number;
  ready_for_messages: boolean;
  started_at: string;
  /**
   * How recording into the user's history goes: `ok` false while its database cannot be written
   * (a full disk), with the finished tasks waiting in memory (`backlog`) and those dropped.
   */
  history?: { ok: boolean; backlog: number; dropped: number; error: string | null; since: string | null };
}

/** What the HTTP layer may ask of a running agent; the runtime implements it. */
export interface AgentApi {
  entry(): RegistryEntry;
  /** `POST /rename`: a new name and/or role (null clears it), in the registry at once. */
  rename(change: { name?: string | null; role?: string | null }): RegistryEntry;
  /** `POST /spawn` (`op: 'spawn'`) and `POST /team/start` (`op: 'team'`): the request body as checked by the route. */
  teamOp(op: 'spawn' | 'team', request: unknown): Promise<unknown>;
  status(): AgentStatusInfo;
  /**
   * False once the agent is shutting down (`submit` then throws `agent_not_ready`). A message that
   * arrives while the agent is still starting is taken: queued behind the start-up instruction.
   */
  acceptingMessages(): boolean;
  peers(): RegistryEntry[];
  /**
   * Throws what `submit` would refuse the message with (shutting down, `message_too_large`,
   * `queue_full`) without storing anything: the A2A bridge asks before the SDK makes a task.
   */
  admit(input: Pick<NewTask, 'message' | 'metadata'>): void;
  submit(input: NewTask): Task;
  /** `POST /tasks/create`: a task that awaits an answer, working at once, never typed into the CLI. */
  createTask(input: Pick<NewTask, 'message' | 'metadata' | 'contextId'>): Task;
  getTask(id: string): Task;
  listTasks(options: { state?: TaskState; contextId?: string; limit?: number }): Task[];
  cancelTask(id: string): Task;
  screen(): { lines: string[]; cols: number; rows: number };
  shutdown(reason: string): void;
  replyStack(): ReplyEntry[];
  peekReply(select: ReplySelect): ReplyEntry | null;
  popReply(select: ReplySelect): ReplyEntry | null;
  /** Completes (or fails) the waiting task with the reply and posts it to an agent sender. */
  reply(input: ReplyOutcome & ReplySelect): Promise<{ task: Task; entry: ReplyEntry | null; forward: ForwardResult }>;
  /** `POST /tasks/{id}/reply`: records the reply on this agent's task only; nothing is posted. */
  recordReply(taskId: string, outcome: ReplyOutcome): Task;
  /** `POST /history/update`: finishes a task made by `createTask` as the other agent reports it. */
  updateHistory(update: HistoryUpdate): Task;
  events: TaskEventSource;
  /** Answers the CLI's approval dialog of an input-required task. */
  answerPermission(taskId: string, choice: string): { task: Task; choice: { key: string; label: string } };
  /** Approves the plan an input-required task shows (`metadata.plan`): the CLI's approve keys. */
  approvePlan(taskId: string): Task;
  /**
   * Rejects that plan with the CLI's reject keys; a reason is queued as the agent's next message
   * (`followUp`, ahead of the other queued messages).
   */
  rejectPlan(taskId: string, reason: string | undefined): { task: Task; followUp: Task | null };
}
