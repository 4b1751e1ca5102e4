import path from 'node:path';
import type { Env } from '../config/paths.js';
import type { HostedEntry } from '../registry/host.js';
import { withFileSafety } from './file-safety-store.js';
import { fileSafetyEnabled } from './settings.js';

/**
 * EDITING_FILE of `synapse list` and the live monitor with a PostgreSQL store (issue 22): the
 * locks are read once from the store (not from this machine's `.synapse/file_safety.db`), for
 * every agent of every host. A lock row names its holder's agent id and host, so an agent is
 * matched on both: two hosts may each run a `synapse-claude-8100`.
 */

/** One live lock as EDITING_FILE shows it: relative to the project root, a tree lock as `dir/**`. */
export interface HeldLock {
  agent_id: string;
  host: string;
  file: string;
}

/** The live locks of the project's PostgreSQL store, oldest first; [] when file safety is off. Throws when the store cannot be read. */
export async function storeLocks(projectDir: string, env: Env, retryForMs = 1_500): Promise<HeldLock[]> {
  if (!fileSafetyEnabled(env)) return [];
  const locks = await withFileSafety(projectDir, { env, retryForMs }, (s) => s.locks());
  return locks.map((l) => {
    const file = path.relative(projectDir, l.path) || l.path;
    return { agent_id: l.agent_id, host: l.host ?? '', file: l.kind === 'tree' ? `${file}/**` : file };
  });
}

/** The file an agent holds a lock on (the first, with how many more), or null; `entry.agent_id` may carry `@<host>`. */
export function editingFrom(locks: readonly HeldLock[], entry: Pick<HostedEntry, 'agent_id' | 'host'>): { file: string; more: number } | null {
  const suffix = `@${entry.host}`;
  const id = entry.agent_id.endsWith(suffix) ? entry.agent_id.slice(0, -suffix.length) : entry.agent_id;
  const held = locks.filter((l) => l.agent_id === id && l.host === entry.host);
  const first = held[0];
  return first ? { file: first.file, more: held.length - 1 } : null;
}
