import { registryDir, type Env } from '../config/paths.js';
import type { RegistryEntry } from './entry.js';
import { FileRegistry } from './registry.js';
import { findTarget, resolveAgentIdOrName, resolveTarget } from './targets.js';

/**
 * The registry as every caller sees it (CLI, store routes, runtime): entries from
 * `registryDir(env)`, live = pid alive and heartbeat fresh, dead entries pruned on the way.
 */
export function openRegistry(env: Env): FileRegistry {
  return new FileRegistry(registryDir(env));
}

/** The live agents (dead ones pruned). */
export function liveAgents(env: Env): RegistryEntry[] {
  return openRegistry(env).listLive();
}

/** Live entries (dead ones pruned) and the one `target` names; absence and ambiguity throw. */
export function findAgent(target: string, env: Env): { entry: RegistryEntry; registry: FileRegistry; live: RegistryEntry[] } {
  const registry = openRegistry(env);
  const { entries: live, problems } = registry.scanLive();
  return { entry: resolveTarget(live, target, problems), registry, live };
}

/** The live agent `query` names, or null when none does; ambiguity throws. */
export function findLiveAgent(query: string, env: Env): RegistryEntry | null {
  return findTarget(liveAgents(env), query);
}

/** The live agent's id `query` names, or `query` itself when no live agent matches (see `resolveAgentIdOrName`). */
export function agentIdOrName(query: string, env: Env): string {
  return resolveAgentIdOrName(liveAgents(env), query);
}

/** agent_id → name of every well-formed entry, live or not, for showing names instead of ids. */
export function agentNameMap(env: Env): Map<string, string> {
  const map = new Map<string, string>();
  for (const e of openRegistry(env).readAll()) if (e.name) map.set(e.agent_id, e.name);
  return map;
}
