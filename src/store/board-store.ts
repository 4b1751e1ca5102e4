import type { Clock } from '../clock.js';
import type { Env } from '../config/paths.js';
import type { BoardTask } from './board-schema.js';
import type { CompleteResult } from './board-rules.js';
import type { BoardStore } from './board-api.js';
import { storeTarget, type StoreTarget } from './store-url.js';

export type { BoardStore } from './board-api.js';
export type { BoardTask, NewTask, TaskGroupField, TaskStatus } from './board-schema.js';

export interface OpenBoardOptions {
  /** The effective environment (SYNAPSE_STORE_URL); settings `store.url` is read from the project when the variable is unset. */
  env?: Env;
  clock?: Clock;
  /** Chosen already (tests, `synapse store`); overrides env and settings. */
  target?: StoreTarget;
  /** PostgreSQL: how long a lost connection is retried before the call fails. */
  retryForMs?: number;
}

/**
 * Opens the project's board on the configured backend. Each backend's module (better-sqlite3,
 * or pg) is loaded only now, so an idle agent loads neither until the board is used.
 */
export async function openBoard(projectDir: string, options: OpenBoardOptions = {}): Promise<BoardStore> {
  const target = options.target ?? storeTarget(projectDir, options.env ?? {});
  if (target.backend === 'postgres') {
    const { PgTaskBoard } = await import('./board-pg.js');
    return PgTaskBoard.open(target.url, { clock: options.clock, retryForMs: options.retryForMs });
  }
  const { SqliteBoardStore } = await import('./board-sqlite.js');
  return SqliteBoardStore.forProject(projectDir, { clock: options.clock });
}

/** Opens the project's board, runs `fn`, and closes it again, even when `fn` throws. */
export async function withBoard<T>(projectDir: string, fn: (board: BoardStore) => T | Promise<T>, options: OpenBoardOptions = {}): Promise<T> {
  const board = await openBoard(projectDir, options);
  try {
    return await fn(board);
  } finally {
    await board.close();
  }
}

// ── one-call helpers for code that holds no board open (send --task, the agent runtime) ────

/** `synapse send --task`: a board task assigned to the target and linked to its A2A task. */
export function createLinkedTask(
  projectDir: string,
  input: { subject: string; description?: string; assignee: string; a2a_task_id: string; created_by?: string | null; priority?: number },
  options: OpenBoardOptions = {},
): Promise<BoardTask> {
  return withBoard(projectDir, (b) => b.create(input), options);
}

export function claimByA2aTask(projectDir: string, a2aTaskId: string, agentId: string, options: OpenBoardOptions = {}): Promise<BoardTask | null> {
  return withBoard(projectDir, (b) => b.claimByA2aTask(a2aTaskId, agentId), options);
}

export function completeByA2aTask(projectDir: string, a2aTaskId: string, options: OpenBoardOptions = {}): Promise<CompleteResult | null> {
  return withBoard(projectDir, (b) => b.completeByA2aTask(a2aTaskId), options);
}

export function failByA2aTask(projectDir: string, a2aTaskId: string, reason: string, options: OpenBoardOptions = {}): Promise<BoardTask | null> {
  return withBoard(projectDir, (b) => b.failByA2aTask(a2aTaskId, reason), options);
}
