import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AgentApi } from '../../agent-api/agent-api.js';
import { loadSchemas } from '../schema-registry.js';

function select(q: { sender_id?: string; task_id?: string }) {
  return { ...(q.sender_id ? { senderId: q.sender_id } : {}), ...(q.task_id ? { taskId: q.task_id } : {}) };
}

/** The reply stack (who waits for this agent's answer) and `POST /reply`. */
export const replyRoutes: FastifyPluginAsyncTypebox<{ api: AgentApi }> = async (app, { api }) => {
  const { ReplyBodySchema, ReplySelectQuerySchema } = await loadSchemas('schemas');

  app.get('/reply-stack/list', async () => ({ entries: api.replyStack() }));

  app.get('/reply-stack/get', { schema: { querystring: ReplySelectQuerySchema } }, async (req, reply) => {
    const entry = api.peekReply(select(req.query));
    if (!entry) return reply.status(404).send({ error: { code: 'not_found', message: 'nobody is waiting for an answer from this agent' } });
    return { entry };
  });

  const pop = async (req: { query: { sender_id?: string; task_id?: string } }, reply: { status: (n: number) => { send: (b: unknown) => unknown } }) => {
    const entry = api.popReply(select(req.query));
    if (!entry) return reply.status(404).send({ error: { code: 'not_found', message: 'nobody is waiting for an answer from this agent' } });
    return { entry };
  };
  app.get('/reply-stack/pop', { schema: { querystring: ReplySelectQuerySchema } }, pop);
  app.post('/reply-stack/pop', { schema: { querystring: ReplySelectQuerySchema } }, pop);

  app.post('/reply', { schema: { body: ReplyBodySchema } }, async (req) => {
    const { task, entry, forward } = await api.reply({
      text: req.body.text,
      ...(req.body.task_id ? { taskId: req.body.task_id } : {}),
      ...(req.body.sender_id ? { senderId: req.body.sender_id } : {}),
    });
    return { task, entry, forward };
  });
};
