import type { ServerResponse } from 'node:http';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { TERMINAL_STATES } from '../../agent-api/task.js';
import type { StreamEvent } from '../../agent-api/task-events.js';
import type { AgentApi } from '../../agent-api/agent-api.js';
import { doneEvent, statusEvent } from '../../agent-api/wire.js';
import { loadSchemas } from '../schema-registry.js';
import type { StreamSlots } from '../stream-slots.js';

const KEEPALIVE_MS = 15_000;

function lastEventId(header: string | string[] | undefined, query: number | undefined): number {
  const raw = Array.isArray(header) ? header[0] : header;
  const n = raw !== undefined ? Number(raw) : (query ?? 0);
  return Number.isInteger(n) && n > 0 ? n : 0;
}

/**
 * An SSE response. `named`: each event says its name (`event:`); without it, as the original's
 * task stream does, every event is a plain message whose JSON `type` says what it is (a browser's
 * `EventSource.onmessage` sees them all). Either way `id:` lets a client resume with Last-Event-ID.
 */
interface Stream {
  send: (e: StreamEvent) => void;
  /** Events given while `fn` runs (a subscription's replay) go out in one write, not one each. */
  batch: <T>(fn: () => T) => T;
  close: () => void;
}

function openStream(raw: ServerResponse, named: boolean): Stream {
  raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  raw.write(': synapse stream\n\n');
  const keepalive = setInterval(() => raw.write(': keepalive\n\n'), KEEPALIVE_MS);
  keepalive.unref();
  // A client that goes away must not leave its timer behind.
  raw.once('close', () => clearInterval(keepalive));
  const frame = (e: StreamEvent): string => `id: ${e.id}\n${named ? `event: ${e.event}\n` : ''}data: ${JSON.stringify(e.data)}\n\n`;
  // A replay of hundreds of events written one by one queued a buffer each on the socket.
  let pending: string[] | null = null;
  return {
    send: (e) => {
      if (pending) pending.push(frame(e));
      else raw.write(frame(e));
    },
    batch: (fn) => {
      pending = [];
      try {
        return fn();
      } finally {
        const text = pending.join('');
        pending = null;
        if (text) raw.write(text);
      }
    },
    close: () => {
      clearInterval(keepalive);
      raw.end();
    },
  };
}

/**
 * HEAD of a stream: the headers, then the end. A stream's headers wait for its first body write,
 * and a HEAD response has no body, so HEAD used to hang until the client gave up.
 */
function headOnly(reply: FastifyReply): FastifyReply {
  return reply.status(200).header('cache-control', 'no-cache').type('text/event-stream; charset=utf-8').send();
}

/** SSE: one task's events (`status`, `output`, `done`, the original's shapes), and the agent's own event feed. */
export const streamRoutes: FastifyPluginAsyncTypebox<{ api: AgentApi; streams: StreamSlots }> = async (app, { api, streams }) => {
  const { TaskIdParamsSchema, StreamQuerySchema } = await loadSchemas('schemas');

  app.get('/tasks/:id/subscribe', { schema: { params: TaskIdParamsSchema, querystring: StreamQuerySchema } }, async (req, reply) => {
    const task = api.getTask(req.params.id); // 404 before any stream starts
    if (req.method === 'HEAD') return headOnly(reply);
    const after = lastEventId(req.headers['last-event-id'], req.query.last_event_id);
    streams.take(reply.raw); // 429 before the stream starts when too many are open
    reply.hijack();
    const stream = openStream(reply.raw, false);
    if (!api.events.hasJournal(task.id)) {
      // A task from before a restart: what we know is its current state.
      stream.send({ id: 1, event: 'status', data: statusEvent(task) });
      if (TERMINAL_STATES.has(task.status.state)) {
        stream.send({ id: 2, event: 'done', data: doneEvent(task) });
        stream.close();
        return;
      }
    }
    let finished = false;
    const unsubscribe = stream.batch(() =>
      api.events.subscribe(task.id, after, (e) => {
        if (finished) return;
        stream.send(e);
        if (e.event === 'done') {
          finished = true;
          queueMicrotask(() => {
            unsubscribe();
            stream.close();
          });
        }
      }),
    );
    reply.raw.on('close', () => unsubscribe());
  });

  app.get('/events', { schema: { querystring: StreamQuerySchema } }, async (req, reply) => {
    if (req.method === 'HEAD') return headOnly(reply);
    const after = lastEventId(req.headers['last-event-id'], req.query.last_event_id);
    streams.take(reply.raw);
    reply.hijack();
    const stream = openStream(reply.raw, true);
    const unsubscribe = stream.batch(() => api.events.subscribeAll(after, (e) => stream.send(e)));
    reply.raw.on('close', () => unsubscribe());
  });
};
