import type { PgMigration } from './pg-db.js';
import { entryToRow } from './history-entry.js';
import { HISTORY_COLUMNS, type HistoryEntry, type HistoryRow } from './history-schema.js';

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
export const PG_COLUMNS = [...HISTORY_COLUMNS, 'host', 'in_reply_to'] as const;

export type PgHistoryRow = HistoryRow & { host: string; in_reply_to: string | null };

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

export const storedRow = (e: HistoryEntry, host: string) => pgRow(entryToRow(e), host);
