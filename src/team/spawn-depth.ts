import { envSetting } from '../config/env-setting.js';
import type { Env } from '../config/paths.js';
import { SynapseError } from '../errors.js';
import { openRegistry } from '../registry/lookup.js';

/**
 * The depth guard: how far agents spawn agents. An agent a person starts is depth 0; one that an
 * agent starts (`synapse spawn`, `start` or `team start` run by its CLI, or its `POST /spawn`,
 * `/team/start`) is one deeper than that agent. The depth travels as `SYNAPSE_SPAWN_DEPTH` in the
 * new agent's environment (so its CLI's commands carry it on) and as `spawn_depth` in its
 * registry entry; beyond `SYNAPSE_MAX_SPAWN_DEPTH` (default 2) the spawn is refused, before
 * anything starts, so that runaway delegation stops.
 */

/** The spawning agent (the one whose CLI runs this command) and its depth; null when a person runs it. */
function spawningAgent(env: Env): { id: string | null; depth: number } | null {
  const id = env.SYNAPSE_AGENT_ID ?? null;
  const fromEnv = envSetting(env, 'SYNAPSE_SPAWN_DEPTH');
  if (id === null && fromEnv === undefined) return null;
  const recorded = id ? (openRegistry(env).read(id) as { spawn_depth?: unknown } | null)?.spawn_depth : undefined;
  // The larger of the two: a CLI that drops the variable still finds its agent's entry, and back.
  const depth = Math.max(fromEnv ?? 0, typeof recorded === 'number' && Number.isInteger(recorded) ? recorded : 0);
  return { id, depth };
}

/** The depth of an agent this process would start now; throws `spawn_depth_exceeded` beyond the limit. */
export function nextSpawnDepth(env: Env): number {
  const parent = spawningAgent(env);
  if (!parent) return 0;
  const depth = parent.depth + 1;
  const max = envSetting(env, 'SYNAPSE_MAX_SPAWN_DEPTH');
  if (depth > max)
    throw new SynapseError(
      'spawn_depth_exceeded',
      `not spawning: ${parent.id ?? 'this agent'} is at spawn depth ${parent.depth} and SYNAPSE_MAX_SPAWN_DEPTH is ${max}, so it may not start another agent; do the work yourself or hand it back to the agent that started you`,
      { depth, max, parent: parent.id },
    );
  return depth;
}

/** What a new agent at `depth` carries: the variable for its environment and the field for its entry. */
export function depthMarks(depth: number): { env: Record<string, string>; extras: Record<string, unknown> } {
  return { env: { SYNAPSE_SPAWN_DEPTH: String(depth) }, extras: { spawn_depth: depth } };
}
