import type { Env } from '../config/paths.js';
import type { RegistryEntry } from './entry.js';
import { parentReader, type ParentOf } from './ancestry.js';
import { findTarget } from './targets.js';
import { envSetting } from '../config/env-setting.js';

type SenderSource = 'flag' | 'env' | 'ancestry' | 'none';

export interface Sender {
  /** The live agent that sends, or null (a human, or a name no live agent has). */
  entry: RegistryEntry | null;
  /** What the message says it is from: the agent's id, else the name given, else null. */
  id: string | null;
  source: SenderSource;
  /** Set when `--from` or `SYNAPSE_AGENT_ID` names no live agent: an answer cannot reach it. */
  warning: string | null;
}

function named(live: RegistryEntry[], query: string, source: 'flag' | 'env'): Sender {
  const entry = findTarget(live, query);
  if (entry) return { entry, id: entry.agent_id, source, warning: null };
  const what = source === 'flag' ? `--from "${query}"` : `SYNAPSE_AGENT_ID "${query}"`;
  return {
    entry: null,
    id: query,
    source,
    warning: `${what} names no live agent (no running agent has that id or name): the message goes out as from "${query}", and an answer cannot reach it`,
  };
}

/**
 * Who is sending: `--from` > `SYNAPSE_AGENT_ID` > the nearest registered agent among this
 * process's ancestors (a command run by an agent CLI's shell tool) > nobody (a human).
 * `--from` and `SYNAPSE_AGENT_ID` are resolved like a target; naming several agents is an
 * `ambiguous_target` error.
 */
export function resolveSender(live: RegistryEntry[], opts: { from?: string; env: Env; pid?: number; parentOf?: ParentOf }): Sender {
  if (opts.from) return named(live, opts.from, 'flag');
  const envId = envSetting(opts.env, 'SYNAPSE_AGENT_ID');
  if (envId) return named(live, envId, 'env');
  const pids = new Map(live.map((e) => [e.pid, e]));
  if (pids.size === 0) return { entry: null, id: null, source: 'none', warning: null };
  const parentPid = opts.parentOf ?? parentReader();
  let pid: number | null = opts.pid ?? process.ppid;
  for (let depth = 0; pid !== null && pid > 1 && depth < 64; depth++) {
    const hit = pids.get(pid);
    if (hit) return { entry: hit, id: hit.agent_id, source: 'ancestry', warning: null };
    pid = parentPid(pid);
  }
  return { entry: null, id: null, source: 'none', warning: null };
}
