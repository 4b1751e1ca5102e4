import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { buildAgentCard } from '../../a2a/card.js';
import type { AgentApi } from '../../agent-api/agent-api.js';
import { CardCache } from '../card-cache.js';

export interface AgentRouteOptions {
  api: AgentApi;
  displayName: string;
  description: string;
}

/** The agent card, status, rendered screen and shutdown. */
export const agentRoutes: FastifyPluginAsyncTypebox<AgentRouteOptions> = async (app, { api, displayName, description }) => {
  const cards = new CardCache();
  app.get('/.well-known/agent.json', async (req, reply) =>
    cards.send(req, reply, buildAgentCard({ self: api.entry(), displayName, description, peers: api.peers() })),
  );

  app.get('/status', async () => {
    const e = api.entry();
    return { agent_id: e.agent_id, name: e.name, type: e.agent_type, port: e.port, pid: e.pid, working_dir: e.working_dir, ...api.status() };
  });

  /** What the CLI shows now, as rendered text (for `synapse logs --screen` and debugging). */
  app.get('/screen', async () => api.screen());

  app.post('/shutdown', async (_req, reply) => {
    reply.status(202).send({ ok: true, message: 'shutting down' });
    setImmediate(() => api.shutdown('shutdown requested over HTTP'));
  });
};
