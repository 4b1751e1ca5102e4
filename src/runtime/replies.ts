import type { ForwardResult } from '../agent-api/agent-api.js';
import { replyExpected, TERMINAL_STATES, type Task } from '../agent-api/task.js';
import { requestJson } from '../a2a/http-json.js';
import { SynapseError } from '../errors.js';
import type { RegistryEntry } from '../registry/entry.js';
import type { ReplyEntry, ReplyStack } from '../registry/reply-stack.js';
import type { Clock } from '../clock.js';
import { textArtifact, type TaskManager } from './tasks.js';

export const DEFAULT_REPLY_GRACE_MS = 5000;

/**
 * Answers. A message that expects one is pushed on this agent's reply stack when it is
 * delivered; `reply()` pops it and completes the task with the reply. When the CLI goes idle
 * without replying, the task completes after a grace period with the cleaned output instead, so
 * a waiting sender never hangs. Either way, an agent sender gets the answer posted back.
 */
export class ReplyCoordinator {
  private readonly graceTimers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly deps: {
      tasks: TaskManager;
      stack: ReplyStack;
      clock: Clock;
      graceMs: number;
      self: () => RegistryEntry;
      log: (msg: string) => void;
    },
  ) {}

  private expectsAnswer(task: Task): boolean {
    return task.metadata.kind === 'message' && replyExpected(task.metadata) && !task.metadata.in_reply_to;
  }

  /** The framed message is in the CLI: from now on the CLI may reply to it. */
  delivered(task: Task): void {
    if (!this.expectsAnswer(task)) return;
    const s = task.metadata.sender ?? {};
    this.onStack(() =>
      this.deps.stack.push({
        sender_id: s.sender_id ?? null,
        sender_name: s.sender_name ?? null,
        sender_endpoint: s.sender_endpoint ?? null,
        task_id: task.id,
        sender_task_id: typeof task.metadata.sender_task_id === 'string' ? task.metadata.sender_task_id : null,
        received_at: new Date(this.deps.clock.now()).toISOString(),
      }),
    );
  }

  /**
   * A stack write from delivery or a timer: an unreadable stack file (the error names it) is
   * logged, not thrown into the delivery loop; the task still completes with the CLI's output.
   */
  private onStack(write: () => void): void {
    try {
      write();
    } catch (err) {
      this.deps.log((err as Error).message);
    }
  }

  /** The CLI is idle after the task's turn. */
  turnDone(taskId: string, output: string): void {
    const task = this.deps.tasks.store.get(taskId);
    if (!task || TERMINAL_STATES.has(task.status.state)) return;
    if (!this.expectsAnswer(task)) {
      // Nobody waits on this one: the post-back is a no-op, and complete() never rejects.
      void this.complete(task.id, output, 'output');
      return;
    }
    this.deps.clock.clearTimeout(this.graceTimers.get(taskId));
    this.graceTimers.set(
      taskId,
      this.deps.clock.setTimeout(() => {
        this.graceTimers.delete(taskId);
        const current = this.deps.tasks.store.get(taskId);
        if (!current || TERMINAL_STATES.has(current.status.state)) return;
        this.onStack(() => this.deps.stack.remove(taskId));
        this.deps.log(`task ${taskId}: no reply within ${this.deps.graceMs} ms, completing with the CLI output`);
        void this.complete(taskId, output, 'output');
      }, this.deps.graceMs),
    );
  }

  /** `synapse reply`: answers the newest waiting sender (or the one named). */
  async reply(input: { text: string; taskId?: string; senderId?: string }): Promise<{ task: Task; entry: ReplyEntry | null; forward: ForwardResult }> {
    const select = { ...(input.taskId ? { taskId: input.taskId } : {}), ...(input.senderId ? { senderId: input.senderId } : {}) };
    const entry = this.deps.stack.pop(select);
    let task: Task | null = entry ? this.deps.tasks.store.get(entry.task_id) : null;
    if (!entry && input.taskId) {
      // Not on the stack (e.g. it already completed with captured output): an explicit reply
      // to a named task is still recorded; it wins over captured output.
      task = this.deps.tasks.store.find(input.taskId);
    }
    if (!task) {
      throw new SynapseError(
        'not_found',
        input.senderId || input.taskId
          ? `nobody matching "${input.senderId ?? input.taskId}" is waiting for an answer from you`
          : 'nobody is waiting for an answer from you',
      );
    }
    this.deps.clock.clearTimeout(this.graceTimers.get(task.id));
    this.graceTimers.delete(task.id);
    const { task: done, forward } = await this.complete(task.id, input.text, 'reply');
    return { task: done, entry, forward };
  }

  private async complete(taskId: string, text: string, source: 'reply' | 'output'): Promise<{ task: Task; forward: ForwardResult }> {
    let task = this.deps.tasks.transition(taskId, 'completed', { artifact: textArtifact(text), receipt: 'answered', metadata: { reply_source: source } });
    if (!task) {
      // Already finished (e.g. captured output first): an explicit reply replaces the artifact.
      const current = this.deps.tasks.store.find(taskId);
      if (source !== 'reply' || current.status.state !== 'completed') return { task: current, forward: { notified: null } };
      current.artifacts = [textArtifact(text)];
      current.metadata = { ...current.metadata, reply_source: 'reply' };
      current.updated_at = new Date(this.deps.clock.now()).toISOString();
      this.deps.tasks.store.save(current);
      this.deps.tasks.emit('updated', current, 'completed');
      task = current;
    }
    const forward = await this.forward(task, text);
    return { task, forward };
  }

  /** Posts the answer to an agent sender's endpoint with `in_reply_to`. */
  private async forward(task: Task, text: string): Promise<ForwardResult> {
    const endpoint = task.metadata.sender?.sender_endpoint;
    if (!endpoint || !this.expectsAnswer(task)) return { notified: null };
    const me = this.deps.self();
    try {
      const res = await requestJson(`${endpoint}/tasks/send`, {
        timeoutMs: 5000,
        body: {
          message: { role: 'agent', parts: [{ type: 'text', text }] },
          metadata: {
            in_reply_to: task.id,
            answer_mode: task.metadata.response_mode,
            response_mode: 'silent',
            ...(typeof task.metadata.sender_task_id === 'string' ? { answer_for_task: task.metadata.sender_task_id } : {}),
            sender: { sender_id: me.agent_id, sender_name: me.name ?? me.agent_id, sender_type: me.agent_type, sender_endpoint: me.endpoint },
          },
        },
      });
      if (res.status >= 300) return { notified: false, error: `${endpoint} answered ${res.status}` };
      return { notified: true };
    } catch (err) {
      this.deps.log(`could not post the answer to ${endpoint}: ${(err as Error).message}`);
      return { notified: false, error: (err as Error).message };
    }
  }

  stackEntries(): ReplyEntry[] {
    return this.deps.stack.list();
  }

  peek(select: { senderId?: string; taskId?: string }): ReplyEntry | null {
    return this.deps.stack.peek(select);
  }

  pop(select: { senderId?: string; taskId?: string }): ReplyEntry | null {
    return this.deps.stack.pop(select);
  }

  stop(): void {
    for (const t of this.graceTimers.values()) this.deps.clock.clearTimeout(t);
    this.graceTimers.clear();
  }
}
