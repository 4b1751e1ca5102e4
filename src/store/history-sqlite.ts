import type { Task } from '../agent-api/task.js';
import type { ModelPrice } from '../config/pricing.js';
import type { History, SearchLogic } from './history-api.js';
import type { CleanupResult, HistoryAgent, HistoryEntry, HistoryStats } from './history-schema.js';
import type { HistoryStore } from './history.js';

/** The SQLite history behind the asynchronous interface: today's file and code, answered as Promises. */
export class SqliteHistory implements History {
  readonly backend = 'sqlite' as const;
  readonly location: string;

  constructor(readonly store: HistoryStore) {
    this.location = store.file;
  }

  async close(): Promise<void> {
    this.store.close();
  }
  async record(task: Task, agent: HistoryAgent): Promise<HistoryEntry> {
    return this.store.record(task, agent);
  }
  async list(filter?: { agent?: string; limit?: number }): Promise<HistoryEntry[]> {
    return this.store.list(filter);
  }
  async find(idOrPrefix: string, filter?: { agent?: string }): Promise<HistoryEntry> {
    return this.store.find(idOrPrefix, filter);
  }
  async search(keywords: string[], options?: { logic?: SearchLogic; agent?: string; limit?: number }): Promise<HistoryEntry[]> {
    return this.store.search(keywords, options);
  }
  async related(entry: HistoryEntry): Promise<HistoryEntry[]> {
    return this.store.related(entry);
  }
  async workingDirsOfName(name: string): Promise<string[]> {
    return this.store.workingDirsOfName(name);
  }
  async all(filter?: { agent?: string }): Promise<HistoryEntry[]> {
    return [...this.store.iterate(filter)];
  }
  async stats(filter?: { agent?: string; prices?: Readonly<Record<string, ModelPrice>> }): Promise<HistoryStats> {
    return this.store.stats(filter);
  }
  async cleanup(options: { days?: number; maxBytes?: number; dryRun?: boolean }): Promise<CleanupResult> {
    return this.store.cleanup(options);
  }
  async count(): Promise<number> {
    return this.store.count();
  }
}
