import type { HistoryRecorder } from '../store/history-recorder.js';
import type { AgentApi, NewTask } from '../agent-api/agent-api.js';
import { messageText } from '../agent-api/task.js';
import { SynapseError } from '../errors.js';
import type { Limits } from '../config/limits.js';
import type { FileRegistry } from '../registry/registry.js';
import type { AgentTaskStore } from '../store/agent-tasks.js';
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
  tasks: TaskManager;
  events: TaskEvents;
  session: CliSession;
  delivery: DeliveryLoop;
  replies: ReplyCoordinator;
  presence: Presence;
  gate: StartupGate;
  registry: FileRegistry;
  limits: Limits;
  history: Pick<HistoryRecorder, 'health'>;
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
    submit: (input) => {
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
    },
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
