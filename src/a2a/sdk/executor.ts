import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { RequestMalformedError, TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { isSynapseError } from '../../errors.js';
import type { AgentApi } from '../../agent-api/agent-api.js';
import { fromSdkMessage, sendOptions } from './convert.js';
import type { TaskFeedBuses } from './task-feed.js';
import { a2aMessageKey, type InflightKeys } from './inflight-keys.js';
import type { SynapseTaskStore } from './task-store.js';

/**
 * Bridges the SDK's request lifecycle to the runtime: a new message goes into the same durable
 * inbox as `/tasks/send` under the id the SDK chose, so both views share one task. (A message
 * for an input-required task was already handed to the runtime by SynapseRequestHandler.) The
 * executor returns as soon as the runtime has the message — from then on the task's bus is fed
 * by the runtime's own events (TaskFeedBuses).
 */
export class SynapseExecutor implements AgentExecutor {
  constructor(
    private readonly api: AgentApi,
    private readonly store: SynapseTaskStore,
    private readonly buses: TaskFeedBuses,
    private readonly keys: InflightKeys,
  ) {}

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const message = ctx.userMessage;
    if (ctx.task) {
      // A follow-up: the answer is with the runtime already; stream the task on from here.
      const current = this.api.getTask(ctx.taskId);
      bus.publish(AgentEvent.task(this.store.view(current)));
      this.buses.follow(current, { announce: false });
      return;
    }
    const ours = fromSdkMessage(message);
    if (ours.parts.length === 0) throw new RequestMalformedError('the message has no parts with content');
    const { priority, metadata } = sendOptions(message.metadata, ctx.request.metadata, message.messageId);
    // The messageId is the send's idempotency key: recorded with the task, then let go of (a
    // retry waiting on it now finds the task).
    const key = a2aMessageKey(message.messageId);
    let task;
    try {
      task = this.api.submitOnce({ id: ctx.taskId, contextId: ctx.contextId, message: ours, metadata, priority }, key).task;
    } finally {
      this.keys.release(key);
    }
    bus.publish(AgentEvent.task(this.store.view(task)));
    this.buses.follow(task, { announce: true });
  };

  cancelTask = async (taskId: string, _bus: ExecutionEventBus): Promise<void> => {
    try {
      // The runtime's cancel event reaches the bus through the feed.
      this.api.cancelTask(taskId);
    } catch (err) {
      if (isSynapseError(err) && err.code === 'task_not_cancelable') throw new TaskNotCancelableError(err.message);
      if (isSynapseError(err) && err.code === 'task_not_found') throw new TaskNotFoundError(err.message);
      throw err;
    }
  };
}
