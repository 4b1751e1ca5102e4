import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { A2AError, RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, DefaultRequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { isSynapseError } from '../../errors.js';
import { pickChoice } from '../../profiles/permission.js';
import type { PermissionChoice } from '../../profiles/types.js';
import { TERMINAL_STATES, type Task as OurTask } from '../../agent-api/task.js';
import { endsWait, fromSdkMessage, fromSdkParts, sdkMessageText, sendOptions } from './convert.js';
import { a2aMessageKey, type InflightKeys } from './inflight-keys.js';
import { LimitError, toSdkError } from './limit-error.js';
import type { SynapseError } from '../../errors.js';

/**
 * The limit that refused a call, by the call's context: the JSON-RPC transports fold every
 * error into their envelope (the 0.3 one drops its details), so the route asks here to answer a
 * limit with its own status, code and details instead (server/routes/a2a-limits.ts).
 */
const refusals = new WeakMap<ServerCallContext, SynapseError>();

export function limitRefusal(context: ServerCallContext): SynapseError | null {
  return refusals.get(context) ?? null;
}
import type { AgentApi } from '../../agent-api/agent-api.js';
import { findTask } from './task-store.js';

/**
 * The agent is shutting down (the runtime refuses `/tasks/send` the same way); REST maps it to
 * 503. A message that arrives while the agent starts is taken, queued behind its start-up
 * instruction. The ErrorInfo metadata keys are camelCase like the rest of the A2A surfaces.
 */
function agentStopping(): A2AError {
  return new A2AError({
    message: 'the agent is shutting down and takes no more messages',
    metadata: { synapseCode: 'agent_not_ready' },
  });
}

export function isAgentNotReady(err: unknown): boolean {
  return err instanceof A2AError && err.metadata?.synapseCode === 'agent_not_ready';
}

/** A follow-up message to a task showing a plan: approve, reject, or reject with the text as the reason. */
function answerPlan(api: AgentApi, taskId: string, text: string): void {
  const word = text.trim().toLowerCase();
  if (['approve', 'yes', 'y', 'ok', 'accept'].includes(word)) api.approvePlan(taskId);
  else api.rejectPlan(taskId, ['reject', 'no', 'n', 'deny'].includes(word) ? undefined : text.trim());
}

/** The approval dialog an input-required task is waiting on, if that is what it waits for. */
function permissionChoices(task: OurTask): PermissionChoice[] | null {
  const p = task.metadata.permission as { choices?: unknown } | null | undefined;
  return p && Array.isArray(p.choices) ? (p.choices as PermissionChoice[]) : null;
}

/**
 * The SDK's DefaultRequestHandler, with Synapse's admission rules applied before it runs — so a
 * refused message is a clean error response instead of a task the SDK marks failed: an agent
 * shutting down, a message that carries something to deliver, and a follow-up only for a task
 * that waits for input. A follow-up's answer is handed to the runtime here too, for the same
 * reason (an answer that is not one of the dialog's choices is the client's error); the SDK
 * then runs the turn as usual and streams the task from input-required onwards. The card comes
 * from `card()` on every call, so what clients read (status, gRPC once it listens) is current.
 */
export class SynapseRequestHandler implements A2ARequestHandler {
  constructor(
    private readonly inner: DefaultRequestHandler,
    private readonly api: AgentApi,
    private readonly card: () => AgentCard,
    private readonly keys: InflightKeys,
  ) {}

  /**
   * Idempotency (issue 21 §3): the messageId of a new message is its key. The task an earlier send
   * of this messageId made within 24 h, or null; then this send holds the key until the runtime
   * has its task (the executor lets go), so a retry that arrives meanwhile waits for it. A
   * messageId used for a different message is the client's mistake (InvalidRequest).
   */
  private async earlierTask(params: SendMessageRequest): Promise<OurTask | null> {
    const message = params.message;
    if (!message?.messageId || message.taskId) return null;
    const key = a2aMessageKey(message.messageId);
    const ours = fromSdkMessage(message);
    for (;;) {
      let prior: OurTask | null;
      try {
        prior = this.api.idempotentTask(key, ours);
      } catch (err) {
        if (isSynapseError(err) && err.code === 'idempotency_key_reused')
          throw new RequestMalformedError({
            message: `messageId ${message.messageId} was already sent with a different message: ${err.message}`,
            metadata: { synapseCode: err.code },
          });
        throw err;
      }
      if (prior) return prior;
      const held = this.keys.hold(key);
      if (!held) return null;
      await held;
    }
  }

  private letGo(params: SendMessageRequest): void {
    if (params.message?.messageId) this.keys.release(a2aMessageKey(params.message.messageId));
  }

  /** Resolves once the task is finished or waits for input (what a blocking send waits for). */
  private settled(taskId: string): Promise<void> {
    return new Promise((resolve) => {
      let done = false;
      let unsubscribe: (() => void) | null = null;
      const check = (): void => {
        if (done || !endsWait(this.api.getTask(taskId).status.state)) return;
        done = true;
        unsubscribe?.();
        resolve();
      };
      check();
      if (done) return;
      unsubscribe = this.api.events.subscribe(taskId, 0, check);
      if (done) unsubscribe();
    });
  }

  /** What a retried SendMessage answers: the first send's task, as that send would have (blocking waits). */
  private async replay(task: OurTask, params: SendMessageRequest, context: ServerCallContext): Promise<Task> {
    if (params.configuration?.returnImmediately !== true) await this.settled(task.id);
    const historyLength = params.configuration?.historyLength;
    return this.inner.getTask({ tenant: params.tenant, id: task.id, ...(historyLength !== undefined ? { historyLength } : {}) }, context);
  }

  /** A retried SendStreamingMessage: the first send's task, then its events while it runs. */
  private async *replayStream(task: OurTask, params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const request = { tenant: params.tenant, id: task.id };
    if (!TERMINAL_STATES.has(this.api.getTask(task.id).status.state)) {
      let yielded = false;
      try {
        for await (const event of this.inner.resubscribe(request, context)) {
          yielded = true;
          yield event;
        }
        return;
      } catch (err) {
        // It ended between the look and the subscription: answer with the finished task below.
        if (yielded || !TERMINAL_STATES.has(this.api.getTask(task.id).status.state)) throw err;
      }
    }
    yield { payload: { $case: 'task', value: await this.inner.getTask(request, context) } };
  }

  private async admit(params: SendMessageRequest, context: ServerCallContext): Promise<void> {
    try {
      await this.admitOrThrow(params);
    } catch (err) {
      if (err instanceof LimitError) refusals.set(context, err.synapse);
      throw err;
    }
  }

  private async admitOrThrow(params: SendMessageRequest): Promise<void> {
    const message = params.message;
    if (!message) throw new RequestMalformedError('request.message is required');
    if (!message.messageId) throw new RequestMalformedError('message.messageId is required');
    if (fromSdkParts(message.parts ?? []).length === 0) throw new RequestMalformedError('the message has no parts with content');
    if (message.taskId) return this.answer(message.taskId, message.contextId, sdkMessageText(message));
    if (!this.api.acceptingMessages()) throw agentStopping();
    // The limits (size, the sender's queue), before the SDK makes a task of it.
    try {
      this.api.admit({ message: fromSdkMessage(message), metadata: sendOptions(message.metadata, params.metadata, message.messageId).metadata });
    } catch (err) {
      throw toSdkError(err);
    }
  }

  /**
   * A message for an existing task: the answer to the approval dialog it waits for, one of the
   * dialog's choices; or, for a plan-approval screen (`metadata.plan`), "approve" / "yes", or
   * "reject" / "no", or any other text: a rejection with that text as the reason. (A CLI's
   * free-text question is not a task state: the runtime reads only these screens.)
   */
  private answer(taskId: string, contextId: string, text: string): void {
    const task = findTask(this.api, taskId);
    if (!task) throw new TaskNotFoundError(`Task not found: ${taskId}`);
    if (TERMINAL_STATES.has(task.status.state))
      throw new UnsupportedOperationError(`task ${task.id} is ${task.status.state} and takes no more messages; send a new message without taskId`);
    if (task.status.state !== 'input-required')
      throw new UnsupportedOperationError(`task ${task.id} is ${task.status.state}; only a task in input-required takes a follow-up message`);
    if (contextId && contextId !== task.context_id)
      throw new RequestMalformedError(`contextId ${contextId} is not the context of task ${task.id} (${task.context_id})`);
    const choices = permissionChoices(task);
    try {
      if (task.metadata.plan) {
        answerPlan(this.api, task.id, text);
        return;
      }
      if (!choices) throw new UnsupportedOperationError(`task ${task.id} waits for input this agent cannot take over A2A`);
      if (!pickChoice(choices, text))
        throw new RequestMalformedError(`"${text}" is not one of the choices: ${choices.map((c) => `${c.key}. ${c.label}`).join(' | ')}`);
      this.api.answerPermission(task.id, text);
    } catch (err) {
      if (isSynapseError(err) && err.code === 'invalid_input') throw new RequestMalformedError(err.message);
      if (isSynapseError(err) && (err.code === 'conflict' || err.code === 'task_not_cancelable' || err.code === 'not_awaiting_plan'))
        throw new UnsupportedOperationError(err.message);
      throw err;
    }
  }

  async getAgentCard(): Promise<AgentCard> {
    return this.card();
  }

  getAuthenticatedExtendedAgentCard(params: GetExtendedAgentCardRequest, context: ServerCallContext): Promise<AgentCard> {
    return this.inner.getAuthenticatedExtendedAgentCard(params, context);
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const earlier = await this.earlierTask(params);
    if (earlier) return this.replay(earlier, params, context);
    try {
      await this.admit(params, context);
      return await this.inner.sendMessage(params, context);
    } finally {
      this.letGo(params);
    }
  }

  async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const earlier = await this.earlierTask(params);
    if (earlier) {
      yield* this.replayStream(earlier, params, context);
      return;
    }
    try {
      await this.admit(params, context);
      yield* this.inner.sendMessageStream(params, context);
    } finally {
      this.letGo(params);
    }
  }

  getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.inner.getTask(params, context);
  }

  listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return this.inner.listTasks(params, context);
  }

  cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.inner.cancelTask(params, context);
  }

  createTaskPushNotificationConfig(params: TaskPushNotificationConfig, context: ServerCallContext): Promise<TaskPushNotificationConfig> {
    return this.inner.createTaskPushNotificationConfig(params, context);
  }

  getTaskPushNotificationConfig(params: GetTaskPushNotificationConfigRequest, context: ServerCallContext): Promise<TaskPushNotificationConfig> {
    return this.inner.getTaskPushNotificationConfig(params, context);
  }

  listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.inner.listTaskPushNotificationConfigs(params, context);
  }

  deleteTaskPushNotificationConfig(params: DeleteTaskPushNotificationConfigRequest, context: ServerCallContext): Promise<void> {
    return this.inner.deleteTaskPushNotificationConfig(params, context);
  }

  resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    return this.inner.resubscribe(params, context);
  }
}
