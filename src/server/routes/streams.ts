import type { ServerResponse } from 'node:http';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { TERMINAL_STATES } from '../../agent-api/task.js';
import type { StreamEvent } from '../../agent-api/task-events.js';
import type { AgentApi } from '../../agent-api/agent-api.js';
import { loadSchemas } from '../schema-registry.js';

const KEEPALIVE_MS = 15_000;

function lastEventId(header: string | string[] | undefined, query: number | undefined): number {
  const raw = Array.isArray(header) ? header[0] : header;
  const n = raw !== undefined ? Number(raw) : (query ?? 0);
  return Number.isInteger(n) && n > 0 ? n : 0;
}

function openStream(raw: ServerResponse): { send: (e: StreamEvent) => void; close: () => void } {
  raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  raw.write(': synapse stream\n\n');
  const keepalive = setInterval(() => raw.write(': keepalive\n\n'), KEEPALIVE_MS);
  keepalive.unref();
  // A client that goes away must not leave its timer behind.
  raw.once('close', () => clearInterval(keepalive));
  return {
    send: (e) => raw.write(`id: ${e.id}\nevent: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`),
    close: () => {
      clearInterval(keepalive);
      raw.end();
    },
  };
}

/** SSE: one task's events (`status`, `output`, `done`), and the agent's own event feed. */
export const streamRoutes: FastifyPluginAsyncTypebox<{ api: AgentApi }> = async (app, { api }) => {
  const { TaskIdParamsSchema, StreamQuerySchema } = await loadSchemas('schemas');

  app.get('/tasks/:id/subscribe', { schema: { params: TaskIdParamsSchema, querystring: StreamQuerySchema } }, async (req, reply) => {
    const task = api.getTask(req.params.id); // 404 before any stream starts
    const after = lastEventId(req.headers['last-event-id'], req.query.last_event_id);
    reply.hijack();
    const stream = openStream(reply.raw);
    if (!api.events.hasJournal(task.id)) {
      // A task from before a restart: what we know is its current state.
      stream.send({
        id: 1,
        event: 'status',
        data: { task_id: task.id, state: task.status.state, timestamp: task.status.timestamp, message: task.status.message ?? null, receipt: task.receipt },
      });
      if (TERMINAL_STATES.has(task.status.state)) {
        stream.send({ id: 2, event: 'done', data: { task } });
        stream.close();
        return;
      }
    }
    let finished = false;
    const unsubscribe = api.events.subscribe(task.id, after, (e) => {
      if (finished) return;
      stream.send(e);
      if (e.event === 'done') {
        finished = true;
        queueMicrotask(() => {
          unsubscribe();
          stream.close();
        });
      }
    });
    reply.raw.on('close', () => unsubscribe());
  });

  app.get('/events', { schema: { querystring: StreamQuerySchema } }, async (req, reply) => {
    const after = lastEventId(req.headers['last-event-id'], req.query.last_event_id);
    reply.hijack();
    const stream = openStream(reply.raw);
    const unsubscribe = api.events.subscribeAll(after, (e) => stream.send(e));
    reply.raw.on('close', () => unsubscribe());
  });
};
