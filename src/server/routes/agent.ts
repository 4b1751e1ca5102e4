import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { buildAgentCard } from '../../a2a/card.js';
import type { AgentApi } from '../../agent-api/agent-api.js';
import { wireReadiness } from '../../agent-api/wire.js';
import { ADMIN_ROUTE, PUBLIC_ROUTE } from '../auth.js';
import { CardCache } from '../card-cache.js';

/** How much of the screen `GET /status` carries as `context`, as the original. */
const CONTEXT_CHARS = 2000;

export interface AgentRouteOptions {
  api: AgentApi;
  displayName: string;
  description: string;
  /** Auth is on: the card lists the security schemes. */
  secured?: boolean;
}

/** The agent card, status, rendered screen and shutdown. */
export const agentRoutes: FastifyPluginAsyncTypebox<AgentRouteOptions> = async (app, { api, displayName, description, secured }) => {
  const cards = new CardCache();
  app.get('/.well-known/agent.json', PUBLIC_ROUTE, async (req, reply) =>
    cards.send(req, reply, buildAgentCard({ self: api.entry(), displayName, description, peers: api.peers(), secured })),
  );

  /** Ours, and the original's `{status, lifecycle, ready, readiness_reason, context}` (the CLI's last 2000 characters). */
  app.get('/status', async () => {
    const e = api.entry();
    const status = api.status();
    const context = api.screen().lines.join('\n').trimEnd().slice(-CONTEXT_CHARS);
    return {
      agent_id: e.agent_id,
      name: e.name,
      type: e.agent_type,
      port: e.port,
      pid: e.pid,
      working_dir: e.working_dir,
      ...status,
      ...wireReadiness(status.status),
      context,
    };
  });

  /** What the CLI shows now, as rendered text (for `synapse logs --screen` and debugging). */
  app.get('/screen', async () => api.screen());

  app.post('/shutdown', ADMIN_ROUTE, async (_req, reply) => {
    reply.status(202).send({ ok: true, message: 'shutting down' });
    setImmediate(() => api.shutdown('shutdown requested over HTTP'));
  });
};
