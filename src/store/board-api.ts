import type { BoardTask, NewTask, TaskFilter } from './board-schema.js';
import type { CompleteResult, PurgeOptions, PurgeResult } from './board-rules.js';

/**
 * The project's task board, whichever backend holds it (issue 22): SQLite (`.synapse/task_board.db`,
 * the default) or PostgreSQL (`SYNAPSE_STORE_URL=postgres://…`). Both pass one contract suite
 * (test/contract/store). Every method is asynchronous, so a network database fits; the SQLite one
 * runs synchronously inside. A claim has exactly one winner across processes and hosts: SQLite
 * decides it under `BEGIN IMMEDIATE`, PostgreSQL with one conditional `UPDATE … RETURNING`.
 */
export interface BoardStore {
  readonly backend: 'sqlite' | 'postgres';
  /** The file, or the database URL with its password hidden. */
  readonly location: string;
  close(): Promise<void>;
  schemaVersion(): Promise<number>;
  /** Changes whenever the board changes (the Canvas server polls it to follow the board). */
  changeToken(): Promise<string>;
  /** Rows per table, for `synapse store status`. */
  counts(): Promise<Record<string, number>>;

  resolveId(idOrPrefix: string): Promise<string>;
  get(idOrPrefix: string): Promise<BoardTask>;
  list(filter?: TaskFilter): Promise<BoardTask[]>;
  blockers(idOrPrefix: string): Promise<BoardTask[]>;
  dependants(idOrPrefix: string): Promise<BoardTask[]>;
  findByA2aTask(a2aTaskId: string): Promise<BoardTask | null>;

  create(input: NewTask): Promise<BoardTask>;
  createMany(inputs: NewTask[]): Promise<BoardTask[]>;
  assign(idOrPrefix: string, agent: string): Promise<BoardTask>;
  claim(idOrPrefix: string, agent: string): Promise<BoardTask>;
  complete(idOrPrefix: string, options?: { by?: string }): Promise<CompleteResult>;
  fail(idOrPrefix: string, reason: string): Promise<BoardTask>;
  reopen(idOrPrefix: string): Promise<BoardTask>;
  purge(options: PurgeOptions): Promise<PurgeResult>;

  linkA2aTask(idOrPrefix: string, a2aTaskId: string): Promise<BoardTask>;
  claimByA2aTask(a2aTaskId: string, agent: string): Promise<BoardTask | null>;
  completeByA2aTask(a2aTaskId: string): Promise<CompleteResult | null>;
  failByA2aTask(a2aTaskId: string, reason: string): Promise<BoardTask | null>;
}
