import type { Message, TaskMetadata } from '../agent-api/task.js';
import type { Migration } from './sqlite.js';

/**
 * How a queued message names the agent it waits for: a custom `name` (a saved agent's, or one
 * seen in the project), an agent `id` (`synapse-claude-8100`, also what `claude-8100` means), or a
 * profile `type` (the next agent of that type takes it).
 */
export type TargetKind = 'name' | 'id' | 'type';

/**
 * `waiting` for its agent; `claimed` by an agent that is handing it to its inbox; `delivered`
 * into that inbox (a task of that agent now, with the same id); `expired` undelivered after its
 * TTL; `refused` by the agent that claimed it (too large for its limits).
 */
type QueuedState = 'waiting' | 'claimed' | 'delivered' | 'expired' | 'refused';

/** One message left for an agent that was not running (`synapse send --queue`). */
export interface QueuedMessage {
  /** The id of the task it becomes on the agent that takes it (what `send --wait` follows). */
  id: string;
  /** The target as the sender wrote it. */
  target: string;
  target_kind: TargetKind;
  /** The name, agent id or profile id that an agent must have to take it. */
  target_key: string;
  sender_id: string | null;
  sender_name: string | null;
  sender_endpoint: string | null;
  priority: number;
  message: Message;
  /** What the task's metadata will be (response mode, sender, the sender's task …). */
  metadata: TaskMetadata;
  /** The first line of the text, for lists. */
  preview: string;
  state: QueuedState;
  created_at: string;
  expires_at: string;
  claimed_by: string | null;
  claimed_at: string | null;
  delivered_to: string | null;
  delivered_endpoint: string | null;
  delivered_at: string | null;
  /** When it expired or was refused. */
  ended_at: string | null;
  /** Why it expired or was refused: what its sender is told. */
  note: string | null;
  /** When the note was posted to the sender agent; null for a human sender or one not running then. */
  sender_noted_at: string | null;
}

export interface QueuedRow extends Omit<QueuedMessage, 'message' | 'metadata'> {
  seq: number;
  body: string;
}

/** Per target: how many messages wait for it (live ones, not past their TTL), the oldest, the next expiry. */
export interface WaitingSummary {
  target_kind: TargetKind;
  target_key: string;
  waiting: number;
  oldest_at: string;
  next_expiry_at: string;
}

/**
 * The project's queue of messages for agents that are not running
 * (`<project>/.synapse/message_queue.db`, issue 21 §2). v1: one row per message, its text and the
 * task metadata as JSON; rows leave `waiting` once, under `BEGIN IMMEDIATE`, so exactly one agent
 * takes each message.
 */
export const MESSAGE_QUEUE_MIGRATIONS: Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE queued_messages (
        seq                INTEGER PRIMARY KEY AUTOINCREMENT,
        id                 TEXT NOT NULL UNIQUE,
        target             TEXT NOT NULL,
        target_kind        TEXT NOT NULL CHECK (target_kind IN ('name', 'id', 'type')),
        target_key         TEXT NOT NULL,
        sender_id          TEXT,
        sender_name        TEXT,
        sender_endpoint    TEXT,
        priority           INTEGER NOT NULL,
        body               TEXT NOT NULL,
        preview            TEXT NOT NULL,
        state              TEXT NOT NULL CHECK (state IN ('waiting', 'claimed', 'delivered', 'expired', 'refused')),
        created_at         TEXT NOT NULL,
        expires_at         TEXT NOT NULL,
        claimed_by         TEXT,
        claimed_at         TEXT,
        delivered_to       TEXT,
        delivered_endpoint TEXT,
        delivered_at       TEXT,
        ended_at           TEXT,
        note               TEXT,
        sender_noted_at    TEXT
      );
      CREATE INDEX queued_by_target ON queued_messages(state, target_kind, target_key, seq);
      CREATE INDEX queued_by_expiry ON queued_messages(state, expires_at);
    `,
  },
];
