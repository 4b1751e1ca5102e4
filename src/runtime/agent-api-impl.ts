import { randomUuid } from '../uuid.js';
import type { HistoryRecording } from '../store/history-recorder.js';
import type { AgentApi, NewTask } from '../agent-api/agent-api.js';
import { messageText, type Message, type Task } from '../agent-api/task.js';
import { SynapseError } from '../errors.js';
import type { Limits } from '../config/limits.js';
import type { FileRegistry } from '../registry/registry.js';
import type { AgentTaskStore } from '../store/agent-tasks.js';
import { messageFingerprint, type IdempotencyKeys } from '../store/idempotency.js';
import { checkMessageSize, checkSenderQueue } from './admission.js';
import type { CliSession } from './cli-session.js';
import type { DeliveryLoop } from './delivery.js';
import type { Presence } from './presence.js';
import type { ReplyCoordinator } from './replies.js';
import type { StartupGate } from './startup-gate.js';
import type { TaskEvents } from './task-events.js';
import type { TaskManager } from './tasks.js';

export interface AgentParts {
  store: AgentTaskStore;
  /** Idempotency keys of sends (in the task store's database). */
  idempotency: IdempotencyKeys;
  tasks: TaskManager;
  events: TaskEvents;
  session: CliSession;
  delivery: DeliveryLoop;
  replies: ReplyCoordinator;
  presence: Presence;
  gate: StartupGate;
  registry: FileRegistry;
  limits: Limits;
  history: Pick<HistoryRecording, 'health'>;
  startedAt: string;
  isShuttingDown: () => boolean;
  shutdown: (reason: string) => void;
  /** `POST /spawn`, `POST /team/start` (runtime/team-op.ts). */
  teamOp: (op: 'spawn' | 'team', request: unknown) => Promise<unknown>;
}

/** An answer to a message sent from here: kept on record or completing a task, never queued. */
function isAnswer(input: Pick<NewTask, 'metadata'>): boolean {
  return typeof input.metadata?.in_reply_to === 'string';
}

/**
 * Whether a message may come in, checked before anything is stored: while starting, a message
 * is queued like any other (the delivery loop holds it until the start-up instruction is done);
 * an agent on its way out refuses; then the limits (admission.ts).
 */
function admit(p: AgentParts, input: Pick<NewTask, 'message' | 'metadata'>): void {
  if (p.isShuttingDown()) throw new SynapseError('agent_not_ready', 'the agent is shutting down and takes no more messages; start it again');
  checkMessageSize(p.limits, input.message);
  if (!isAnswer(input)) checkSenderQueue(p.limits, p.store.queued(), input.metadata);
}

/**
 * The task an idempotency key made within 24 h, or null. A key that came with another message is
 * a client's mistake, not a retry: refused, so the second message is neither dropped silently nor
 * typed. A key whose task is missing (the agent was killed between recording the key and storing
 * the task) made nothing: it is forgotten.
 */
function priorSend(p: AgentParts, key: string, message: Message): Task | null {
  const prior = p.idempotency.find(key);
  if (!prior) return null;
  if (prior.fingerprint !== messageFingerprint(message))
    throw new SynapseError(
      'idempotency_key_reused',
      `this idempotency key was used for a different message (task ${prior.task_id}) within the last 24 h: a retry must repeat the message exactly, a new message needs a new key`,
      { task_id: prior.task_id },
    );
  const task = p.store.get(prior.task_id);
  if (!task) p.idempotency.forget(key);
  return task;
}

/** A message for the inbox (or an answer to keep on record), after the admission checks. */
function submit(p: AgentParts, input: NewTask): Task {
  admit(p, input);
  const meta = input.metadata ?? {};
  // An answer to a task made here with POST /tasks/create: that task takes its outcome.
  p.replies.answerArrived(meta, messageText(input.message));
  // An answer to something we asked with --wait: the asking CLI already printed it; keep it
  // on record without typing it into the terminal.
  if (typeof meta.in_reply_to === 'string' && meta.answer_mode === 'wait') {
    const t = p.tasks.create({ ...input, metadata: { ...meta, kind: 'answer' } });
    p.tasks.transition(t.id, 'working', { receipt: 'delivered' });
    return p.tasks.transition(t.id, 'completed', { receipt: 'answered', metadata: { delivered_to_terminal: false } }) ?? p.tasks.get(t.id);
  }
  // A peer's message is a message, whatever its metadata claims: `kind` is ours to set (a
  // "bootstrap" would pass for the agent's own start-up instruction; issue 15 §7).
  const t = p.tasks.create({ ...input, metadata: { ...meta, kind: 'message' } });
  p.delivery.enqueued(t);
  return p.tasks.get(t.id);
}

