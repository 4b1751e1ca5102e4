import type { ForwardResult, HistoryUpdate, ReplyOutcome } from '../agent-api/agent-api.js';
import { replyExpected, taskError, TERMINAL_STATES, type Task, type TaskError, type TaskMetadata } from '../agent-api/task.js';
import { wireArtifacts, wireError, wireState } from '../agent-api/wire.js';
import { requestJson } from '../a2a/http-json.js';
import { derivedArtifacts, detectError } from '../agent-api/output-parse.js';
import { derivedWireArtifact } from '../a2a/wire-client.js';
import type { PeerTls } from '../a2a/peer-tls.js';
import { SynapseError } from '../errors.js';
import type { RegistryEntry } from '../registry/entry.js';
import type { ReplyEntry, ReplyStack } from '../registry/reply-stack.js';
import { textArtifact, type TaskManager } from './tasks.js';
import { iso, type Clock } from '../clock.js';

/** The original's error codes: a failed reply, and a turn that ended with no reply and no output. */
const REPLY_FAILED = 'REPLY_FAILED';
const MISSING_REPLY = 'MISSING_REPLY';
/** The `on_task_completed` quality gate exited non-zero. */
const HOOK_FAILED = 'HOOK_FAILED';

/** Output that is only prompt noise (at most 3 characters, none a letter or digit) is no answer. */
function isTrivialOutput(text: string): boolean {
  const t = text.trim();
  return t.length === 0 || (t.length <= 3 && !/[\p{L}\p{N}]/u.test(t));
}

/**
 * Answers. A message that expects one is pushed on this agent's reply stack when it is
 * delivered; `reply()` pops it and completes the task with the reply (or fails it, with
 * `synapse reply --fail`). When the CLI goes idle without replying, the task completes after a
 * grace period with the cleaned output instead, so a waiting sender never hangs; when there is
 * no output either, it fails with `MISSING_REPLY`, as the original does. Either way, an agent
 * sender gets the outcome posted back.
 */
export class ReplyCoordinator {
  private readonly graceTimers = new Map<string, NodeJS.Timeout>();
  /** Completions on their way (the gate, the record, the post-back to the sender). */
  private readonly finishing = new Set<Promise<unknown>>();

  constructor(
    private readonly deps: {
      tasks: TaskManager;
      stack: ReplyStack;
      clock: Clock;
      graceMs: number;
      self: () => RegistryEntry;
      /**
       * Is `endpoint` the endpoint of a live registered agent? The sender's endpoint comes from
       * the message, so from a peer: an answer is posted only to an agent the registry knows,
       * never to any address a message names (no SSRF through reply routing).
       */
      isAgentEndpoint: (endpoint: string) => boolean | Promise<boolean>;
      log: (msg: string) => void;
      /** The API key header for a peer agent (never for a webhook): `SYNAPSE_API_KEYS` or the per-user key. */
      peerHeaders?: () => Record<string, string>;
      /** What the answer's https endpoint is checked against (`SYNAPSE_TLS_CA`). */
      tls?: PeerTls | undefined;
      /** The `on_task_completed` quality gate: a failure fails the task with its output instead. */
      beforeComplete?: (task: Task) => Promise<{ ok: boolean; exitCode: number | null; output: string } | null>;
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
        received_at: iso(this.deps.clock.now()),
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
  turnDone(taskId: string, output: string, transcript = ''): void {
    const task = this.deps.tasks.store.get(taskId);
    if (!task || TERMINAL_STATES.has(task.status.state)) return;
    if (!this.expectsAnswer(task)) {
      // Nobody waits on this one: the post-back is a no-op, and finish() never rejects.
      void this.finish(task.id, { status: 'completed', text: output, transcript }, 'output');
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
        if (isTrivialOutput(output)) {
          this.deps.log(`task ${taskId}: no reply and no output within ${this.deps.graceMs} ms: ${MISSING_REPLY}`);
          const error = taskError(MISSING_REPLY, 'the agent ended its turn without a reply (synapse reply) and without any output');
          void this.finish(taskId, { status: 'failed', text: error.message, error }, 'output');
          return;
        }
        this.deps.log(`task ${taskId}: no reply within ${this.deps.graceMs} ms, completing with the CLI output`);
        void this.finish(taskId, { status: 'completed', text: output, transcript }, 'output');
      }, this.deps.graceMs),
    );
  }

