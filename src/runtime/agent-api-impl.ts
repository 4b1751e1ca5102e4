import type { AgentApi } from '../agent-api/agent-api.js';
import { messageText } from '../agent-api/task.js';
import { SynapseError } from '../errors.js';
import type { FileRegistry } from '../registry/registry.js';
import type { AgentTaskStore } from '../store/agent-tasks.js';
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
  startedAt: string;
  isShuttingDown: () => boolean;
  shutdown: (reason: string) => void;
}

/** The agent's port (`AgentApi`) over its components: what the HTTP routes and the A2A bridge call. */
export function agentApi(p: AgentParts): AgentApi {
  return {
    entry: () => p.presence.entry(),
    status: () => ({
      status: p.presence.status.status,
      current_task: p.delivery.currentTaskId,
      queued: p.store.queued().length,
      ready_for_messages: p.gate.isOpen,
      started_at: p.startedAt,
    }),
    acceptingMessages: () => !p.isShuttingDown(),
    peers: () => p.registry.listLive(),
    submit: (input) => {
      // While starting, a message is queued like any other; the delivery loop holds it until the
      // start-up instruction is done. Only an agent on its way out refuses.
      if (p.isShuttingDown()) throw new SynapseError('agent_not_ready', 'the agent is shutting down and takes no more messages; start it again');
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
    events: p.events,
    getTask: (id) => p.tasks.get(id),
    listTasks: (o) => p.store.list(o),
    cancelTask: (id) => p.delivery.cancel(id) ?? p.tasks.get(id),
    screen: () => ({ lines: p.session.screen.viewport(), cols: p.session.screen.cols, rows: p.session.screen.rows }),
    shutdown: (reason) => p.shutdown(reason),
  };
}
