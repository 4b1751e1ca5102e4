import { secretRedactor } from '../../redact.js';
import { loadSchemas } from '../schema-registry.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Static } from 'typebox';
import type { MemoryQuerySchema, SaveBodySchema } from '../team-store-schemas.js';
import type { Env } from '../../config/paths.js';
import { SynapseError } from '../../errors.js';
import { openBoard, type BoardStore, type NewTask } from '../../store/board-store.js';
import { parseTaskStatus } from '../../store/board-input.js';
import { groupTasks, renderBoard, withNames } from '../../store/board-view.js';
import { memoryNotice } from '../../store/memory-notice.js';
import type { Memory } from '../../store/memory-schema.js';
import { openMemory, type MemoryStore } from '../../store/memory-store.js';
import { notifyPeers } from '../../a2a/peer-notify.js';
import { agentNameMap } from '../../registry/lookup.js';
import { parseDuration } from '../../store/duration.js';
import { sharedMemoryEnabled } from '../../store/settings.js';

export interface TeamStoreRouteOptions {
  /** The agent's working directory; the shared store lives in `<workingDir>/.synapse/`. */
  workingDir: string;
  agentId: string;
  env: Env;
}

function statuses(value: string | string[] | undefined): ReturnType<typeof parseTaskStatus>[] {
  const list = (Array.isArray(value) ? value : value === undefined ? [] : [value]).flatMap((v) => v.split(','));
  return list
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map(parseTaskStatus);
}

/**
 * Task board and shared-memory routes on every agent, two plugins of one kind: thin, validation
 * by schema, then one store call; errors are SynapseErrors mapped to statuses by the app's error
 * handler. Each store is opened on first use and closed with the app, so an agent in a directory
 * that never uses them creates no files.
 */
export const teamStoreRoutes: FastifyPluginAsyncTypebox<TeamStoreRouteOptions> = async (app, opts) => {
  await app.register(boardRoutes, opts);
  await app.register(memoryRoutes, opts);
};

// Claim/complete/reopen/purge may be posted without a body; validate them as `{}`.
async function emptyBodyIsObject(req: { body: unknown }): Promise<void> {
  if (req.body === undefined || req.body === null) req.body = {};
}

/** The board, opened on first use on the configured backend (SQLite file or PostgreSQL); a failed open is tried again next time. */
function lazyBoard(opts: TeamStoreRouteOptions): { tasks: () => Promise<BoardStore>; close: () => Promise<void> } {
  let board: Promise<BoardStore> | null = null;
  const tasks = (): Promise<BoardStore> => {
    if (!board) {
      const opening = openBoard(opts.workingDir, { env: opts.env });
      board = opening;
      opening.catch(() => {
        if (board === opening) board = null;
      });
    }
    return board;
  };
  const close = async () => {
    const open = board;
    board = null;
    if (open) await open.then((b) => b.close()).catch(() => undefined);
  };
  return { tasks, close };
}

const boardRoutes: FastifyPluginAsyncTypebox<TeamStoreRouteOptions> = async (app, opts) => {
  const {
    CreateBodySchema: CreateBody,
    BoardQuerySchema: BoardQuery,
    IdParamsSchema: IdParams,
    AgentBodySchema: AgentBody,
    FailBodySchema: FailBody,
    PurgeBodySchema: PurgeBody,
    EmptyBodySchema,
  } = await loadSchemas('team-store-schemas');
  const { tasks, close } = lazyBoard(opts);
  app.addHook('onClose', close);

  app.get('/tasks/board', { schema: { querystring: BoardQuery } }, async (req, reply) => {
    const q = req.query;
    const names = agentNameMap(opts.env);
    let assignee: string[] | undefined;
    if (q.assignee) assignee = [q.assignee, ...[...names].filter(([, n]) => n === q.assignee).map(([id]) => id)];
    const list = await (
      await tasks()
    ).list({
      status: statuses(q.status),
      assignee,
      group_id: q.group_id,
      component: q.component,
      milestone: q.milestone,
      plan_id: q.plan_id,
    });
    if (q.format === 'table') {
      return reply.type('text/plain; charset=utf-8').send(`${renderBoard(list, names, { groupBy: q.group_by, verbose: q.verbose })}\n`);
    }
    if (!q.group_by) return { tasks: list.map((t) => withNames(t, names)) };
    return {
      group_by: q.group_by,
      groups: groupTasks(list, q.group_by).map((g) => ({ key: g.key, title: g.title, tasks: g.tasks.map((t) => withNames(t, names)) })),
    };
  });

  app.get('/tasks/board/:id', { schema: { params: IdParams } }, async (req) => {
    const b = await tasks();
    const task = await b.get(req.params.id);
    return { task: withNames(task, agentNameMap(opts.env)), blockers: await b.blockers(task.id), dependants: await b.dependants(task.id) };
  });

  app.post('/tasks/board', { schema: { body: CreateBody } }, async (req, reply) => {
    const body = req.body;
    if ('tasks' in body) {
      const inputs: NewTask[] = body.tasks.map((t) => ({ ...t, plan_id: t.plan_id ?? body.plan_id }));
      return reply.status(201).send({ tasks: await (await tasks()).createMany(inputs) });
    }
    return reply.status(201).send({ task: await (await tasks()).create(body) });
  });

  app.post('/tasks/board/:id/claim', { schema: { params: IdParams, body: AgentBody }, preValidation: emptyBodyIsObject }, async (req) => {
    return { task: await (await tasks()).claim(req.params.id, req.body.agent_id ?? opts.agentId) };
  });

  app.post('/tasks/board/:id/complete', { schema: { params: IdParams, body: AgentBody }, preValidation: emptyBodyIsObject }, async (req) => {
    return (await tasks()).complete(req.params.id, { by: req.body.agent_id ?? opts.agentId });
  });

  app.post('/tasks/board/:id/fail', { schema: { params: IdParams, body: FailBody } }, async (req) => {
    return { task: await (await tasks()).fail(req.params.id, req.body.reason) };
  });

  app.post('/tasks/board/:id/reopen', { schema: { params: IdParams, body: EmptyBodySchema }, preValidation: emptyBodyIsObject }, async (req) => {
    return { task: await (await tasks()).reopen(req.params.id) };
  });

  app.post('/tasks/board/purge', { schema: { body: PurgeBody }, preValidation: emptyBodyIsObject }, async (req) => {
    const body = req.body;
    const list = statuses(body.status);
    return (await tasks()).purge({
      statuses: list.length > 0 ? list : ['completed'],
      olderThanMs: body.older_than === undefined ? undefined : parseDuration(body.older_than, 'd', 'older_than'),
      dryRun: body.dry_run,
    });
  });
};