  /** `synapse reply`: answers the newest waiting sender (or the one named) and posts the answer back. */
  async reply(input: { taskId?: string; senderId?: string } & ReplyOutcome): Promise<{ task: Task; entry: ReplyEntry | null; forward: ForwardResult }> {
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
    const { task: done, forward } = await this.finish(task.id, outcomeOf(input), 'reply');
    return { task: done, entry, forward };
  }

  /**
   * `POST /tasks/{id}/reply` (the original's route): records an explicit reply on this agent's
   * own task and takes it off the stack, without posting anything to the sender (the caller
   * does that, as the original's `synapse reply` does).
   */
  recordReply(taskId: string, outcome: ReplyOutcome): Task {
    const task = this.deps.tasks.store.find(taskId);
    this.deps.clock.clearTimeout(this.graceTimers.get(task.id));
    this.graceTimers.delete(task.id);
    this.onStack(() => this.deps.stack.remove(task.id));
    return this.record(task.id, outcomeOf(outcome), 'reply');
  }

  /**
   * An answer arrived (`in_reply_to`, or `answer_for_task` from this implementation): when it
   * names a task made here with `POST /tasks/create` that still waits, that task takes the
   * answer's outcome, as the original completes the sender's own task.
   */
  answerArrived(metadata: TaskMetadata, text: string): Task | null {
    const ids = [metadata.in_reply_to, metadata.answer_for_task].filter((v): v is string => typeof v === 'string' && v.length > 0);
    for (const id of ids) {
      const task = this.deps.tasks.store.get(id);
      if (!task || task.metadata.kind !== 'outgoing' || TERMINAL_STATES.has(task.status.state)) continue;
      const failed = metadata.reply_status === 'failed';
      const reported = parseTaskError(metadata.reply_error);
      const outcome: Outcome = failed
        ? { status: 'failed', text, error: reported ?? taskError(REPLY_FAILED, text) }
        : { status: 'completed', text: artifactsText(metadata.reply_artifacts) ?? text };
      return this.record(task.id, outcome, 'reply');
    }
    return null;
  }

  /**
   * `POST /history/update`: the agent that got a message made with `POST /tasks/create` reports
   * how it ended without answering (the original's completion callback); that task takes the
   * reported state. Only such tasks: this agent's own work is never rewritten from outside.
   */
  completionReported(update: HistoryUpdate): Task {
    const task = this.deps.tasks.store.get(update.task_id);
    if (!task || task.metadata.kind !== 'outgoing') throw new SynapseError('task_not_found', `Task not found in history: ${update.task_id}`);
    if (TERMINAL_STATES.has(task.status.state)) throw new SynapseError('conflict', `task ${task.id} is already ${task.status.state}`);
    const summary = update.output_summary ?? null;
    const metadata = { completion_callback: true };
    const changes =
      update.status === 'completed'
        ? { receipt: 'answered' as const, metadata, ...(summary ? { artifact: textArtifact(summary) } : {}) }
        : update.status === 'failed'
          ? { receipt: 'failed' as const, metadata, error: taskError('TASK_FAILED', summary ?? 'the receiving agent reported that the task failed') }
          : { receipt: 'canceled' as const, metadata, message: summary ?? 'the receiving agent reported that the task was canceled' };
    return this.deps.tasks.transition(task.id, update.status, changes) ?? this.deps.tasks.store.find(task.id);
  }

