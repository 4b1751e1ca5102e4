import type { Db } from './sqlite.js';

/** One event waiting to reach one webhook (migration 3 of AGENT_DB_MIGRATIONS). */
export interface OutboxEntry {
  /** The delivery id, also the payload's `event_id`. */
  delivery_id: string;
  webhook_id: string;
  /** A WebhookEvent; checked by the WebhookStore that reads it. */
  event: string;
  task_id: string;
  /** The exact payload bytes; every attempt sends these. */
  body: Buffer;
  /** The payload's timestamp (`X-Synapse-Timestamp`). */
  created_at: string;
  /** Attempts started so far. */
  attempts: number;
  /** When the next attempt is due (ms since the epoch); null while an attempt is on the wire. */
  next_attempt_at: number | null;
}

/**
 * The agent's webhook outbox: an event is written here before its first attempt and removed
 * when it was delivered or given up, so nothing pending or in flight is lost when the agent
 * is killed; the next start sends what is left (`WebhookDispatcher.resume`). It borrows the
 * agent's connection and never closes it. No secret or signature is kept here.
 */
export class WebhookOutbox {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      insert: db.prepare(
        `INSERT OR IGNORE INTO webhook_outbox (delivery_id, webhook_id, event, task_id, body, created_at, attempts, next_attempt_at)
         VALUES (@delivery_id, @webhook_id, @event, @task_id, @body, @created_at, @attempts, @next_attempt_at)`,
      ),
      started: db.prepare('UPDATE webhook_outbox SET attempts = ?, next_attempt_at = NULL WHERE delivery_id = ?'),
      due: db.prepare('UPDATE webhook_outbox SET next_attempt_at = ? WHERE delivery_id = ?'),
      remove: db.prepare('DELETE FROM webhook_outbox WHERE delivery_id = ?'),
      pending: db.prepare('SELECT * FROM webhook_outbox ORDER BY created_at, rowid'),
    };
  }

  /** Writes the events of one task change, all or none. */
  add(entries: readonly OutboxEntry[]): void {
    if (entries.length === 0) return;
    this.db.transaction(() => {
      for (const e of entries) this.stmts.insert.run(e);
    })();
  }

  /** Attempt `attempt` is about to go on the wire. */
  started(deliveryId: string, attempt: number): void {
    this.stmts.started.run(attempt, deliveryId);
  }

  /** The next attempt is due at `atMs`. */
  due(deliveryId: string, atMs: number): void {
    this.stmts.due.run(Math.round(atMs), deliveryId);
  }

  /** Delivered or given up. */
  remove(deliveryId: string): void {
    this.stmts.remove.run(deliveryId);
  }

  /** Everything still to deliver, oldest first. */
  pending(): OutboxEntry[] {
    return this.stmts.pending.all() as OutboxEntry[];
  }
}
