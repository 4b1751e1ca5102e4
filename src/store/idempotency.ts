import { nodeCrypto } from '../require-cjs.js';
import type { Message } from '../agent-api/task.js';
import type { Clock } from '../clock.js';
import type { Db } from './sqlite.js';

/** How long a key names its task: a retry within this window gets the first task back. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** What a key was first used for. */
export interface IdempotentSend {
  task_id: string;
  /** `messageFingerprint` of the message the key first came with. */
  fingerprint: string;
  created_at: number;
}

/** A hash of what a message says (role and parts, in their order): equal for a retry of the same send. */
export function messageFingerprint(message: Message): string {
  return nodeCrypto()
    .createHash('sha256')
    .update(JSON.stringify([message.role, message.parts]))
    .digest('hex');
}

/**
 * The agent's idempotency keys (agent-database migration 4): which task a key made, for 24 h.
 * It borrows the agent's connection (the task store's) and never closes it; the caller looks a
 * key up and records it in one synchronous step with the task's creation, so two requests with
 * one key cannot both make a task.
 */
export class IdempotencyKeys {
  private readonly stmts;

  constructor(
    db: Db,
    private readonly clock: Clock,
  ) {
    this.stmts = {
      find: db.prepare('SELECT task_id, fingerprint, created_at FROM idempotency_keys WHERE key = ? AND created_at > ?'),
      remember: db.prepare('INSERT OR REPLACE INTO idempotency_keys (key, task_id, fingerprint, created_at) VALUES (?, ?, ?, ?)'),
      forget: db.prepare('DELETE FROM idempotency_keys WHERE key = ?'),
      sweep: db.prepare('DELETE FROM idempotency_keys WHERE created_at <= ?'),
    };
  }

  /** The send a key made within the last 24 h, or null. */
  find(key: string): IdempotentSend | null {
    return (this.stmts.find.get(key, this.clock.now() - IDEMPOTENCY_WINDOW_MS) as IdempotentSend | undefined) ?? null;
  }

  /** Records that `key` made `taskId` (replacing a key older than the window). */
  remember(key: string, taskId: string, fingerprint: string): void {
    this.stmts.remember.run(key, taskId, fingerprint, this.clock.now());
  }

  /** Drops a key whose send did not make a task after all. */
  forget(key: string): void {
    this.stmts.forget.run(key);
  }

  /** Deletes the keys older than 24 h; returns how many. */
  sweep(): number {
    return this.stmts.sweep.run(this.clock.now() - IDEMPOTENCY_WINDOW_MS).changes;
  }
}
