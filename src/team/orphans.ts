import type { RegistryEntry } from '../registry/entry.js';
import { isPidAlive } from '../registry/liveness.js';

/** A live agent whose spawning parent is gone. */
export interface Orphan {
  entry: RegistryEntry;
  /** The pid that spawned it (`spawned_by_pid` in its registry entry), no longer running. */
  parentPid: number;
}

/**
 * The agents that were spawned by a process (`synapse spawn` records `spawned_by_pid` in the
 * registry entry) that has since exited: helpers nobody will ever collect. Agents started by a
 * person (no `spawned_by_pid`) are never orphans.
 */
export function findOrphans(live: RegistryEntry[], isAlive: (pid: number) => boolean = isPidAlive): Orphan[] {
  return live.flatMap((entry) => {
    const parent = (entry as { spawned_by_pid?: unknown }).spawned_by_pid;
    if (typeof parent !== 'number' || !Number.isInteger(parent) || parent <= 0) return [];
    return isAlive(parent) ? [] : [{ entry, parentPid: parent }];
  });
}
