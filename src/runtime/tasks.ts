import { randomUuid } from '../uuid.js';
import type { NewTask } from '../agent-api/agent-api.js';
import { EventEmitter } from 'node:events';
import {
  canTransition,
  taskError,
  TERMINAL_STATES,
  type Artifact,
  type ReceiptState,
  type Task,
  type TaskError,
  type TaskMetadata,
  type TaskState,
} from '../agent-api/task.js';
import { SynapseError } from '../errors.js';
import type { AgentTaskStore } from '../store/agent-tasks.js';
import { iso, type Clock } from '../clock.js';

/**
 * Owns every task's life: creation (queued), the state machine, receipts and artifacts.
 * Every change is persisted first and then announced with `updated`, so what listeners see
 * (status, SSE, webhooks) is always what a restart would find.
 */
export class TaskManager extends EventEmitter {
  constructor(
    readonly store: AgentTaskStore,
    private readonly clock: Clock,
  ) {
    super();
  }

  private iso(): string {
    return iso(this.clock.now());
  }

  create(input: NewTask): Task {
    const now = this.iso();
    if (input.id && this.store.get(input.id)) throw new SynapseError('conflict', `a task with id ${input.id} already exists`);
    const task: Task = {
      id: input.id ?? randomUuid(),
      context_id: input.contextId ?? randomUuid(),
      status: { state: 'submitted', timestamp: now },
      message: input.message,
      artifacts: [],
      // `usage` is what this agent measured of its CLI's turn (usage-tracker.ts), never a sender's word.
      metadata: { kind: 'message', ...withoutUsage(input.metadata) },
      priority: input.priority ?? 3,
      receipt: { state: 'queued', queued_at: now },
      created_at: now,
      updated_at: now,
    };
    this.store.insert(task);
    this.emit('updated', task, null);
    return task;
  }

  get(id: string): Task {
    return this.store.find(id);
  }

  /** Moves a task to `state`; returns null when the move is not allowed (already finished). */
  transition(
    id: string,
    state: TaskState,
    changes: { message?: string; receipt?: ReceiptState; artifact?: Artifact; artifacts?: Artifact[]; metadata?: TaskMetadata; error?: TaskError } = {},
  ): Task | null {
    const task = this.store.get(id);
    if (!task || !canTransition(task.status.state, state)) return null;
    const previous = task.status.state;
    const now = this.iso();
    // A completed task may carry an error read off its output (output-parse.ts): its status stays plain.
    const message = changes.message ?? (state === 'completed' ? undefined : changes.error?.message);
    task.status = { state, timestamp: now, ...(message ? { message } : {}) };
    if (changes.error) task.error = changes.error;
    if (changes.artifact) task.artifacts.push(changes.artifact);
    if (changes.artifacts) task.artifacts.push(...changes.artifacts);
    if (changes.metadata) task.metadata = { ...task.metadata, ...changes.metadata };
    if (changes.receipt) this.stampReceipt(task, changes.receipt, now);
    task.updated_at = now;
    this.store.save(task);
    this.emit('updated', task, previous);
    return task;
  }

  /** Records a receipt step without changing the task state (e.g. delivered). */
  receipt(id: string, state: ReceiptState, metadata?: TaskMetadata): Task | null {
    const task = this.store.get(id);
    if (!task) return null;
    const now = this.iso();
    this.stampReceipt(task, state, now);
    if (metadata) task.metadata = { ...task.metadata, ...metadata };
    task.updated_at = now;
    this.store.save(task);
    this.emit('updated', task, task.status.state);
    return task;
  }

  /** Merges `metadata` into the task without changing its state (e.g. the token usage read after its turn). */
  annotate(id: string, metadata: TaskMetadata): Task | null {
    const task = this.store.get(id);
    if (!task) return null;
    task.metadata = { ...task.metadata, ...metadata };
    task.updated_at = this.iso();
    this.store.save(task);
    this.emit('updated', task, task.status.state);
    return task;
  }

  private stampReceipt(task: Task, state: ReceiptState, now: string): void {
    // A receipt only moves forward: a late "delivered" gets its time but never hides that the
    // task was answered, failed or canceled.
    if (!FINAL_RECEIPTS.has(task.receipt.state) || FINAL_RECEIPTS.has(state)) task.receipt.state = state;
    const key = (
      { delivered: 'delivered_at', delivery_unconfirmed: 'delivered_at', answered: 'answered_at', failed: 'failed_at', canceled: 'canceled_at' } as const
    )[state as Exclude<ReceiptState, 'queued'>];
    if (key && !task.receipt[key]) task.receipt[key] = now;
  }

  cancelable(id: string): Task {
    const task = this.store.find(id);
    if (TERMINAL_STATES.has(task.status.state)) {
      throw new SynapseError('task_not_cancelable', `task ${task.id} is already ${task.status.state}`);
    }
    return task;
  }

  /** After a crash or restart, a task that was mid-turn cannot be finished honestly. */
  failInterrupted(reason: string): number {
    let n = 0;
    for (const state of ['working', 'input-required'] as const) {
      for (const t of this.store.inState(state)) {
        if (this.transition(t.id, 'failed', { receipt: 'failed', error: taskError('INTERRUPTED', reason) })) n++;
      }
    }
    return n;
  }
}

function withoutUsage(metadata: TaskMetadata | undefined): TaskMetadata {
  const { usage: _usage, ...rest } = metadata ?? {};
  return rest;
}

const FINAL_RECEIPTS: ReadonlySet<ReceiptState> = new Set(['answered', 'failed', 'canceled']);

export function textArtifact(text: string, name = 'response'): Artifact {
  return { artifact_id: randomUuid(), name, parts: [{ type: 'text', text }] };
}
