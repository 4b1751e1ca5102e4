import type { Task } from '../agent-api/task.js';
import type { ModelPrice } from '../config/pricing.js';
import type { CleanupResult, HistoryAgent, HistoryEntry, HistoryStats } from './history-schema.js';

export type SearchLogic = 'AND' | 'OR';

/** How the recording goes, for `GET /status` (`history`). */
export interface HistoryHealth {
  /** False while the database cannot be written. */
  ok: boolean;
  /** Entries waiting in memory to be written. */
  backlog: number;
  /** Entries dropped because the backlog was full (since the agent started). */
  dropped: number;
  /** Why writes fail, or null. */
  error: string | null;
  /** When they started failing, or null. */
  since: string | null;
}

/**
 * The history of finished tasks, whichever backend holds it (issue 22): the user's SQLite file
 * (`~/.synapse/history/history.db`, FTS5 with BM25), or the team's PostgreSQL store (a `tsvector`
 * index with `ts_rank`; every row names the host that recorded it). Both pass one contract suite
 * (test/contract/store/history.contract.test.ts). A record is one upsert on (task id, agent id).
 */
export interface History {
  readonly backend: 'sqlite' | 'postgres';
  /** The file, or the database URL with its password hidden. */
  readonly location: string;
  close(): Promise<void>;
  /** Adds or refreshes the entry of a finished task; resolves once it is written. */
  record(task: Task, agent: HistoryAgent): Promise<HistoryEntry>;
  /** Newest first. `agent` matches an id, a name or a type. */
  list(filter?: { agent?: string; limit?: number }): Promise<HistoryEntry[]>;
  /** One entry by full task id or unique prefix; ambiguity lists the candidates. */
  find(idOrPrefix: string, filter?: { agent?: string }): Promise<HistoryEntry>;
  /** Full text over input and output, best match first; each keyword a phrase (its last word also as a prefix). */
  search(keywords: string[], options?: { logic?: SearchLogic; agent?: string; limit?: number }): Promise<HistoryEntry[]>;
  /** Entries linked to a task: answers that name it (`in_reply_to`) and the task it answered. */
  related(entry: HistoryEntry): Promise<HistoryEntry[]>;
  /** The working directories an agent with this custom name finished tasks in. */
  workingDirsOfName(name: string): Promise<string[]>;
  /** All entries, oldest first. */
  all(filter?: { agent?: string }): Promise<HistoryEntry[]>;
  stats(filter?: { agent?: string; prices?: Readonly<Record<string, ModelPrice>> }): Promise<HistoryStats>;
  /** Older than `days` and/or the oldest beyond `maxBytes`; a dry run deletes nothing. */
  cleanup(options: { days?: number; maxBytes?: number; dryRun?: boolean }): Promise<CleanupResult>;
  count(): Promise<number>;
}
