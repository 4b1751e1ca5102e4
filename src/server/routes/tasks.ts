import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TaskMetadata } from '../../agent-api/task.js';
import type { AgentApi } from '../../agent-api/agent-api.js';
import { internalState, toWireTask } from '../../agent-api/wire.js';
import type { SendBody } from '../schemas.js';
import { loadSchemas } from '../schema-registry.js';

/**
 * Synapse's message routes, answering in the original Synapse's shapes (agent-api/wire.ts):
 * send (optionally with priority), create, get, list, cancel, reply, permission answers.
 * A message that arrives while the agent starts is queued behind its start-up instruction.
 */
export const taskRoutes: FastifyPluginAsyncTypebox<{ api: AgentApi }> = async (app, { api }) => {
  const {
    PriorityQuerySchema,
    SendBodySchema,
    SendHeadersSchema,
    TaskIdParamsSchema,
    TaskListQuerySchema,
    RespondBodySchema,
    PlanRejectBodySchema,
    CreateTaskBodySchema,
    TaskReplyBodySchema,
    HistoryUpdateBodySchema,
  } = await loadSchemas('schemas');
  /**
   * A send, once per `Idempotency-Key` when the request carries one: a new task is 202, the task
   * an earlier send with the key made is 200 (nothing is queued or typed again).
   */
  const send = (priority: number, body: SendBody, key: string | undefined) => {
    const metadata = (body.metadata ?? {}) as TaskMetadata;
    const input = {
      message: body.message,
      metadata,
      priority,
      ...(body.context_id ? { contextId: body.context_id } : {}),
      ...(body.task_id ? { id: body.task_id } : {}),
    };
    if (key === undefined) return { task: api.submit(input), replayed: false };
    return api.submitOnce(input, `idempotency-key:${key}`);
  };

  app.post('/tasks/send', { schema: { body: SendBodySchema, headers: SendHeadersSchema } }, async (req, reply) => {
    const { task, replayed } = send(3, req.body, req.headers['idempotency-key']);
    return reply.status(replayed ? 200 : 202).send({ task: toWireTask(task) });
  });

  app.post('/tasks/send-priority', { schema: { body: SendBodySchema, querystring: PriorityQuerySchema, headers: SendHeadersSchema } }, async (req, reply) => {
    const { task, replayed } = send(req.query.priority ?? 3, req.body, req.headers['idempotency-key']);
    return reply.status(replayed ? 200 : 202).send({ task: toWireTask(task) });
  });

  /** A task that awaits an answer (`in_reply_to` it), working at once, never typed into the CLI. */
  app.post('/tasks/create', { schema: { body: CreateTaskBodySchema } }, async (req) => {
    const body = req.body;
    const task = api.createTask({
      message: body.message,
      ...(body.metadata ? { metadata: body.metadata } : {}),
      ...(body.context_id ? { contextId: body.context_id } : {}),
    });
    return { task: toWireTask(task) };
  });

  /** Newest first; the original's `context_id` filter, and our `state` and `limit`. */
  app.get('/tasks', { schema: { querystring: TaskListQuerySchema } }, async (req) => {
    const { state, limit, context_id } = req.query;
    const filter = { ...(state ? { state: internalState(state) } : {}), ...(context_id ? { contextId: context_id } : {}), ...(limit ? { limit } : {}) };
    return api.listTasks(filter).map(toWireTask);
  });

  app.get('/tasks/:id', { schema: { params: TaskIdParamsSchema } }, async (req) => toWireTask(api.getTask(req.params.id)));

  /** Answers the CLI's approval dialog of an input-required task (keys that select the choice). */
  app.post('/tasks/:id/respond', { schema: { params: TaskIdParamsSchema, body: RespondBodySchema } }, async (req) => {
    const { task, choice } = api.answerPermission(req.params.id, req.body.choice);
    return { task: toWireTask(api.getTask(task.id)), choice };
  });

  // The original's routes for the same dialog: the approve or the deny choice.
  const decide = (id: string, choice: 'approve' | 'deny', label: 'approved' | 'denied') => {
    const answered = api.answerPermission(id, choice);
    return { status: label, task_id: answered.task.id, choice: answered.choice };
  };
  // They take no body (a JSON body is allowed and ignored).
  const permissionRoute = { schema: { params: TaskIdParamsSchema } };
  app.post('/tasks/:id/permission/approve', permissionRoute, async (req) => decide(req.params.id, 'approve', 'approved'));
  app.post('/tasks/:id/permission/deny', permissionRoute, async (req) => decide(req.params.id, 'deny', 'denied'));

  // The CLI's plan-approval screen (the task is input-required with metadata.plan): approve, or
  // reject with a reason that becomes the agent's next message. Approve takes no body (a JSON
  // body is allowed and ignored).
  app.post('/tasks/:id/approve', permissionRoute, async (req) => {
    const task = api.approvePlan(req.params.id);
    return { status: 'approved', task_id: task.id };
  });
  app.post('/tasks/:id/reject', { schema: { params: TaskIdParamsSchema, body: PlanRejectBodySchema } }, async (req) => {
    const { task, followUp } = api.rejectPlan(req.params.id, req.body.reason);
    return { status: 'rejected', task_id: task.id, reason_task_id: followUp?.id ?? null };
  });

  app.post('/tasks/:id/cancel', { schema: { params: TaskIdParamsSchema } }, async (req) => {
    const task = api.cancelTask(req.params.id);
    return { status: 'canceled', task_id: task.id, task: toWireTask(task) };
  });

  /** The original's explicit reply on this agent's own task: recorded, nothing posted to the sender. */
  app.post('/tasks/:id/reply', { schema: { params: TaskIdParamsSchema, body: TaskReplyBodySchema } }, async (req) => {
    const { message, status, error } = req.body;
    return toWireTask(api.recordReply(req.params.id, { text: message, ...(status ? { status } : {}), ...(error ? { error } : {}) }));
  });

  /** Another agent reports how a message sent from here (a `/tasks/create` task) ended. */
  app.post('/history/update', { schema: { body: HistoryUpdateBodySchema } }, async (req) => {
    const task = api.updateHistory(req.body);
    return { updated: true, task_id: task.id, status: req.body.status };
  });
};
