import type { PgMigration } from './pg-db.js';
import type { HistoryEntry, HistoryRow } from './history-schema.js';

/**
 * The history table in PostgreSQL (migration component `history`): the SQLite columns (schema v2,
 * with token usage), plus the host that recorded the row, the `in_reply_to` a task's metadata
 * names (for `trace`'s related entries), and a generated `tsvector` over input and output with a
 * GIN index. The 'simple' configuration, like SQLite's unicode61 tokenizer, does no stemming;
 * only the first 200,000 characters of each text are indexed (tsvector has a size limit).
 */
export const HISTORY_PG_MIGRATIONS: PgMigration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE history (
        seq                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        task_id            TEXT NOT NULL,
        agent_id           TEXT NOT NULL,
        agent_name         TEXT,
        agent_type         TEXT NOT NULL,
        working_dir        TEXT,
        host               TEXT NOT NULL,
        sender_id          TEXT,
        sender_name        TEXT,
        sender_type        TEXT,
        input              TEXT NOT NULL,
        output             TEXT NOT NULL,
        status             TEXT NOT NULL,
        status_message     TEXT,
        priority           INTEGER NOT NULL,
        context_id         TEXT,
        reply_source       TEXT,
        in_reply_to        TEXT,
        receipt            TEXT NOT NULL,
        metadata           TEXT NOT NULL,
        created_at         TEXT NOT NULL,
        finished_at        TEXT NOT NULL,
        duration_ms        BIGINT,
        turn_ms            BIGINT,
        input_tokens       BIGINT,
        output_tokens      BIGINT,
        cache_read_tokens  BIGINT,
        cache_write_tokens BIGINT,
        usage              TEXT,
        search             TSVECTOR GENERATED ALWAYS AS (
                             to_tsvector('simple', left(input, 200000)) || to_tsvector('simple', left(output, 200000))) STORED,
        UNIQUE (task_id, agent_id)
      );
      CREATE INDEX history_by_finished ON history(finished_at);
      CREATE INDEX history_by_agent ON history(agent_id, finished_at);
      CREATE INDEX history_by_name ON history(agent_name);
      CREATE INDEX history_by_reply ON history(in_reply_to);
      CREATE INDEX history_search ON history USING GIN (search);
    `,
  },
];

/** The columns a write sets, in order. */
export const PG_COLUMNS = [
  'task_id',
  'agent_id',
  'agent_name',
  'agent_type',
  'working_dir',
  'host',
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
  'in_reply_to',
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

export type PgHistoryRow = HistoryRow & { host: string; in_reply_to: string | null };

/** The portable row of an entry (the SQLite row without `seq`): receipt, metadata and usage as JSON text. */
function portableRow(e: HistoryEntry): Omit<HistoryRow, 'seq'> {
  const u = e.usage;
  const { usage: _usage, host: _host, ...rest } = e;
  return {
    ...rest,
    receipt: JSON.stringify(e.receipt),
    metadata: JSON.stringify(e.metadata),
    input_tokens: u?.input_tokens ?? null,
    output_tokens: u?.output_tokens ?? null,
    cache_read_tokens: u?.cache_read_tokens ?? null,
    cache_write_tokens: u?.cache_write_tokens ?? null,
    usage: u ? JSON.stringify({ records: u.records, by_model: u.by_model }) : null,
  };
}

/** What PostgreSQL stores of a portable row: plus the host and the `in_reply_to` its metadata names. */
export function pgRow(row: Omit<HistoryRow, 'seq'>, host: string): Record<(typeof PG_COLUMNS)[number], unknown> {
  let inReplyTo: string | null = null;
  try {
    const m = JSON.parse(row.metadata) as { in_reply_to?: unknown };
    if (typeof m?.in_reply_to === 'string') inReplyTo = m.in_reply_to;
  } catch {
    // damaged metadata: no link
  }
  return { ...row, host, in_reply_to: inReplyTo };
}

export const storedRow = (e: HistoryEntry, host: string) => pgRow(portableRow(e), host);