/**
 * A note in the original Synapse's shape: `{id, key, content, author, scope, working_dir, tags,
 * created_at, updated_at}`; this project's memory is the original's `project` scope.
 */
function wireMemory(m: Memory, workingDir: string) {
  return {
    id: String(m.id),
    key: m.key,
    content: m.content,
    author: m.author,
    scope: 'project',
    working_dir: workingDir,
    tags: m.tags,
    created_at: m.created_at,
    updated_at: m.updated_at,
  };
}

/** Shared memory, on the original's paths and in its shapes (`/memory/list`, `/memory/save`, …). */
const memoryRoutes: FastifyPluginAsyncTypebox<TeamStoreRouteOptions> = async (app, opts) => {
  const {
    MemoryQuerySchema: MemoryQuery,
    SearchQuerySchema: SearchQuery,
    KeyParamsSchema: KeyParams,
    SaveBodySchema: SaveBody,
  } = await loadSchemas('team-store-schemas');
  // Opened on first use on the configured backend; a failed open is tried again next time.
  let memory: Promise<MemoryStore> | null = null;
  const notes = async (): Promise<MemoryStore> => {
    if (!sharedMemoryEnabled(opts.env)) throw new SynapseError('not_found', 'shared memory is disabled on this agent (SYNAPSE_SHARED_MEMORY_ENABLED is off)');
    if (!memory) {
      const opening = openMemory(opts.workingDir, { redact: secretRedactor(opts.env), env: opts.env });
      memory = opening;
      opening.catch(() => {
        if (memory === opening) memory = null;
      });
    }
    return memory;
  };
  const wire = (m: Memory) => wireMemory(m, opts.workingDir);
  app.addHook('onClose', async () => {
    const open = memory;
    memory = null;
    if (open) await open.then((m) => m.close()).catch(() => undefined);
  });

  const list = async (req: { query: Static<typeof MemoryQuerySchema> }) => {
    const q = req.query;
    const tags = q.tags === undefined ? undefined : q.tags.split(',').filter((t) => t.trim().length > 0);
    return {
      memories: (await (await notes()).list({ tag: q.tag, tags, author: q.author, limit: q.limit ?? 50 })).map(wire),
    };
  };
  app.get('/memory/list', { schema: { querystring: MemoryQuery } }, list);
  app.get('/memory', { schema: { querystring: MemoryQuery } }, list);

  /** `/memory/save` answers 200 as the original; our `/memory` says 201 when the key is new. */
  const save = (createdStatus: number) => async (req: { body: Static<typeof SaveBodySchema> }, reply: FastifyReply) => {
    const b = req.body;
    const tags = b.tags === undefined ? [] : Array.isArray(b.tags) ? b.tags : [b.tags];
    const result = await (await notes()).save({ key: b.key, content: b.content, tags, author: b.author ?? null });
    const notify = b.notify
      ? await notifyPeers({
          env: opts.env,
          workingDir: opts.workingDir,
          text: memoryNotice(result.memory.key, result.memory.content, result.memory.author),
          exclude: opts.agentId,
        })
      : null;
    return reply.status(result.created ? createdStatus : 200).send({ ...wire(result.memory), created: result.created, notify });
  };
  app.post('/memory/save', { schema: { body: SaveBody } }, save(200));
  app.post('/memory', { schema: { body: SaveBody } }, save(201));

  app.get('/memory/search', { schema: { querystring: SearchQuery } }, async (req) => {
    return {
      memories: (await (await notes()).search(req.query.q, { limit: req.query.limit })).map((hit) => ({ ...wire(hit), score: hit.score })),
    };
  });

  app.get('/memory/:key', { schema: { params: KeyParams } }, async (req) => {
    const m = await notes();
    return wire(await m.get(await m.keyOf(req.params.key)));
  });

  app.delete('/memory/:key', { schema: { params: KeyParams } }, async (req) => {
    const m = await notes();
    return { deleted: true, id_or_key: req.params.key, memory: wire(await m.delete(await m.keyOf(req.params.key))) };
  });
};
