import { SynapseError } from '../errors.js';
import { findProfile } from '../profiles/index.js';
import type { RegistryEntry } from './entry.js';
import type { RegistryProblem } from './registry.js';

/** The agent type a user means: a profile alias (`dummy`, `copilot-cli` …) becomes its profile id. */
export function canonicalType(name: string): string {
  return findProfile(name)?.id ?? name.toLowerCase();
}

/**
 * Whether an agent is of the type a user names: the type as written, or its profile id. The
 * registry is shared with the original Synapse, whose types are not all ours (its `dummy` is an
 * alias of our `echo`), so `dummy` names the original's dummy agents and our echo agents alike.
 */
export function isOfType(entry: RegistryEntry, type: string): boolean {
  const t = type.trim().toLowerCase();
  return entry.agent_type.toLowerCase() === t || entry.agent_type === canonicalType(t);
}

function describeAgent(e: RegistryEntry): string {
  const host = (e as RegistryEntry & { remote?: unknown; host?: unknown }).remote === true ? ` on host ${String((e as { host?: unknown }).host)}` : '';
  return `${e.agent_id}${e.name ? ` (${e.name})` : ''}${host} on port ${e.port} in ${e.working_dir}`;
}

type Tier = 'name' | 'id' | 'type-port' | 'type';

/**
 * The agents a query names, at the first of these that matches anything: custom name, full id,
 * `type-port`, bare type (aliases from the profiles).
 */
function matchAgents<E extends RegistryEntry>(entries: E[], query: string): { tier: Tier; matches: E[] } | null {
  const q = query.trim();
  const tiers: Array<[Tier, (e: RegistryEntry) => boolean]> = [
    ['name', (e) => e.name !== null && e.name === q],
    ['id', (e) => e.agent_id === q],
  ];
  const typePort = /^([a-z][a-z0-9_-]*)-(\d+)$/i.exec(q);
  if (typePort) tiers.push(['type-port', (e) => e.port === Number(typePort[2]) && isOfType(e, typePort[1]!)]);
  tiers.push(['type', (e) => isOfType(e, q)]);
  for (const [tier, test] of tiers) {
    const matches = entries.filter(test);
    if (matches.length > 0) return { tier, matches };
  }
  return null;
}

/** Every agent a query names (by the same order as `resolveTarget`), for callers that ask them all. */
export function agentsNamed(entries: RegistryEntry[], query: string): RegistryEntry[] {
  return matchAgents(entries, query)?.matches ?? [];
}

/** The one agent a query names, or null when none does; several is an `ambiguous_target` error. */
export function findTarget<E extends RegistryEntry>(entries: E[], query: string): E | null {
  const q = query.trim();
  const found = matchAgents(entries, q);
  if (!found) return null;
  const { tier, matches } = found;
  if (matches.length === 1) return matches[0]!;
  const list = matches.map(describeAgent).join('\n  ');
  const message =
    tier === 'type'
      ? `${matches.length} ${new Set(matches.map((e) => e.agent_type)).size === 1 ? matches[0]!.agent_type : q} agents are running; name one:\n  ${list}`
      : `several agents ${tier === 'name' ? 'are named' : 'match'} "${q}":\n  ${list}\nUse the full agent id.`;
  throw new SynapseError('ambiguous_target', message, { candidates: matches.map((e) => e.agent_id) });
}

/**
 * Resolves a target the way users name agents: custom name, full id, `type-port`, then bare
 * type (only when exactly one of that type runs). Absence and ambiguity are errors that list
 * the candidates; absence also names the registry files that were skipped (`skipped`), since
 * the agent meant may be behind one of them.
 */
export function resolveTarget<E extends RegistryEntry>(entries: E[], query: string, skipped: RegistryProblem[] = []): E {
  const hit = findTarget(entries, query);
  if (hit) return hit;
  const known = entries.length
    ? `Running agents:\n  ${entries.map(describeAgent).join('\n  ')}`
    : 'No agents are running (start one with `synapse start echo`).';
  const unread = skipped.length ? `\nRegistry files skipped (not entries):\n  ${skipped.map((p) => `${p.file}: ${p.reason}`).join('\n  ')}` : '';
  throw new SynapseError('target_not_found', `no agent matches "${query.trim()}". ${known}${unread}`, { candidates: entries.map((e) => e.agent_id) });
}

/**
 * The agent id a user meant, for records that name an agent (board assignees, lock owners):
 * a live agent the query names (as `findTarget`) gives its id; when none does, the query
 * itself is kept, so a name of someone who is not a running agent still works. Ambiguity is
 * an error, never a guess.
 */
export function resolveAgentIdOrName(entries: RegistryEntry[], query: string): string {
  return findTarget(entries, query)?.agent_id ?? query.trim();
}
