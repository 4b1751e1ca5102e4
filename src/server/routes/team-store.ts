import type { FastifyPluginAsync } from 'fastify';
import type { Env } from '../../config/paths.js';

export interface TeamStoreRouteOptions {
  /** The agent's working directory; the shared store lives in `<workingDir>/.synapse/`. */
  workingDir: string;
  agentId: string;
  env: Env;
}

/** Task board, file-safety and shared-memory routes on every agent (filled in by the team-store change). */
export const teamStoreRoutes: FastifyPluginAsync<TeamStoreRouteOptions> = async () => {};
