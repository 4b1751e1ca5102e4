import { SynapseError } from '../errors.js';
import type { RegistryEntry } from './entry.js';

function describe(e: RegistryEntry): string {
  return `${e.agent_id}${e.name ? ` (${e.name})` : ''} on port ${e.port} in ${e.working_dir}`;
}

/**
 * Resolves a target the way users name agents: custom name, full id, `type-port`, then bare
 * type (only when exactly one of that type runs). `typeAliases` maps e.g. `dummy` to `echo`.
 */
export function resolveTarget(entries: RegistryEntry[], query: string, typeAliases: Record<string, string> = {}): RegistryEntry {
  const q = query.trim();
  const byName = entries.filter((e) => e.name !== null && e.name === q);
  if (byName.length === 1) return byName[0]!;
  if (byName.length > 1) {
    throw new SynapseError('ambiguous_target', `several agents are named "${q}":\n  ${byName.map(describe).join('\n  ')}\nUse the full agent id.`, {
      candidates: byName.map((e) => e.agent_id),
    });
  }
  const byId = entries.find((e) => e.agent_id === q);
  if (byId) return byId;
  const typePort = /^([a-z][a-z0-9-]*)-(\d+)$/i.exec(q);
  if (typePort) {
    const type = typeAliases[typePort[1]!.toLowerCase()] ?? typePort[1]!.toLowerCase();
    const hit = entries.find((e) => e.agent_type === type && e.port === Number(typePort[2]));
    if (hit) return hit;
  }
  const type = typeAliases[q.toLowerCase()] ?? q.toLowerCase();
  const byType = entries.filter((e) => e.agent_type === type);
  if (byType.length === 1) return byType[0]!;
  if (byType.length > 1) {
    throw new SynapseError(
      'ambiguous_target',
      `${byType.length} ${type} agents are running; name one:\n  ${byType.map(describe).join('\n  ')}`,
      { candidates: byType.map((e) => e.agent_id) },
    );
  }
  const known = entries.length ? `Running agents:\n  ${entries.map(describe).join('\n  ')}` : 'No agents are running (start one with `synapse start echo`).';
  throw new SynapseError('target_not_found', `no agent matches "${q}". ${known}`, { candidates: entries.map((e) => e.agent_id) });
}
