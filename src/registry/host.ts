import os from 'node:os';
import { envSetting } from '../config/env-setting.js';
import type { Env } from '../config/paths.js';
import type { RegistryEntry } from './entry.js';

/**
 * Which host an agent runs on, as the registry table of a PostgreSQL store and the HOST column of
 * `synapse list` name it (issue 22 §2): `SYNAPSE_HOST_NAME`, else the machine's host name.
 */
export function hostName(env: Env): string {
  return envSetting(env, 'SYNAPSE_HOST_NAME')?.trim() || os.hostname();
}

/**
 * An entry as discovery shows it: the file registry's (this host) or a row of the registry table
 * (another host). `host` names the host; a remote entry's pid means nothing here, and its
 * `agent_id` carries `@<host>` when the plain id is taken by another agent (see `qualifyIds`).
 */
export type HostedEntry = RegistryEntry & { host: string; remote: boolean };

/**
 * Agent ids stay unique across hosts: an id is `synapse-<type>-<port>`, unique on its host (the
 * port is bound there). Two hosts may both run `synapse-claude-8100`; then every remote one of
 * them is shown and addressed as `synapse-claude-8100@<host>`, while a local agent keeps its plain
 * id. An id no other host uses stays plain everywhere.
 */
export function qualifyIds(local: HostedEntry[], remote: HostedEntry[]): HostedEntry[] {
  const count = new Map<string, number>();
  for (const e of [...local, ...remote]) count.set(e.agent_id, (count.get(e.agent_id) ?? 0) + 1);
  return remote.map((e) => ((count.get(e.agent_id) ?? 0) > 1 ? { ...e, agent_id: `${e.agent_id}@${e.host}` } : e));
}
