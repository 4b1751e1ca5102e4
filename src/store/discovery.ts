import type { Env } from '../config/paths.js';
import { hostName, qualifyIds, type HostedEntry } from '../registry/host.js';
import { openRegistry } from '../registry/lookup.js';
import type { RegistryProblem } from '../registry/registry.js';
import { storeTarget } from './store-url.js';

/**
 * The agents a command can see (issue 22 §2): this host's from the file registry (dead ones
 * pruned), and, with a PostgreSQL store, every other host's from the registry table (expired rows
 * pruned). No agent appears twice: this host's rows in the table are left out, its files are the
 * truth here. An id two hosts share is qualified as `<id>@<host>` on the remote side (`qualifyIds`).
 */
export interface Discovery {
  entries: HostedEntry[];
  /** Registry files that are not entries (see `FileRegistry.scan`). */
  problems: RegistryProblem[];
  /** This host's name (`SYNAPSE_HOST_NAME`, else the machine's). */
  host: string;
  /** True when a PostgreSQL registry table was asked (the HOST column matters then). */
  shared: boolean;
  /** Why the other hosts' agents are missing (the store could not be read), or null. */
  remoteError: string | null;
}

/** How long `synapse list` and `send` wait for an unreachable store before going on with this host's agents. */
const DISCOVERY_RETRY_MS = 1_500;

/** The other hosts' agents from the registry table (not qualified yet), or why they could not be read. */
export interface RemoteAgents {
  entries: HostedEntry[];
  error: string | null;
}

/**
 * Reads the registry table of a PostgreSQL store for every host but this one (`synapse list`,
 * `send`, and the live monitor on its poll). Never throws: a store that cannot be reached within
 * `retryForMs` is an `error`.
 */
export async function remoteAgents(url: string, host: string, retryForMs = DISCOVERY_RETRY_MS): Promise<RemoteAgents> {
  try {
    const { PgAgentRegistry } = await import('./registry-pg.js');
    const table = await PgAgentRegistry.open(url, { retryForMs });
    try {
      return { entries: (await table.listFresh(host)).map((e) => ({ ...e, remote: true })), error: null };
    } finally {
      await table.close();
    }
  } catch (err) {
    return { entries: [], error: (err as Error).message };
  }
}

export async function discoverAgents(projectDir: string, env: Env): Promise<Discovery> {
  const host = hostName(env);
  const { entries, problems } = openRegistry(env).scanLive();
  const local: HostedEntry[] = entries.map((e) => ({ ...e, host, remote: false }));
  const target = storeTarget(projectDir, env);
  if (target.backend !== 'postgres') return { entries: local, problems, host, shared: false, remoteError: null };
  const remote = await remoteAgents(target.url, host);
  return { entries: [...local, ...qualifyIds(local, remote.entries)], problems, host, shared: true, remoteError: remote.error };
}
