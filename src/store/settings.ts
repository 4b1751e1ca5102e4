import path from 'node:path';
import { projectSynapseDir, type Env } from '../config/paths.js';
import { envSetting } from '../config/env-setting.js';
import { projectRoot } from '../registry/project.js';

/**
 * Where the three shared-store files live and whether each feature is switched on.
 * Kept in one place so the CLI, the HTTP routes and the runtime agree on every path.
 * `projectDir` is any directory of the project: the files live in the `.synapse/` of its main
 * checkout (registry/project.ts), so every worktree and subdirectory of a repository shares them.
 */

export function boardDbPath(projectDir: string): string {
  return path.join(projectSynapseDir(projectRoot(projectDir)), 'task_board.db');
}

export function fileSafetyDbPath(projectDir: string, env: Env): string {
  const override = envSetting(env, 'SYNAPSE_FILE_SAFETY_DB_PATH');
  const root = projectRoot(projectDir);
  if (override) return path.resolve(root, override);
  return path.join(projectSynapseDir(root), 'file_safety.db');
}

export function memoryDbPath(projectDir: string, env: Env = {}): string {
  const override = envSetting(env, 'SYNAPSE_SHARED_MEMORY_DB_PATH');
  const root = projectRoot(projectDir);
  if (override) return path.resolve(root, override);
  return path.join(projectSynapseDir(root), 'memory.db');
}

/** Messages left for agents that were not running (issue 21 §2): created by the first `send --queue`. */
export function messageQueueDbPath(projectDir: string): string {
  return path.join(projectSynapseDir(projectRoot(projectDir)), 'message_queue.db');
}

/** File safety is on unless `SYNAPSE_FILE_SAFETY_ENABLED` says otherwise. */
export function fileSafetyEnabled(env: Env): boolean {
  return envSetting(env, 'SYNAPSE_FILE_SAFETY_ENABLED');
}

/** Shared memory is on unless `SYNAPSE_SHARED_MEMORY_ENABLED` says otherwise. */
export function sharedMemoryEnabled(env: Env): boolean {
  return envSetting(env, 'SYNAPSE_SHARED_MEMORY_ENABLED');
}
