import { registryDir, type Env } from '../config/paths.js';
import type { RegistryEntry } from './entry.js';
import { FileRegistry } from './registry.js';
import { resolveTarget } from './targets.js';

/** Type aliases users may type as a target (kept here so registry/ needs no profiles import). */
export const TYPE_ALIASES: Record<string, string> = { dummy: 'echo', 'claude-code': 'claude', 'codex-cli': 'codex', 'gemini-cli': 'gemini' };

export function openRegistry(env: Env = process.env): FileRegistry {
  return new FileRegistry(registryDir(env));
}

/** Live entries (dead ones pruned) and the one `target` names. */
export function findAgent(target: string, env: Env = process.env): { entry: RegistryEntry; registry: FileRegistry; live: RegistryEntry[] } {
  const registry = openRegistry(env);
  const live = registry.listLive();
  return { entry: resolveTarget(live, target, TYPE_ALIASES), registry, live };
}
