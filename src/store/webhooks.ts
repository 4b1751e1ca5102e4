import type { TaskState } from '../agent-api/task.js';
import { SynapseError } from '../errors.js';
import { pickByPrefix } from './prefix.js';
import type { Db } from './sqlite.js';
import { WebhookOutbox, type OutboxEntry } from './webhook-outbox.js';
import { iso, systemClock, type Clock } from '../clock.js';
import { nodeCrypto } from '../require-cjs.js';

/** The task events a webhook can subscribe to, one per state a caller may want to act on. */
export const WEBHOOK_EVENTS = ['task.completed', 'task.failed', 'task.canceled', 'task.input_required'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

const EVENT_FOR_STATE: Partial<Record<TaskState, WebhookEvent>> = {
  completed: 'task.completed',
  failed: 'task.failed',
  canceled: 'task.canceled',
  'input-required': 'task.input_required',
};

/** The event a task entering `state` fires, or null (submitted and working fire none). */
export function webhookEventFor(state: TaskState): WebhookEvent | null {
  return EVENT_FOR_STATE[state] ?? null;
}

/** A webhook as the API shows it: the secret itself never leaves the store through this type. */
export interface Webhook {
  id: string;
  url: string;
  events: WebhookEvent[];
  has_secret: boolean;
  created_at: string;
  updated_at: string;
}

/** What the dispatcher needs to deliver: the webhook plus its own secret (null = none). */
export interface WebhookTarget extends Webhook {
  secret: string | null;
}

export interface DeliveryAttempt {
  delivery_id: string;
  webhook_id: string;
  url: string;
  event: WebhookEvent;
  task_id: string;
  /** 1 for the first try, 2 for the first retry, … */
  attempt: number;
  /** The HTTP status, or null when no response came back (network error, timeout). */
  status_code: number | null;
  ok: boolean;
  duration_ms: number;
  error: string | null;
  /** Whether the dispatcher scheduled another attempt after this one. */
  will_retry: boolean;
  attempted_at: string;
}

interface WebhookRow {
  id: string;
  url: string;
  events: string;
  secret: string | null;
  created_at: string;
  updated_at: string;
}

interface AttemptRow extends Omit<DeliveryAttempt, 'ok' | 'will_retry' | 'event'> {
  event: string;
  ok: number;
  will_retry: number;
}

/** Attempts kept in the log; older ones are dropped as new ones come in. */
export const KEEP_ATTEMPTS = 2000;

/**
 * Only http and https: a webhook is a plain POST to a receiver, and anything else (file:,
 * data:, javascript:) is either meaningless or a way to make the agent read local things.
 */
export function validateWebhookUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new SynapseError('invalid_input', `webhook url "${raw}" is not a valid URL; give a full http:// or https:// URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SynapseError('invalid_input', `webhook url must use http or https, not ${url.protocol.replace(/:$/, '')}`);
  }
  if (!url.hostname) throw new SynapseError('invalid_input', `webhook url "${raw}" has no host`);
  return url.toString();
}

/** A URL fit for logs and error messages: no user/password and no query string (tokens live there). */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}${url.pathname}${url.search ? '?…' : ''}`;
  } catch {
    return '(invalid url)';
  }
}

function parseEvents(json: string): WebhookEvent[] {
  try {
    const list = JSON.parse(json) as unknown;
    if (Array.isArray(list)) return list.filter((e): e is WebhookEvent => (WEBHOOK_EVENTS as readonly string[]).includes(e as string));
  } catch {
    // A hand-edited row: treat as subscribed to nothing rather than failing every delivery.
  }
  return [];
}

function toTarget(row: WebhookRow): WebhookTarget {
  return {
    id: row.id,
    url: row.url,
    events: parseEvents(row.events),
    has_secret: row.secret !== null,
    created_at: row.created_at,
    updated_at: row.updated_at,
    secret: row.secret,
  };
}

function toPublic(row: WebhookRow): Webhook {
  const { secret: _secret, ...rest } = toTarget(row);
  return rest;
}

