import type { Clock } from '../clock.js';
import type { Env } from '../config/paths.js';
import type { Redactor } from '../redact.js';
import type { MemoryStore } from './memory-api.js';
import { storeTarget, type StoreTarget } from './store-url.js';

export type { MemoryStore } from './memory-api.js';

/**
 * Opens the project's shared memory on the configured backend (SYNAPSE_STORE_URL / settings
 * store.url); better-sqlite3 or pg is loaded only now.
 */
export async function openMemory(
  projectDir: string,
  options: { env: Env; redact: Redactor; clock?: Clock; target?: StoreTarget; retryForMs?: number },
): Promise<MemoryStore> {
  const target = options.target ?? storeTarget(projectDir, options.env);
  if (target.backend === 'postgres') {
    const { PgMemory } = await import('./memory-pg.js');
    return PgMemory.open(target.url, { redact: options.redact, clock: options.clock, retryForMs: options.retryForMs });
  }
  const [{ SharedMemory }, { SqliteMemoryStore }] = await Promise.all([import('./memory.js'), import('./memory-sqlite.js')]);
  return new SqliteMemoryStore(SharedMemory.forProject(projectDir, { redact: options.redact, clock: options.clock, env: options.env }));
}