/**
 * `submit` once per key. Looking the key up, recording it and making the task happen in one
 * synchronous step, so a second request with the key (even one that arrives while the first is
 * still being answered) finds the first task. The key goes first, naming the task id about to
 * be used; a refused message takes its key back.
 */
function submitOnce(p: AgentParts, input: NewTask, key: string): { task: Task; replayed: boolean } {
  const prior = priorSend(p, key, input.message);
  if (prior) return { task: prior, replayed: true };
  const id = input.id ?? randomUuid();
  p.idempotency.remember(key, id, messageFingerprint(input.message));
  try {
    return { task: submit(p, { ...input, id }), replayed: false };
  } catch (err) {
    p.idempotency.forget(key);
    throw err;
  }
}

/** The agent's port (`AgentApi`) over its components: what the HTTP routes and the A2A bridge call. */
export function agentApi(p: AgentParts): AgentApi {
  return {
    entry: () => p.presence.entry(),
    rename: (change) => p.presence.rename(change),
    teamOp: (op, request) => p.teamOp(op, request),
    status: () => ({
      status: p.presence.status.status,
      status_reason: p.presence.status.reason,
      current_task: p.delivery.currentTaskId,
      queued: p.store.queued().length,
      ready_for_messages: p.gate.isOpen,
      started_at: p.startedAt,
      history: p.history.health(),
    }),
    acceptingMessages: () => !p.isShuttingDown(),
    peers: () => p.registry.listLive(),
    admit: (input) => admit(p, input),
    submit: (input) => submit(p, input),
    submitOnce: (input, key) => submitOnce(p, input, key),
    idempotentTask: (key, message) => priorSend(p, key, message),
    createTask: (input) => {
      const t = p.tasks.create({ ...input, metadata: { ...(input.metadata ?? {}), kind: 'outgoing' } });
      return p.tasks.transition(t.id, 'working') ?? p.tasks.get(t.id);
    },
    recordReply: (taskId, outcome) => p.replies.recordReply(taskId, outcome),
    updateHistory: (update) => p.replies.completionReported(update),
    replyStack: () => p.replies.stackEntries(),
    popReply: (select) => p.replies.pop(select),
    peekReply: (select) => p.replies.peek(select),
    reply: (input) => p.replies.reply(input),
    answerPermission: (taskId, choice) => p.delivery.respond(taskId, choice),
    approvePlan: (taskId) => p.delivery.answerPlan(taskId, 'approve'),
    rejectPlan: (taskId, reason) => {
      if (reason !== undefined) checkMessageSize(p.limits, { role: 'user', parts: [{ type: 'text', text: reason }] });
      const task = p.delivery.answerPlan(taskId, 'reject');
      if (reason === undefined) return { task, followUp: null };
      // The reason is the agent's next message: priority 4 goes ahead of the queue, without the
      // interrupt of priority 5 (the CLI is leaving the plan screen for its idle prompt).
      const followUp = p.tasks.create({
        message: { role: 'user', parts: [{ type: 'text', text: `Your plan was rejected. Reason: ${reason}` }] },
        metadata: { kind: 'message', plan_rejected: task.id },
        priority: 4,
        contextId: task.context_id,
      });
      p.delivery.enqueued(followUp);
      return { task, followUp: p.tasks.get(followUp.id) };
    },
    events: p.events,
    getTask: (id) => p.tasks.get(id),
    listTasks: (o) => p.store.list(o),
    cancelTask: (id) => p.delivery.cancel(id) ?? p.tasks.get(id),
    screen: () => ({ lines: p.session.screen.viewport(), cols: p.session.screen.cols, rows: p.session.screen.rows }),
    shutdown: (reason) => p.shutdown(reason),
  };
}
