import type { Clock } from '../clock.js';
import { TaskBoard } from './board.js';
import type { BoardStore } from './board-api.js';
import type { BoardTask, NewTask, TaskFilter } from './board-schema.js';
import type { CompleteResult, PurgeOptions, PurgeResult } from './board-rules.js';

/**
 * The SQLite board behind the asynchronous interface: today's file and today's code
 * (better-sqlite3, synchronous inside, every state change under `BEGIN IMMEDIATE`), each call
 * answered as a Promise.
 */
export class SqliteBoardStore implements BoardStore {
  readonly backend = 'sqlite' as const;
  readonly location: string;

  constructor(readonly board: TaskBoard) {
    this.location = board.file;
  }

  static forProject(projectDir: string, options: { clock?: Clock } = {}): SqliteBoardStore {
    return new SqliteBoardStore(TaskBoard.forProject(projectDir, options));
  }

  async close(): Promise<void> {
    this.board.close();
  }
  async schemaVersion(): Promise<number> {
    return this.board.schemaVersion();
  }
  async changeToken(): Promise<string> {
    return String(this.board.dataVersion());
  }
  async counts(): Promise<Record<string, number>> {
    return this.board.counts();
  }
  async resolveId(idOrPrefix: string): Promise<string> {
    return this.board.resolveId(idOrPrefix);
  }
  async get(idOrPrefix: string): Promise<BoardTask> {
    return this.board.get(idOrPrefix);
  }
  async list(filter?: TaskFilter): Promise<BoardTask[]> {
    return this.board.list(filter);
  }
  async blockers(idOrPrefix: string): Promise<BoardTask[]> {
    return this.board.blockers(idOrPrefix);
  }
  async dependants(idOrPrefix: string): Promise<BoardTask[]> {
    return this.board.dependants(idOrPrefix);
  }
  async findByA2aTask(a2aTaskId: string): Promise<BoardTask | null> {
    return this.board.findByA2aTask(a2aTaskId);
  }
  async create(input: NewTask): Promise<BoardTask> {
    return this.board.create(input);
  }
  async createMany(inputs: NewTask[]): Promise<BoardTask[]> {
    return this.board.createMany(inputs);
  }
  async assign(idOrPrefix: string, agent: string): Promise<BoardTask> {
    return this.board.assign(idOrPrefix, agent);
  }
  async claim(idOrPrefix: string, agent: string): Promise<BoardTask> {
    return this.board.claim(idOrPrefix, agent);
  }
  async complete(idOrPrefix: string, options?: { by?: string }): Promise<CompleteResult> {
    return this.board.complete(idOrPrefix, options);
  }
  async fail(idOrPrefix: string, reason: string): Promise<BoardTask> {
    return this.board.fail(idOrPrefix, reason);
  }
  async reopen(idOrPrefix: string): Promise<BoardTask> {
    return this.board.reopen(idOrPrefix);
  }
  async purge(options: PurgeOptions): Promise<PurgeResult> {
    return this.board.purge(options);
  }
  async linkA2aTask(idOrPrefix: string, a2aTaskId: string): Promise<BoardTask> {
    return this.board.linkA2aTask(idOrPrefix, a2aTaskId);
  }
  async claimByA2aTask(a2aTaskId: string, agent: string): Promise<BoardTask | null> {
    return this.board.claimByA2aTask(a2aTaskId, agent);
  }
  async completeByA2aTask(a2aTaskId: string): Promise<CompleteResult | null> {
    return this.board.completeByA2aTask(a2aTaskId);
  }
  async failByA2aTask(a2aTaskId: string, reason: string): Promise<BoardTask | null> {
    return this.board.failByA2aTask(a2aTaskId, reason);
  }
}
