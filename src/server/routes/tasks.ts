import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TaskMetadata } from '../../agent-api/task.js';
import type { AgentApi } from '../../agent-api/agent-api.js';
import type { SendBody } from '../schemas.js';
import { loadSchemas } from '../schema-registry.js';

const RETRY_AFTER_S = 5;

/** Synapse's message routes: send (optionally with priority), get, list, cancel. */
export const taskRoutes: FastifyPluginAsyncTypebox<{ api: AgentApi }> = async (app, { api }) => {
  const { PriorityQuerySchema, SendBodySchema, TaskIdParamsSchema, TaskListQuerySchema, RespondBodySchema } = await loadSchemas('schemas');
  const send = (priority: number, body: SendBody) => {
    const metadata = (body.metadata ?? {}) as TaskMetadata;
    // Until start-up is done only urgent messages and answers get through; others retry.
    const passes = priority >= 5 || typeof metadata.in_reply_to === 'string';
    if (!passes && !api.readyForMessages()) return null;
    return api.submit({
      message: body.message,
      metadata,
      priority,
      ...(body.context_id ? { contextId: body.context_id } : {}),
      ...(body.task_id ? { id: body.task_id } : {}),
    });
  };

  const notReady = { error: { code: 'agent_not_ready', message: 'the agent is still starting; retry after the Retry-After delay' } };

  app.post('/tasks/send', { schema: { body: SendBodySchema } }, async (req, reply) => {
    const task = send(3, req.body);
    if (!task) return reply.status(503).header('Retry-After', String(RETRY_AFTER_S)).send(notReady);
    return reply.status(202).send({ task });
  });

  app.post('/tasks/send-priority', { schema: { body: SendBodySchema, querystring: PriorityQuerySchema } }, async (req, reply) => {
    const task = send(req.query.priority ?? 3, req.body);
    if (!task) return reply.status(503).header('Retry-After', String(RETRY_AFTER_S)).send(notReady);
    return reply.status(202).send({ task });
  });

  app.get('/tasks', { schema: { querystring: TaskListQuerySchema } }, async (req) => ({ tasks: api.listTasks(req.query) }));

  app.get('/tasks/:id', { schema: { params: TaskIdParamsSchema } }, async (req) => ({ task: api.getTask(req.params.id) }));

  /** Answers the CLI's approval dialog of an input-required task (keys that select the choice). */
  app.post('/tasks/:id/respond', { schema: { params: TaskIdParamsSchema, body: RespondBodySchema } }, async (req) => {
    const { task, choice } = api.answerPermission(req.params.id, req.body.choice);
    return { task: api.getTask(task.id), choice };
  });

  app.post('/tasks/:id/cancel', { schema: { params: TaskIdParamsSchema } }, async (req) => ({ task: api.cancelTask(req.params.id) }));
};
