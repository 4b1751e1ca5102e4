import type { FastifyPluginAsync } from 'fastify';
import type { AgentApi } from '../../agent-api/agent-api.js';
import { DURATION_PATTERN } from '../../config/keys.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route when auth is on: `admin` needs the admin key (see guides/api.md). */
    access?: 'public' | 'user' | 'admin';
  }
}

// Plain JSON Schema (Fastify compiles it once); TypeBox is not loaded in agents at run time.
const text = (max: number) => ({ type: 'string', minLength: 1, maxLength: max }) as const;
/** A profile or saved agent: a word, never something a command line could take for an option. */
const target = { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' } as const;
const worktree = { anyOf: [{ type: 'boolean' }, { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }] } as const;
const terminal = { type: 'string', enum: ['auto', 'tmux', 'zellij', 'background'] } as const;
const cliArgs = { type: 'array', maxItems: 64, items: { type: 'string', maxLength: 4096 } } as const;

const SpawnBody = {
  type: 'object',
  required: ['profile'],
  additionalProperties: false,
  properties: {
    profile: target,
    name: text(128),
    role: text(4096),
    skill_set: text(128),
    port: { type: 'integer', minimum: 1, maximum: 65535 },
    worktree,
    terminal,
    cli_args: cliArgs,
    auto_approve: { type: 'boolean' },
    // The helper's lease: a duration (600, 90s, 10m, 1h30m; seconds as a number; 0 = none) and a count of answered tasks.
    keep_idle: {
      anyOf: [
        { type: 'string', maxLength: 32, pattern: DURATION_PATTERN },
        { type: 'number', minimum: 0, maximum: 31_536_000 },
      ],
    },
    keep_turns: { type: 'integer', minimum: 0, maximum: 100_000 },
  },
} as const;

const TeamBody = {
  type: 'object',
  required: ['agents'],
  additionalProperties: false,
  properties: {
    agents: { type: 'array', minItems: 1, maxItems: 16, items: { type: 'string', minLength: 1, maxLength: 512, pattern: '^[A-Za-z0-9]' } },
    worktree,
    terminal,
    cli_args: cliArgs,
  },
} as const;

const nullable = (max: number) => ({ anyOf: [{ type: 'null' }, { type: 'string', minLength: 1, maxLength: max }] }) as const;
const RenameBody = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: { name: nullable(128), role: nullable(4096) },
} as const;

/**
 * Team operations on this agent: spawn one agent or a team beside it (admin when auth is on:
 * they start programs), and rename this agent.
 */
export const teamRoutes: FastifyPluginAsync<{ api: AgentApi }> = async (app, { api }) => {
  app.post('/spawn', { schema: { body: SpawnBody }, config: { access: 'admin' } }, async (req, reply) =>
    reply.status(201).send({ agent: await api.teamOp('spawn', req.body) }),
  );

  app.post('/team/start', { schema: { body: TeamBody }, config: { access: 'admin' } }, async (req) => api.teamOp('team', req.body));

  app.post('/rename', { schema: { body: RenameBody } }, async (req) => ({
    agent: api.rename(req.body as { name?: string | null; role?: string | null }),
  }));
};
