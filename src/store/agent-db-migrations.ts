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
  {
    // Webhooks (one row per registered URL) and the log of every delivery attempt. Attempts
    // keep the URL, not a foreign key, so the log still explains past deliveries after the
    // webhook was removed.
    version: 2,
    sql: `
      CREATE TABLE webhooks (
        id TEXT PRIMARY KEY,
        url TEXT NOT NULL UNIQUE,
        events TEXT NOT NULL,
        secret TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE TABLE webhook_deliveries (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        delivery_id TEXT NOT NULL,
        webhook_id TEXT NOT NULL,
        url TEXT NOT NULL,
        event TEXT NOT NULL,
        task_id TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        status_code INTEGER,
        ok INTEGER NOT NULL,
        duration_ms INTEGER NOT NULL,
        error TEXT,
        will_retry INTEGER NOT NULL,
        attempted_at TEXT NOT NULL
      );
      CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries(webhook_id, seq);
      CREATE INDEX webhook_deliveries_by_delivery ON webhook_deliveries(delivery_id);
      CREATE INDEX webhook_deliveries_by_task ON webhook_deliveries(task_id);
    `,
  },
  {
    // The webhook outbox: every event to deliver is written here before its first attempt and
    // removed once it is delivered or given up, so a delivery pending or in flight when the
    // agent is killed is sent again at the next start. The body is the exact payload (its
    // event_id and timestamp included); no secret or signature is stored.
    // next_attempt_at NULL = an attempt is on the wire (attempts says which).
    version: 3,
    sql: `
      CREATE TABLE webhook_outbox (
        delivery_id TEXT PRIMARY KEY,
        webhook_id TEXT NOT NULL,
        event TEXT NOT NULL,
        task_id TEXT NOT NULL,
        body BLOB NOT NULL,
        created_at TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER
      );
    `,
  },
  {
    // Idempotency keys (issue 21 §3): the `Idempotency-Key` of a Synapse send, or `a2a:<messageId>`
    // of an A2A one, and the task it made, so a retried send returns that task instead of typing
    // the message twice. `fingerprint` is a hash of the message, to tell a retry from a different
    // message under a reused key; `created_at` (ms since the epoch) ages a key out after 24 h.
    version: 4,
    sql: `
      CREATE TABLE idempotency_keys (
        key TEXT PRIMARY KEY,
        task_id TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX idempotency_keys_by_age ON idempotency_keys(created_at);
    `,
  },
];
