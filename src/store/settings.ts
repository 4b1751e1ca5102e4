import path from 'node:path';
import { projectSynapseDir, type Env } from '../config/paths.js';

/**
 * Where the three shared-store files live and whether each feature is switched on.
 * Kept in one place so the CLI, the HTTP routes and the runtime agree on every path.
 */

const FALSE_WORDS = new Set(['0', 'false', 'no', 'off', 'disabled']);

/** Reads a boolean switch; anything but an explicit "off" word keeps the default. */
export function envFlag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (FALSE_WORDS.has(raw)) return false;
  return true;
}

export function boardDbPath(projectDir: string): string {
  return path.join(projectSynapseDir(projectDir), 'task_board.db');
}

export function fileSafetyDbPath(projectDir: string, env: Env): string {
  const override = env.SYNAPSE_FILE_SAFETY_DB_PATH;
  if (override && override.length > 0) return path.resolve(projectDir, override);
  return path.join(projectSynapseDir(projectDir), 'file_safety.db');
}

export function memoryDbPath(projectDir: string): string {
  return path.join(projectSynapseDir(projectDir), 'memory.db');
}

/** File safety is on unless `SYNAPSE_FILE_SAFETY_ENABLED` says otherwise. */
export function fileSafetyEnabled(env: Env): boolean {
  return envFlag(env, 'SYNAPSE_FILE_SAFETY_ENABLED', true);
}

/** Shared memory is on unless `SYNAPSE_SHARED_MEMORY_ENABLED` says otherwise. */
export function sharedMemoryEnabled(env: Env): boolean {
  return envFlag(env, 'SYNAPSE_SHARED_MEMORY_ENABLED', true);
}
