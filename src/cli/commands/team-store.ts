import type { Command } from 'commander';
import { registerTaskCommands } from './tasks.js';
import { registerFileSafetyCommands } from './file-safety.js';
import { registerMemoryCommands } from './memory.js';
import { registerHistoryCommands } from './history.js';
import { registerStoreAdminCommands } from './store.js';

/**
 * Registers the shared-store command groups (tasks board, file-safety, memory, history and
 * trace). None of these modules loads better-sqlite3 or a store module until one of their
 * actions runs, so other commands start as fast as without them.
 */
export function registerStoreCommands(program: Command): void {
  registerTaskCommands(program);
  registerFileSafetyCommands(program);
  registerMemoryCommands(program);
  registerHistoryCommands(program);
  registerStoreAdminCommands(program);
}