  /** Completes or fails the task with the outcome; a reply replaces captured output. No post-back. */
  private record(taskId: string, outcome: Outcome, source: 'reply' | 'output'): Task {
    const changes =
      outcome.status === 'completed'
        ? completedChanges(outcome, source)
        : { error: outcome.error, receipt: 'failed' as const, metadata: { reply_source: source } };
    const task = this.deps.tasks.transition(taskId, outcome.status, changes);
    if (task) return task;
    const current = this.deps.tasks.store.find(taskId);
    // Already finished with captured output: an explicit answer replaces it.
    if (source === 'reply' && outcome.status === 'completed' && current.status.state === 'completed') {
      current.artifacts = [textArtifact(outcome.text), ...derivedArtifacts(outcome.text, '')];
      current.error = null;
      current.metadata = { ...current.metadata, reply_source: 'reply' };
      current.updated_at = iso(this.deps.clock.now());
      this.deps.tasks.store.save(current);
      this.deps.tasks.emit('updated', current, 'completed');
      return current;
    }
    if (source === 'reply') throw new SynapseError('conflict', `task ${current.id} is already ${current.status.state}; it cannot take this reply`);
    return current;
  }

  /** A completion passes the `on_task_completed` gate first; a failing gate fails the task with the command's output. */
  private async gated(taskId: string, outcome: Outcome): Promise<Outcome> {
    const task = this.deps.tasks.store.get(taskId);
    if (outcome.status !== 'completed' || !this.deps.beforeComplete || !task || task.metadata.kind === 'bootstrap') return outcome;
    const gate = await this.deps.beforeComplete(task);
    if (!gate || gate.ok) return outcome;
    const message = `hooks.on_task_completed failed (exit ${gate.exitCode ?? 'none'}): ${gate.output || '(no output)'}`;
    return { status: 'failed', text: message, error: taskError(HOOK_FAILED, message, { exit_code: gate.exitCode, output: gate.output, answer: outcome.text }) };
  }

  /** Resolves once no completion is on its way: an agent that ends by itself (its lease) first lets its answers reach their senders. */
  async settled(): Promise<void> {
    while (this.finishing.size > 0) await Promise.allSettled([...this.finishing]);
  }

  private finish(taskId: string, input: Outcome, source: 'reply' | 'output'): Promise<{ task: Task; forward: ForwardResult }> {
    const done = this.finishNow(taskId, input, source);
    this.finishing.add(done);
    void done.finally(() => this.finishing.delete(done)).catch(() => undefined);
    return done;
  }

  private async finishNow(taskId: string, input: Outcome, source: 'reply' | 'output'): Promise<{ task: Task; forward: ForwardResult }> {
    const outcome = await this.gated(taskId, input);
    const before = this.deps.tasks.store.get(taskId);
    const task = this.record(taskId, outcome, source);
    // An output that lost the race to an explicit reply changes nothing and tells nobody.
    if (source === 'output' && before && TERMINAL_STATES.has(before.status.state)) return { task, forward: { notified: null } };
    const forward = await this.forward(task, outcome.text);
    return { task, forward };
  }