function toAttempt(row: AttemptRow): DeliveryAttempt {
  return { ...row, event: row.event as WebhookEvent, ok: row.ok === 1, will_retry: row.will_retry === 1 };
}

/**
 * The agent's webhooks and their delivery log, in the agent's own SQLite file (migration 2 of
 * AGENT_DB_MIGRATIONS), so registrations survive a restart. It borrows the connection the task
 * store opened and never closes it.
 */
export class WebhookStore {
  private readonly stmts;
  /** Events still to deliver, kept across restarts (migration 3). */
  readonly outbox: WebhookOutbox;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock = systemClock,
    /** Most webhooks kept (`SYNAPSE_MAX_WEBHOOKS`); registering one more URL is `too_many_webhooks`. */
    private readonly max = Infinity,
  ) {
    this.outbox = new WebhookOutbox(db);
    this.stmts = {
      byUrl: db.prepare('SELECT * FROM webhooks WHERE url = ?'),
      byId: db.prepare('SELECT * FROM webhooks WHERE id = ?'),
      all: db.prepare('SELECT * FROM webhooks ORDER BY created_at, id'),
      insert: db.prepare('INSERT INTO webhooks (id, url, events, secret, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)'),
      update: db.prepare('UPDATE webhooks SET events = ?, secret = ?, updated_at = ? WHERE id = ?'),
      remove: db.prepare('DELETE FROM webhooks WHERE id = ?'),
      attempt: db.prepare(
        `INSERT INTO webhook_deliveries (delivery_id, webhook_id, url, event, task_id, attempt, status_code, ok, duration_ms, error, will_retry, attempted_at)
         VALUES (@delivery_id, @webhook_id, @url, @event, @task_id, @attempt, @status_code, @ok, @duration_ms, @error, @will_retry, @attempted_at)`,
      ),
      trim: db.prepare('DELETE FROM webhook_deliveries WHERE seq <= ?'),
    };
  }

  private now(): string {
    return iso(this.clock.now());
  }

  /**
   * Registers `url` for `events` (default: all). Registering a URL again replaces its events
   * and secret instead of adding a second webhook, so a caller can re-run its set-up safely.
   */
  add(input: { url: string; events?: readonly WebhookEvent[]; secret?: string | null }): { webhook: Webhook; created: boolean } {
    const url = validateWebhookUrl(input.url);
    const events = [...new Set(input.events && input.events.length > 0 ? input.events : WEBHOOK_EVENTS)];
    for (const e of events) {
      if (!(WEBHOOK_EVENTS as readonly string[]).includes(e))
        throw new SynapseError('invalid_input', `unknown webhook event "${e}"; use ${WEBHOOK_EVENTS.join(', ')}`);
    }
    const secret = input.secret && input.secret.length > 0 ? input.secret : null;
    return this.db
      .transaction(() => {
        const now = this.now();
        const existing = this.stmts.byUrl.get(url) as WebhookRow | undefined;
        if (existing) {
          this.stmts.update.run(JSON.stringify(events), secret, now, existing.id);
          return { webhook: toPublic(this.stmts.byId.get(existing.id) as WebhookRow), created: false };
        }
        const count = (this.stmts.all.all() as WebhookRow[]).length;
        if (count >= this.max)
          throw new SynapseError(
            'too_many_webhooks',
            `this agent has ${count} webhooks already (limit ${this.max}, SYNAPSE_MAX_WEBHOOKS): delete one first (DELETE /webhooks/<id>), or register the URL of one it has`,
            { count, limit: this.max },
          );
        const id = nodeCrypto().randomUUID();
        this.stmts.insert.run(id, url, JSON.stringify(events), secret, now, now);
        return { webhook: toPublic(this.stmts.byId.get(id) as WebhookRow), created: true };
      })
      .immediate();
  }

  list(): Webhook[] {
    return (this.stmts.all.all() as WebhookRow[]).map(toPublic);
  }

  /** The webhooks subscribed to `event`, with their secrets, for delivery. */
  targets(event: WebhookEvent): WebhookTarget[] {
    return (this.stmts.all.all() as WebhookRow[]).map(toTarget).filter((w) => w.events.includes(event));
  }

  /** One webhook with its secret, for delivery; null when it was removed. */
  target(id: string): WebhookTarget | null {
    const row = this.stmts.byId.get(id) as WebhookRow | undefined;
    return row ? toTarget(row) : null;
  }

  /** The outbox's entries, oldest first, each for a known event; a row naming no known event is dropped. */
  pendingDeliveries(): Array<OutboxEntry & { event: WebhookEvent }> {
    const known: Array<OutboxEntry & { event: WebhookEvent }> = [];
    for (const e of this.outbox.pending()) {
      if ((WEBHOOK_EVENTS as readonly string[]).includes(e.event)) known.push({ ...e, event: e.event as WebhookEvent });
      else this.outbox.remove(e.delivery_id);
    }
    return known;
  }

  /**
   * Logs one attempt and settles its outbox entry in one transaction: `nextAttemptAt` null
   * removes it (delivered or given up), a time keeps it due then.
   */
  settleAttempt(a: Omit<DeliveryAttempt, 'attempted_at'>, nextAttemptAt: number | null): DeliveryAttempt {
    return this.db.transaction(() => {
      const logged = this.recordAttempt(a);
      if (nextAttemptAt === null) this.outbox.remove(a.delivery_id);
      else this.outbox.due(a.delivery_id, nextAttemptAt);
      return logged;
    })();
  }

  /** Removes one webhook by id or unique id prefix. */
  remove(idOrPrefix: string): Webhook {
    const rows = this.stmts.all.all() as WebhookRow[];
    const id = pickByPrefix(
      idOrPrefix,
      rows.map((r) => ({ id: r.id, label: redactUrl(r.url) })),
      { what: 'webhook', notFound: 'not_found', ambiguous: 'conflict' },
    );
    const row = rows.find((r) => r.id === id)!;
    this.stmts.remove.run(id);
    return toPublic(row);
  }

  /** Removes the webhook registered for exactly this URL. */
  removeByUrl(rawUrl: string): Webhook {
    const url = validateWebhookUrl(rawUrl);
    const row = this.stmts.byUrl.get(url) as WebhookRow | undefined;
    if (!row) throw new SynapseError('not_found', `no webhook is registered for ${redactUrl(url)}; see GET /webhooks`);
    this.stmts.remove.run(row.id);
    return toPublic(row);
  }

  /** Appends one attempt to the log and drops the oldest beyond KEEP_ATTEMPTS. */
  recordAttempt(a: Omit<DeliveryAttempt, 'attempted_at'> & { attempted_at?: string }): DeliveryAttempt {
    const row = { ...a, attempted_at: a.attempted_at ?? this.now(), ok: a.ok ? 1 : 0, will_retry: a.will_retry ? 1 : 0 };
    const seq = Number(this.stmts.attempt.run(row).lastInsertRowid);
    if (seq > KEEP_ATTEMPTS && seq % 100 === 0) this.stmts.trim.run(seq - KEEP_ATTEMPTS);
    return { ...a, attempted_at: row.attempted_at };
  }

  /** The delivery log, newest attempt first. */
  deliveries(filter: { webhook_id?: string; delivery_id?: string; task_id?: string; limit?: number } = {}): DeliveryAttempt[] {
    const where: string[] = [];
    const params: unknown[] = [];
    for (const key of ['webhook_id', 'delivery_id', 'task_id'] as const) {
      const v = filter[key];
      if (v !== undefined) {
        where.push(`${key} = ?`);
        params.push(v);
      }
    }
    params.push(filter.limit ?? 100);
    const sql = `SELECT delivery_id, webhook_id, url, event, task_id, attempt, status_code, ok, duration_ms, error, will_retry, attempted_at
                 FROM webhook_deliveries ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC LIMIT ?`;
    return (this.db.prepare(sql).all(...params) as AttemptRow[]).map(toAttempt);
  }
}
