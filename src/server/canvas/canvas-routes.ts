import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { Env } from '../../config/paths.js';
import { SynapseError } from '../../errors.js';
import { CARD_TYPES, type CanvasStore } from '../../store/canvas.js';
import { openExistingHistory } from '../../store/history-open.js';
import { agentViews, type CanvasLive } from './canvas-live.js';

/** What the Agent Control view's send does: deliver with `--wait` semantics and hand back the answer. */
export interface CanvasSend {
  (target: string, text: string, timeoutMs: number): Promise<{ task_id: string; target: string; status: string; answer: string; error: unknown }>;
}

export interface CanvasRouteOptions {
  env: Env;
  canvas: CanvasStore;
  live: CanvasLive;
  send: CanvasSend;
  /** Focuses an agent's terminal pane (`synapse jump`); answers what it did. */
  jump: (target: string) => Promise<string>;
  info: () => Record<string, unknown>;
}

const Id = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.-]+$' });
const IdParams = Type.Object({ id: Id });
const CardBody = Type.Object(
  {
    type: Type.Union(CARD_TYPES.map((t) => Type.Literal(t))),
    body: Type.Unknown(),
    title: Type.Optional(Type.String({ maxLength: 500 })),
    id: Type.Optional(Id),
    tags: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 20 })),
    agent_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    agent_name: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
const CardQuery = Type.Object({
  agent: Type.Optional(Type.String({ maxLength: 200 })),
  type: Type.Optional(Type.Union(CARD_TYPES.map((t) => Type.Literal(t)))),
  search: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
});
const ClearBody = Type.Object({ agent: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }, { additionalProperties: false });
const HistoryQuery = Type.Object({
  q: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  agent: Type.Optional(Type.String({ maxLength: 200 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
});
const SendBody = Type.Object(
  {
    target: Type.String({ minLength: 1, maxLength: 200 }),
    message: Type.String({ minLength: 1, maxLength: 100_000 }),
    timeout_s: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })),
  },
  { additionalProperties: false },
);
const TargetParams = Type.Object({ target: Type.String({ minLength: 1, maxLength: 200 }) });

/**
 * The Canvas server's JSON routes (guides/canvas.md lists them): cards, agents, the board, the
 * history and Agent Control's send. Every write is also told to the open dashboards.
 */

export function canvasRoutes(app: FastifyInstance, opts: CanvasRouteOptions): void {
  const { canvas, live } = opts;

  app.get('/api/status', async () => ({ ...opts.info(), clients: live.clientCount }));

  app.get<{ Querystring: Static<typeof CardQuery> }>('/api/cards', { schema: { querystring: CardQuery } }, async (req) => ({
    cards: canvas.list(req.query),
  }));

  app.post<{ Body: Static<typeof CardBody> }>('/api/cards', { schema: { body: CardBody } }, async (req, reply) => {
    const b = req.body;
    const result = canvas.post({
      type: b.type,
      body: b.body,
      agent_id: b.agent_id ?? 'user',
      ...(b.id !== undefined ? { id: b.id } : {}),
      ...(b.title !== undefined ? { title: b.title } : {}),
      ...(b.tags !== undefined ? { tags: b.tags } : {}),
      ...(b.agent_name !== undefined ? { agent_name: b.agent_name } : {}),
    });
    live.broadcast({ type: 'card', card: result.card });
    return reply.status(result.created ? 201 : 200).send(result);
  });

  app.get<{ Params: Static<typeof IdParams> }>('/api/cards/:id', { schema: { params: IdParams } }, async (req) => canvas.get(req.params.id));

  app.delete<{ Params: Static<typeof IdParams> }>('/api/cards/:id', { schema: { params: IdParams } }, async (req) => {
    const card = canvas.delete(req.params.id);
    live.broadcast({ type: 'card_deleted', id: card.id });
    return card;
  });

  app.post<{ Body: Static<typeof ClearBody> }>('/api/cards/clear', { schema: { body: ClearBody } }, async (req) => {
    const deleted = canvas.clear(req.body.agent ? { agent: req.body.agent } : {});
    live.broadcast({ type: 'cards_changed' });
    return { deleted };
  });

  app.get('/api/agents', async () => ({ agents: agentViews(opts.env) }));

  app.post<{ Params: Static<typeof TargetParams> }>('/api/agents/:target/jump', { schema: { params: TargetParams } }, async (req) => ({
    message: await opts.jump(req.params.target),
  }));

  app.get('/api/board', async () => ({ tasks: await live.boardTasks() }));

  app.get<{ Querystring: Static<typeof HistoryQuery> }>('/api/history', { schema: { querystring: HistoryQuery } }, async (req) => {
    const history = await openExistingHistory(opts.live.projectDir, { env: opts.env });
    if (!history) return { entries: [] };
    try {
      const filter = { limit: req.query.limit ?? 100, ...(req.query.agent ? { agent: req.query.agent } : {}) };
      return { entries: req.query.q ? await history.search([req.query.q], filter) : await history.list(filter) };
    } finally {
      await history.close();
    }
  });

  app.post<{ Body: Static<typeof SendBody> }>('/api/send', { schema: { body: SendBody } }, async (req) => {
    if (req.body.message.trim() === '') throw new SynapseError('usage', 'the message is empty');
    return opts.send(req.body.target, req.body.message, (req.body.timeout_s ?? 600) * 1000);
  });
}
