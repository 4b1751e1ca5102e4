import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AgentApi } from '../../agent-api/agent-api.js';
import { messageText } from '../../agent-api/task.js';
import { toWireTask, wireReplyTarget } from '../../agent-api/wire.js';
import type { ReplyEntry } from '../../registry/reply-stack.js';
import { SynapseError } from '../../errors.js';
import { loadSchemas } from '../schema-registry.js';

function select(q: { sender_id?: string; task_id?: string }) {
  return { ...(q.sender_id ? { senderId: q.sender_id } : {}), ...(q.task_id ? { taskId: q.task_id } : {}) };
}

/**
 * The reply stack (who waits for this agent's answer) in the original's shapes, and our
 * `POST /reply` (what `synapse reply` calls: record the answer and post it to the sender).
 */
export const replyRoutes: FastifyPluginAsyncTypebox<{ api: AgentApi }> = async (app, { api }) => {
  const { ReplyBodySchema, ReplySelectQuerySchema } = await loadSchemas('schemas');

  /** The waiting message's text for the preview; a task gone from the store previews nothing. */
  const target = (entry: ReplyEntry) => {
    let text: string | null = null;
    try {
      text = messageText(api.getTask(entry.task_id).message);
    } catch {
      // The task is no longer stored: the entry still says who waits.
    }
    return wireReplyTarget(entry, text);
  };
  const found = (entry: ReplyEntry | null) => {
    if (!entry) throw new SynapseError('not_found', 'No reply target: nobody is waiting for an answer from this agent');
    return target(entry);
  };

  app.get('/reply-stack/list', async () => {
    const entries = api.replyStack(); // oldest first, as the original lists them
    const senderIds = [...new Set(entries.map((e) => e.sender_id).filter((id): id is string => id !== null))];
    return { sender_ids: senderIds, targets: entries.map(target) };
  });

  app.get('/reply-stack/get', { schema: { querystring: ReplySelectQuerySchema } }, async (req) => found(api.peekReply(select(req.query))));

  const pop = async (req: { query: { sender_id?: string; task_id?: string } }) => found(api.popReply(select(req.query)));
  app.get('/reply-stack/pop', { schema: { querystring: ReplySelectQuerySchema } }, pop);
  app.post('/reply-stack/pop', { schema: { querystring: ReplySelectQuerySchema } }, pop);

  app.post('/reply', { schema: { body: ReplyBodySchema } }, async (req) => {
    const { text, task_id, sender_id, status, error } = req.body;
    const { task, entry, forward } = await api.reply({
      text,
      ...(status ? { status } : {}),
      ...(error ? { error } : {}),
      ...(task_id ? { taskId: task_id } : {}),
      ...(sender_id ? { senderId: sender_id } : {}),
    });
    return { task: toWireTask(task), target: entry ? target(entry) : null, forward };
  });
};
