import type { Migration } from './sqlite.js';

/**
 * Shared-memory schema. v1 is the table of notes keyed by a unique key (tags as a JSON array).
 * v2 adds full-text search: an external-content FTS5 index over key, content and tags, kept in
 * step by triggers and rebuilt from the rows already there, so a v1 file with notes becomes
 * searchable on upgrade.
 */
export const MEMORY_MIGRATIONS: Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE memories (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        key        TEXT NOT NULL UNIQUE,
        content    TEXT NOT NULL,
        tags       TEXT NOT NULL DEFAULT '[]',
        author     TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 2,
    sql: `
      CREATE INDEX memories_by_author ON memories(author);
      CREATE INDEX memories_by_updated ON memories(updated_at);
      CREATE VIRTUAL TABLE memories_fts USING fts5(
        key, content, tags,
        content = 'memories', content_rowid = 'id',
        tokenize = 'unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
        INSERT INTO memories_fts(rowid, key, content, tags) VALUES (new.id, new.key, new.content, new.tags);
      END;
      CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
        INSERT INTO memories_fts(memories_fts, rowid, key, content, tags) VALUES ('delete', old.id, old.key, old.content, old.tags);
      END;
      CREATE TRIGGER memories_fts_update AFTER UPDATE ON memories BEGIN
        INSERT INTO memories_fts(memories_fts, rowid, key, content, tags) VALUES ('delete', old.id, old.key, old.content, old.tags);
        INSERT INTO memories_fts(rowid, key, content, tags) VALUES (new.id, new.key, new.content, new.tags);
      END;
      INSERT INTO memories_fts(memories_fts) VALUES ('rebuild');
    `,
  },
];

export interface MemoryRow {
  id: number;
  key: string;
  content: string;
  tags: string;
  author: string | null;
  created_at: string;
  updated_at: string;
}

export interface Memory {
  /** The row id; `GET /memory/{id_or_key}` takes it as well as the key. */
  id: number;
  key: string;
  content: string;
  tags: string[];
  author: string | null;
  created_at: string;
  updated_at: string;
}

export interface MemoryHit extends Memory {
  /** Higher is better (negated BM25). */
  score: number;
}

export interface MemoryStats {
  count: number;
  total_bytes: number;
  authors: Record<string, number>;
  tags: Record<string, number>;
  oldest: string | null;
  newest: string | null;
}
