import fs from 'node:fs';
import type { Message, SenderInfo, TaskMetadata } from '../agent-api/task.js';
import { messageText } from '../agent-api/task.js';
import { iso, systemClock, type Clock } from '../clock.js';
import { SynapseError } from '../errors.js';
import { redactDeep, secretRedactor, type Redactor } from '../redact.js';
import { MESSAGE_QUEUE_MIGRATIONS, type QueuedMessage, type QueuedRow, type TargetKind, type WaitingSummary } from './message-queue-schema.js';
import { messageQueueDbPath } from './settings.js';
import { StoreDb, type Sql } from './store-db.js';

export * from './message-queue-schema.js';

/** A claim older than this, by an agent that is no longer running, goes back to waiting. */
const CLAIM_STALE_MS = 60_000;
/** At most this many messages go into one agent's inbox per pickup; the rest at the next. */
const CLAIM_BATCH = 50;

export interface NewQueuedMessage {
  /** The task id it will have (the sender's, so `send --wait` can follow it). */
  id: string;
  target: string;
  target_kind: TargetKind;
  target_key: string;
  sender: SenderInfo | null;
  priority: number;
  message: Message;
  metadata: TaskMetadata;
  /** How long it may wait (`SYNAPSE_QUEUE_TTL`). */
  ttlMs: number;
  /** How many of this sender's messages may wait for one target (`SYNAPSE_MAX_QUEUED_PER_SENDER`). */
  maxPerSender: number;
}

interface QueueOptions {
  clock?: Clock;
  /** Default: the built-in credential shapes (pass `secretRedactor(env)` for the configured keys too). */
  redact?: Redactor;
}

/** The agent that picks messages up: they match its name, its id, or one of its type names. */
export interface Claimant {
  agent_id: string;
  name: string | null;
  /** Its `agent_type` and the profile id that type is an alias of. */
  types: string[];
}

function preview(message: Message): string {
  const first = messageText(message).trim().split('\n')[0] ?? '';
  return first.length > 120 ? `${first.slice(0, 119)}…` : first;
}

