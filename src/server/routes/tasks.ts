import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TaskMetadata } from '../../agent-api/task.js';
import type { AgentApi } from '../../agent-api/agent-api.js';
import type { SendBody } from '../schemas.js';
import { loadSchemas } from '../schema-registry.js';

/** Synapse's message routes: send (optionally with priority), get, list, cancel. */
export const taskRoutes: FastifyPluginAsyncTypebox<{ api: AgentApi }> = async (app, { api }) => {
  const { PriorityQuerySchema, SendBodySchema, TaskIdParamsSchema, TaskListQuerySchema, RespondBodySchema } = await loadSchemas('schemas');
  // A message that arrives while the agent starts is queued behind its start-up instruction.
  const send = (priority: number, body: SendBody) => {
    const metadata = (body.metadata ?? {}) as TaskMetadata;
    return api.submit({
      message: body.message,
      metadata,
      priority,
      ...(body.context_id ? { contextId: body.context_id } : {}),
      ...(body.task_id ? { id: body.task_id } : {}),
    });
  };

  app.post('/tasks/send', { schema: { body: SendBodySchema } }, async (req, reply) => {
    const task = send(3, req.body);
    return reply.status(202).send({ task });
  });

  app.post('/tasks/send-priority', { schema: { body: SendBodySchema, querystring: PriorityQuerySchema } }, async (req, reply) => {
    const task = send(req.query.priority ?? 3, req.body);
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
