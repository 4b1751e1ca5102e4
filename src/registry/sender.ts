import fs from 'node:fs';
import type { Env } from '../config/paths.js';
import type { RegistryEntry } from './entry.js';

/** Parent pid of `pid` from /proc (Linux); null where /proc is missing or the pid is gone. */
function parentPid(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may contain spaces: read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(fields[1]);
    return Number.isInteger(ppid) && ppid > 0 ? ppid : null;
  } catch {
    return null;
  }
}

export type SenderSource = 'flag' | 'env' | 'ancestry' | 'none';

/**
 * Who is sending: `--from` > `SYNAPSE_AGENT_ID` > the nearest registered agent among this
 * process's ancestors (a command run by an agent CLI's shell tool) > nobody (a human).
 */
export function resolveSender(live: RegistryEntry[], opts: { from?: string; env: Env; pid?: number }): { entry: RegistryEntry | null; id: string | null; source: SenderSource } {
  const byIdOrName = (q: string) => live.find((e) => e.agent_id === q) ?? live.find((e) => e.name === q) ?? null;
  if (opts.from) return { entry: byIdOrName(opts.from), id: byIdOrName(opts.from)?.agent_id ?? opts.from, source: 'flag' };
  const envId = opts.env.SYNAPSE_AGENT_ID;
  if (envId) return { entry: byIdOrName(envId), id: envId, source: 'env' };
  const pids = new Map(live.map((e) => [e.pid, e]));
  let pid: number | null = opts.pid ?? process.ppid;
  for (let depth = 0; pid !== null && pid > 1 && depth < 64; depth++) {
    const hit = pids.get(pid);
    if (hit) return { entry: hit, id: hit.agent_id, source: 'ancestry' };
    pid = parentPid(pid);
  }
  return { entry: null, id: null, source: 'none' };
}
