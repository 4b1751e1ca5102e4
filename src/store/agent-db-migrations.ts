import type { Migration } from './sqlite.js';

/**
 * Schema versions of an agent's own SQLite file (`~/.synapse/agents/<agent_id>.db`): its tasks
 * and inbox, and the stores that live beside them. Append new versions; never edit old ones.
 */
export const AGENT_DB_MIGRATIONS: Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE tasks (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        state TEXT NOT NULL,
        priority INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        body TEXT NOT NULL
      );
      CREATE INDEX tasks_queue ON tasks(state, priority DESC, seq);
      CREATE INDEX tasks_updated ON tasks(updated_at);
    `,
  },
];
