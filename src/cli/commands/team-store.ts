import type { Command } from 'commander';

/** Registers the shared-store command groups (tasks board, file-safety, memory). */
export function registerStoreCommands(_program: Command): void {}