  /**
   * Posts the outcome to an agent sender's `/tasks/send` with `in_reply_to`, carrying the
   * original's `reply_status`, `reply_artifacts` and `reply_error`. The original looks the
   * `in_reply_to` task up among its own and answers 404 when it is not there: then the answer
   * goes again naming the sender's own task (`sender_task_id`), or as a plain message.
   */
  private async forward(task: Task, text: string): Promise<ForwardResult> {
    const endpoint = task.metadata.sender?.sender_endpoint;
    if (!endpoint || !this.expectsAnswer(task)) return { notified: null };
    if (!(await this.deps.isAgentEndpoint(endpoint))) {
      const error = `${JSON.stringify(endpoint)} is not the endpoint of a registered agent: the answer was not posted there; it stays on task ${task.id}`;
      this.deps.log(error);
      return { notified: false, error };
    }
    const me = this.deps.self();
    const senderTask = typeof task.metadata.sender_task_id === 'string' ? task.metadata.sender_task_id : null;
    const error = wireError(task);
    const metadata = {
      answer_mode: task.metadata.response_mode,
      response_mode: 'silent',
      ...(senderTask ? { answer_for_task: senderTask } : {}),
      reply_status: wireState(task.status.state),
      reply_artifacts: wireArtifacts(task.artifacts),
      ...(error ? { reply_error: error } : {}),
      sender: { sender_id: me.agent_id, sender_name: me.name ?? me.agent_id, sender_type: me.agent_type, sender_endpoint: me.endpoint },
    };
    const attempts = [task.id, ...(senderTask && senderTask !== task.id ? [senderTask] : []), null];
    try {
      for (const inReplyTo of attempts) {
        const res = await requestJson(`${endpoint}/tasks/send`, {
          timeoutMs: 5000,
          ...(this.deps.peerHeaders ? { headers: this.deps.peerHeaders() } : {}),
          tls: this.deps.tls,
          body: { message: { role: 'agent', parts: [{ type: 'text', text }] }, metadata: { ...metadata, ...(inReplyTo ? { in_reply_to: inReplyTo } : {}) } },
        });
        if (res.status === 404 && inReplyTo !== null) continue;
        if (res.status >= 300) return { notified: false, error: `${endpoint} answered ${res.status}` };
        return { notified: true };
      }
      return { notified: false, error: `${endpoint} answered 404` };
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

/** `transcript`: everything the turn drew, when the outcome is the turn's output (parsed for files and errors). */
type Outcome = { status: 'completed'; text: string; transcript?: string } | { status: 'failed'; text: string; error: TaskError };

/**
 * A completed turn's record (issue 20 §4): the answer whole, plus what output parsing derives
 * from it (code blocks, written files); a turn whose output shows a known error shape (command not
 * found, permission denied, a non-zero exit, a stack trace) carries it as `error`, the task still
 * completed with its text: the CLI answered, and the sender decides what the error means. An
 * explicit `synapse reply` is the agent's own statement: no error is read into it.
 */
function completedChanges(outcome: Extract<Outcome, { status: 'completed' }>, source: 'reply' | 'output') {
  const transcript = outcome.transcript ?? '';
  const error = source === 'output' ? detectError(`${transcript}\n${outcome.text}`) : null;
  return {
    artifact: textArtifact(outcome.text),
    artifacts: derivedArtifacts(outcome.text, transcript),
    receipt: 'answered' as const,
    metadata: { reply_source: source },
    ...(error ? { error } : {}),
  };
}

/** A reply as the routes take it: text, and for a failed one its error (default `REPLY_FAILED`). */
function outcomeOf(input: ReplyOutcome): Outcome {
  if (input.status !== 'failed') return { status: 'completed', text: input.text };
  const error = input.error ? { code: input.error.code, message: input.error.message, data: input.error.data ?? null } : taskError(REPLY_FAILED, input.text);
  return { status: 'failed', text: input.text, error };
}

/** `reply_error` as another agent sent it, when it has the original's shape. */
function parseTaskError(v: unknown): TaskError | null {
  if (typeof v !== 'object' || v === null) return null;
  const e = v as Record<string, unknown>;
  if (typeof e.code !== 'string' || typeof e.message !== 'string') return null;
  const data = typeof e.data === 'object' && e.data !== null && !Array.isArray(e.data) ? (e.data as Record<string, unknown>) : null;
  return { code: e.code, message: e.message, data };
}

/** The text of `reply_artifacts` as another agent sent them (`data` a string or `{content}`). */
function artifactsText(v: unknown): string | null {
  if (!Array.isArray(v)) return null;
  const texts = v.flatMap((a) => {
    if (derivedWireArtifact(a as { data?: unknown })) return [];
    const data = (a as { data?: unknown } | null)?.data;
    if (typeof data === 'string') return [data];
    if (typeof data === 'object' && data !== null && typeof (data as { content?: unknown }).content === 'string')
      return [(data as { content: string }).content];
    return [];
  });
  return texts.length > 0 ? texts.join('\n') : null;
}