/** `90 s`, `45 min`, `24 h`: a TTL as a person reads it. */
function span(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 360) / 10} h`;
}

function rowToMessage(row: QueuedRow): QueuedMessage {
  const { seq: _seq, body, ...rest } = row;
  const parsed = JSON.parse(body) as { message: Message; metadata: TaskMetadata };
  return { ...rest, message: parsed.message, metadata: parsed.metadata };
}

/** `(target matches the claimant)`, for a WHERE clause; its parameters in order. */
function matching(agent: Claimant): { sql: string; params: unknown[] } {
  return {
    sql: `((target_kind = 'name' AND target_key = ?) OR (target_kind = 'id' AND target_key = ?) OR (target_kind = 'type' AND target_key IN (SELECT value FROM json_each(?))))`,
    params: [agent.name ?? '\u0000no name', agent.agent_id, JSON.stringify(agent.types)],
  };
}

/**
 * The project's messages for agents that are not running (issue 21 §2). `synapse send` leaves a
 * message here; the agent that has the name (id, type) it names takes it into its own inbox when
 * it reaches READY, in the order they were left. Every change of state runs under `BEGIN
 * IMMEDIATE`, so a message is taken by exactly one agent, and expires exactly once.
 */
export class MessageQueue {
  readonly file: string;
  private readonly store: StoreDb;
  private readonly clock: Clock;
  /**
   * Credentials never stay in what is kept (issue 21 §4): the preview is redacted from the start;
   * the text, which the agent must type in as it is, once the message is delivered, expired or refused.
   */
  private readonly redact: Redactor;

  constructor(file: string, options: QueueOptions = {}) {
    this.file = file;
    this.clock = options.clock ?? systemClock;
    this.redact = options.redact ?? secretRedactor({});
    this.store = new StoreDb(file, MESSAGE_QUEUE_MIGRATIONS);
  }

  static forProject(projectDir: string, options: QueueOptions = {}): MessageQueue {
    return new MessageQueue(messageQueueDbPath(projectDir), options);
  }

  /** The project's queue, or null when nothing was ever queued there (the file is not created). */
  static openExisting(projectDir: string, options: QueueOptions = {}): MessageQueue | null {
    const file = messageQueueDbPath(projectDir);
    return fs.existsSync(file) ? new MessageQueue(file, options) : null;
  }

  close(): void {
    this.store.close();
  }

  private now(): string {
    return iso(this.clock.now());
  }

  private load(db: Sql, id: string): QueuedMessage | null {
    const row = db.prepare(`SELECT * FROM queued_messages WHERE id = ?`).get(id) as QueuedRow | undefined;
    return row ? rowToMessage(row) : null;
  }

  /**
   * Leaves a message for its target. The id is the key: the same id again (a retried send) is
   * the message already there (`created: false`). A sender with `maxPerSender` messages waiting
   * for the target is refused (`queue_full`). `waiting`: how many wait for the target now.
   */
  enqueue(input: NewQueuedMessage): { message: QueuedMessage; created: boolean; waiting: number } {
    return this.store.write((db) => {
      const now = this.clock.now();
      const existing = this.load(db, input.id);
      const count = () =>
        (
          db
            .prepare(
              `SELECT COUNT(*) AS n FROM queued_messages WHERE state IN ('waiting', 'claimed') AND target_kind = ? AND target_key = ? AND expires_at > ?`,
            )
            .get(input.target_kind, input.target_key, iso(now)) as { n: number }
        ).n;
      if (existing) return { message: existing, created: false, waiting: count() };
      const senderId = input.sender?.sender_id ?? null;
      const mine = (
        db
          .prepare(
            `SELECT COUNT(*) AS n FROM queued_messages WHERE state = 'waiting' AND target_kind = ? AND target_key = ? AND sender_id IS ? AND expires_at > ?`,
          )
          .get(input.target_kind, input.target_key, senderId, iso(now)) as { n: number }
      ).n;
      if (mine >= input.maxPerSender)
        throw new SynapseError(
          'queue_full',
          `${mine} of your messages already wait for ${input.target} (limit ${input.maxPerSender}, SYNAPSE_MAX_QUEUED_PER_SENDER): not queued; send it again once it has started and caught up`,
          { target: input.target, queued: mine, limit: input.maxPerSender, retry_after: null },
        );
      db.prepare(
        `INSERT INTO queued_messages (id, target, target_kind, target_key, sender_id, sender_name, sender_endpoint, priority, body, preview, state, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'waiting', ?, ?)`,
      ).run(
        input.id,
        input.target,
        input.target_kind,
        input.target_key,
        senderId,
        input.sender?.sender_name ?? null,
        input.sender?.sender_endpoint ?? null,
        input.priority,
        JSON.stringify({ message: input.message, metadata: input.metadata }),
        this.redact(preview(input.message)),
        iso(now),
        iso(now + input.ttlMs),
      );
      return { message: this.load(db, input.id)!, created: true, waiting: count() };
    });
  }

  /** The stored text of a message that ended, with credentials redacted: nothing will type it any more. */
  private redactBody(db: Sql, id: string): void {
    const row = db.prepare(`SELECT body FROM queued_messages WHERE id = ?`).get(id) as { body: string } | undefined;
    if (row) db.prepare(`UPDATE queued_messages SET body = ? WHERE id = ?`).run(JSON.stringify(redactDeep(JSON.parse(row.body), this.redact)), id);
  }

  get(id: string): QueuedMessage | null {
    return this.store.run((db) => this.load(db, id));
  }

  /**
   * Whether a pickup by `agent` has anything to do: a message waiting for it, one past its TTL, or
   * a claim gone stale. A plain read, so an idle agent asking every few seconds takes no write lock.
   */
  hasWorkFor(agent: Claimant): boolean {
    return this.store.run((db) => {
      const now = this.clock.now();
      const m = matching(agent);
      return (
        db
          .prepare(
            `SELECT 1 FROM queued_messages
             WHERE (state = 'waiting' AND (expires_at <= ? OR ${m.sql})) OR (state = 'claimed' AND (claimed_by = ? OR claimed_at < ?)) LIMIT 1`,
          )
          .get(iso(now), ...m.params, agent.agent_id, iso(now - CLAIM_STALE_MS)) !== undefined
      );
    });
  }

  /**
   * Takes the messages waiting for `agent` (oldest first, at most a batch), and the ones it had
   * claimed before and not finished (it restarted meanwhile). A claim left by an agent that is not
   * in `live` for a minute goes back to waiting first. Each message is claimed by one agent only.
   */
  claim(agent: Claimant, live: ReadonlySet<string>): QueuedMessage[] {
    return this.store.write((db) => {
      const now = this.clock.now();
      const stale = db
        .prepare(`SELECT id, claimed_by FROM queued_messages WHERE state = 'claimed' AND claimed_at < ? AND claimed_by <> ?`)
        .all(iso(now - CLAIM_STALE_MS), agent.agent_id) as { id: string; claimed_by: string }[];
      for (const s of stale)
        if (!live.has(s.claimed_by)) db.prepare(`UPDATE queued_messages SET state = 'waiting', claimed_by = NULL, claimed_at = NULL WHERE id = ?`).run(s.id);
      const m = matching(agent);
      const rows = db
        .prepare(
          `SELECT * FROM queued_messages
           WHERE ((state = 'waiting' AND expires_at > ?) OR (state = 'claimed' AND claimed_by = ?)) AND ${m.sql}
           ORDER BY seq LIMIT ?`,
        )
        .all(iso(now), agent.agent_id, ...m.params, CLAIM_BATCH) as QueuedRow[];
      const claim = db.prepare(`UPDATE queued_messages SET state = 'claimed', claimed_by = ?, claimed_at = ? WHERE id = ?`);
      for (const r of rows) claim.run(agent.agent_id, iso(now), r.id);
      return rows.map((r) => rowToMessage({ ...r, state: 'claimed', claimed_by: agent.agent_id, claimed_at: iso(now) }));
    });
  }

  /** The message is in the agent's inbox now (a task with the same id). */
  delivered(id: string, agentId: string, endpoint: string): void {
    this.store.write((db) => {
      const done = db
        .prepare(
          `UPDATE queued_messages SET state = 'delivered', delivered_to = ?, delivered_endpoint = ?, delivered_at = ? WHERE id = ? AND state = 'claimed'`,
        )
        .run(agentId, endpoint, this.now(), id);
      if (done.changes > 0) this.redactBody(db, id);
    });
  }

  /** Claimed messages the agent could not take now (its inbox is full): waiting again. */
  release(ids: readonly string[]): void {
    if (ids.length === 0) return;
    this.store.write((db) =>
      db
        .prepare(
          `UPDATE queued_messages SET state = 'waiting', claimed_by = NULL, claimed_at = NULL WHERE state = 'claimed' AND id IN (SELECT value FROM json_each(?))`,
        )
        .run(JSON.stringify(ids)),
    );
  }

  /** The agent that claimed it refused it (over its size limits): final, with why. */
  refuse(id: string, note: string): QueuedMessage | null {
    return this.store.write((db) => {
      const done = db
        .prepare(`UPDATE queued_messages SET state = 'refused', ended_at = ?, note = ? WHERE id = ? AND state = 'claimed'`)
        .run(this.now(), note, id);
      if (done.changes > 0) this.redactBody(db, id);
      return this.load(db, id);
    });
  }

  /**
   * Every waiting message past its TTL becomes `expired`, with a note for its sender; returns
   * them (each exactly once, whoever asks first), so the caller can tell their senders.
   */
  expireDue(): QueuedMessage[] {
    return this.store.write((db) => {
      const now = this.now();
      const rows = db.prepare(`SELECT * FROM queued_messages WHERE state = 'waiting' AND expires_at <= ? ORDER BY seq`).all(now) as QueuedRow[];
      const expire = db.prepare(`UPDATE queued_messages SET state = 'expired', ended_at = ?, note = ? WHERE id = ?`);
      return rows.map((r) => {
        const ttl = span(Date.parse(r.expires_at) - Date.parse(r.created_at));
        const note = `no agent ${r.target_kind === 'type' ? 'of type' : r.target_kind === 'id' ? 'with the id' : 'named'} ${r.target_key} took it within ${ttl} (SYNAPSE_QUEUE_TTL)`;
        expire.run(now, note, r.id);
        this.redactBody(db, r.id);
        return rowToMessage({ ...r, state: 'expired', ended_at: now, note });
      });
    });
  }

  /** Their senders were told (the note was posted to the sending agent). */
  noted(ids: readonly string[]): void {
    if (ids.length === 0) return;
    this.store.write((db) =>
      db.prepare(`UPDATE queued_messages SET sender_noted_at = ? WHERE id IN (SELECT value FROM json_each(?))`).run(this.now(), JSON.stringify(ids)),
    );
  }

  /** Per target, the messages that wait for it (not past their TTL), most waiting first. */
  waiting(): WaitingSummary[] {
    return this.store.run(
      (db) =>
        db
          .prepare(
            `SELECT target_kind, target_key, COUNT(*) AS waiting, MIN(created_at) AS oldest_at, MIN(expires_at) AS next_expiry_at
             FROM queued_messages WHERE state IN ('waiting', 'claimed') AND expires_at > ?
             GROUP BY target_kind, target_key ORDER BY waiting DESC, oldest_at`,
          )
          .all(this.now()) as WaitingSummary[],
    );
  }

  /** How many messages wait for this (running) agent: they go into its inbox at its next pickup. */
  waitingFor(agent: Claimant): number {
    return this.store.run((db) => {
      const m = matching(agent);
      return (
        db
          .prepare(`SELECT COUNT(*) AS n FROM queued_messages WHERE state IN ('waiting', 'claimed') AND expires_at > ? AND ${m.sql}`)
          .get(this.now(), ...m.params) as {
          n: number;
        }
      ).n;
    });
  }

  /** The messages left for any of `keys` (names, ids, types), oldest first, at most `limit`: waiting ones and those that ended. */
  forKeys(keys: readonly string[], limit = 50): QueuedMessage[] {
    return this.store.run((db) =>
      (
        db
          .prepare(`SELECT * FROM queued_messages WHERE target_key IN (SELECT value FROM json_each(?)) ORDER BY seq DESC LIMIT ?`)
          .all(JSON.stringify(keys), limit) as QueuedRow[]
      )
        .reverse()
        .map(rowToMessage),
    );
  }

  /** Deletes messages that were delivered, expired or refused more than `olderThanMs` ago; returns how many. */
  purge(olderThanMs: number): number {
    return this.store.write(
      (db) =>
        db
          .prepare(`DELETE FROM queued_messages WHERE state IN ('delivered', 'expired', 'refused') AND COALESCE(delivered_at, ended_at, created_at) < ?`)
          .run(iso(this.clock.now() - olderThanMs)).changes,
    );
  }
}
