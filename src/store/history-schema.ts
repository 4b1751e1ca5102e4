import path from 'node:path';
import type { Receipt, TaskMetadata, TaskState } from '../agent-api/task.js';
import { synapseHome, type Env } from '../config/paths.js';
import { envSetting } from '../config/env-setting.js';
import type { TokenCounts } from '../config/pricing.js';
import type { TokenUsage } from '../profiles/usage-records.js';
import type { Migration } from './sqlite.js';

/** `~/.synapse/history/history.db`: one file for every agent of the user. */
export function historyDbPath(env: Env): string {
  const override = envSetting(env, 'SYNAPSE_HISTORY_DB_PATH');
  return override ? path.resolve(override) : path.join(synapseHome(env), 'history', 'history.db');
}

/**
 * History schema. v1: one row per finished task per agent (a client-chosen task id may reach
 * several agents, so the key is the pair), the texts as columns for FTS5, receipt and metadata
 * as JSON, and an external-content FTS5 index over input and output kept in step by triggers.
 */
/** The columns of a history row on every backend (SQLite adds its `seq`; PostgreSQL the host and `in_reply_to`). */
export const HISTORY_COLUMNS = [
  'task_id',
  'agent_id',
  'agent_name',
  'agent_type',
  'working_dir',
  'sender_id',
  'sender_name',
  'sender_type',
  'input',
  'output',
  'status',
  'status_message',
  'priority',
  'context_id',
  'reply_source',
  'receipt',
  'metadata',
  'created_at',
  'finished_at',
  'duration_ms',
  'turn_ms',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'usage',
] as const;

export const HISTORY_MIGRATIONS: Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE history (
        seq            INTEGER PRIMARY KEY AUTOINCREMENT,
        task_id        TEXT NOT NULL,
        agent_id       TEXT NOT NULL,
        agent_name     TEXT,
        agent_type     TEXT NOT NULL,
        working_dir    TEXT,
        sender_id      TEXT,
        sender_name    TEXT,
        sender_type    TEXT,
        input          TEXT NOT NULL,
        output         TEXT NOT NULL,
        status         TEXT NOT NULL,
        status_message TEXT,
        priority       INTEGER NOT NULL,
        context_id     TEXT,
        reply_source   TEXT,
        receipt        TEXT NOT NULL,
        metadata       TEXT NOT NULL,
        created_at     TEXT NOT NULL,
        finished_at    TEXT NOT NULL,
        duration_ms    INTEGER,
        turn_ms        INTEGER,
        UNIQUE (task_id, agent_id)
      );
      CREATE INDEX history_by_finished ON history(finished_at);
      CREATE INDEX history_by_agent ON history(agent_id, finished_at);
      CREATE INDEX history_by_name ON history(agent_name);
      CREATE VIRTUAL TABLE history_fts USING fts5(
        input, output,
        content = 'history', content_rowid = 'seq',
        tokenize = 'unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER history_fts_insert AFTER INSERT ON history BEGIN
        INSERT INTO history_fts(rowid, input, output) VALUES (new.seq, new.input, new.output);
      END;
      CREATE TRIGGER history_fts_delete AFTER DELETE ON history BEGIN
        INSERT INTO history_fts(history_fts, rowid, input, output) VALUES ('delete', old.seq, old.input, old.output);
      END;
      CREATE TRIGGER history_fts_update AFTER UPDATE OF input, output ON history BEGIN
        INSERT INTO history_fts(history_fts, rowid, input, output) VALUES ('delete', old.seq, old.input, old.output);
        INSERT INTO history_fts(rowid, input, output) VALUES (new.seq, new.input, new.output);
      END;
    `,
  },
  {
    // v2 (issue 20 §3): the tokens the CLI recorded for the task's turn; NULL = none recorded.
    version: 2,
    sql: `
      ALTER TABLE history ADD COLUMN input_tokens INTEGER;
      ALTER TABLE history ADD COLUMN output_tokens INTEGER;
      ALTER TABLE history ADD COLUMN cache_read_tokens INTEGER;
      ALTER TABLE history ADD COLUMN cache_write_tokens INTEGER;
      ALTER TABLE history ADD COLUMN usage TEXT;
    `,
  },
];

/** Who finished the task: the fields of the agent's registry entry history keeps. */
export interface HistoryAgent {
  agent_id: string;
  name: string | null;
  agent_type: string;
  working_dir: string;
}

export interface HistoryEntry {
  task_id: string;
  agent_id: string;
  agent_name: string | null;
  agent_type: string;
  working_dir: string | null;
  sender_id: string | null;
  sender_name: string | null;
  sender_type: string | null;
  /** The message text (files and data parts summarised). */
  input: string;
  /** The answer: the artifacts' text. */
  output: string;
  status: TaskState;
  /** Why it failed or was canceled, when the runtime said. */
  status_message: string | null;
  priority: number;
  context_id: string | null;
  /** `reply` (answered with `synapse reply`) or `output` (the captured CLI output), if any. */
  reply_source: string | null;
  receipt: Receipt;
  metadata: TaskMetadata;
  created_at: string;
  finished_at: string;
  /** From arrival (queued) to the finish. */
  duration_ms: number | null;
  /** From delivery into the CLI to the finish: the agent's own turn. */
  turn_ms: number | null;
  /** The tokens the CLI recorded for the task's turn (its session files), or null when it recorded none. */
  usage: TokenUsage | null;
  /** The machine that recorded it: only in a PostgreSQL store (the team's history across hosts). */
  host?: string;
}

export interface HistoryRow extends Omit<HistoryEntry, 'receipt' | 'metadata' | 'status' | 'usage' | 'host'> {
  seq: number;
  status: string;
  receipt: string;
  metadata: string;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  /** JSON: {records, by_model}. */
  usage: string | null;
}

/** Token totals over the tasks that have usage, with the estimated cost from the price table. */
export interface UsageStats extends TokenCounts {
  /** Tasks with usage data. */
  tasks: number;
  /** Per model (the price table prices each). */
  by_model: Record<string, TokenCounts & { estimated_cost_usd: number | null; priced_as: string | null }>;
  /** US dollars, an estimate from settings `pricing`; null when no model of these tasks has a price. */
  estimated_cost_usd: number | null;
  /** Models without a price: their tokens are not in the cost. */
  unpriced_models: string[];
}

export interface AgentStats {
  agent_id: string;
  agent_name: string | null;
  agent_type: string;
  total: number;
  completed: number;
  failed: number;
  canceled: number;
  /** completed / total, 0..1; null when there is nothing to rate. */
  success_rate: number | null;
  median_turn_ms: number | null;
  /** Token usage of this agent's tasks, or null when none recorded any. */
  usage: UsageStats | null;
}

export interface HistoryStats {
  total: number;
  completed: number;
  failed: number;
  canceled: number;
  success_rate: number | null;
  median_turn_ms: number | null;
  oldest: string | null;
  newest: string | null;
  /** Bytes of the database file (with its WAL). */
  db_bytes: number;
  agents: AgentStats[];
  /** Token usage over all agents, or null when no task recorded any. */
  usage: UsageStats | null;
}

export interface CleanupResult {
  dry_run: boolean;
  /** Entries deleted, or that would be deleted in a dry run. */
  deleted: number;
  bytes_before: number;
  /** After deletion and VACUUM; in a dry run, the estimate. */
  bytes_after: number;
  remaining: number;
}
