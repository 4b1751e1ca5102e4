import { redactDeep, secretRedactor, type Redactor } from '../redact.js';
import type http from 'node:http';
import { transportFor, type PeerTls } from '../a2a/peer-tls.js';
import type { Task } from '../agent-api/task.js';
import { webhookPayload } from '../agent-api/wire.js';
import { envSetting } from '../config/env-setting.js';
import type { Env } from '../config/paths.js';
import { redactUrl, webhookEventFor, type WebhookEvent, type WebhookStore, type WebhookTarget } from '../store/webhooks.js';
import { VERSION } from '../version.js';
import { iso, systemClock, type Clock } from '../clock.js';
import { nodeCrypto } from '../require-cjs.js';

/** Waits before retry 1, 2, 3; further retries keep doubling the last one. */
const DEFAULT_BACKOFF_MS: readonly number[] = [1000, 2000, 4000];
/** The logged error of an attempt that was on the wire when the agent died. */
const INTERRUPTED = 'interrupted: the agent stopped during this attempt';
/** Enough of a failing response body to say why in the delivery log. */
const ERROR_BODY_CHARS = 200;

export interface WebhookDispatcherOptions {
  store: WebhookStore;
  env: Env;
  log: (msg: string) => void;
  clock?: Clock;
  /** Put in every payload as `agent_id`, so one receiver can tell several agents apart. */
  agentId?: string;
  /** Overrides DEFAULT_BACKOFF_MS (tests use a few milliseconds). */
  backoffMs?: readonly number[];
  /** CAs an https receiver is checked against besides the system's (`SYNAPSE_TLS_CA`). */
  tls?: PeerTls | undefined;
  /** Redacts credentials from every payload before it is stored or sent (issue 21 §4). */
  redact?: Redactor;
}

/** The outcome of one HTTP attempt. */
interface AttemptResult {
  status: number | null;
  error: string | null;
}

interface Delivery {
  /** The delivery id, also the payload's `event_id`. */
  id: string;
  timestamp: string;
  event: WebhookEvent;
  taskId: string;
  target: WebhookTarget;
  body: Buffer;
  signature: string | null;
}

/** `SYNAPSE_WEBHOOK_SECRET` signs for every webhook that has no secret of its own. */
function signatureFor(body: Buffer | string, secret: string): string {
  return `sha256=${nodeCrypto().createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** `SYNAPSE_WEBHOOK_TIMEOUT` (seconds, fractions allowed) and `SYNAPSE_WEBHOOK_MAX_RETRIES`. */
export function webhookSettings(env: Env): { timeoutMs: number; maxRetries: number } {
  return {
    timeoutMs: envSetting(env, 'SYNAPSE_WEBHOOK_TIMEOUT') * 1000,
    maxRetries: envSetting(env, 'SYNAPSE_WEBHOOK_MAX_RETRIES'),
  };
}

/**
 * Posts signed task events to the agent's webhooks. `taskUpdated` only queues work: the
 * request, its retries and the log writes all happen later, so a slow receiver never holds
 * up the task state machine. Retry timers are unref'd and `stop()` cancels them and aborts
 * requests in flight, so webhooks never keep a stopping agent alive.
 */
export class WebhookDispatcher {
  private readonly store: WebhookStore;
  private readonly log: (msg: string) => void;
  private readonly clock: Clock;
  private readonly agentId: string | undefined;
  private readonly redact: Redactor;
  private readonly backoffMs: readonly number[];
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly defaultSecret: string | null;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Requests on the wire, to abort on stop. */
  private readonly requests = new Set<http.ClientRequest>();
  /** Attempts from start until their outcome is logged, so stop() can wait for the log write. */
  private readonly attempts = new Set<Promise<void>>();
  private stopped = false;

  private readonly tls: PeerTls | undefined;

  constructor(opts: WebhookDispatcherOptions) {
    this.tls = opts.tls;
    this.store = opts.store;
    this.log = opts.log;
    this.clock = opts.clock ?? systemClock;
    this.agentId = opts.agentId;
    this.redact = opts.redact ?? secretRedactor(opts.env);
    this.backoffMs = opts.backoffMs && opts.backoffMs.length > 0 ? opts.backoffMs : DEFAULT_BACKOFF_MS;
    const settings = webhookSettings(opts.env);
    this.timeoutMs = settings.timeoutMs;
    this.maxRetries = settings.maxRetries;
    this.defaultSecret = envSetting(opts.env, 'SYNAPSE_WEBHOOK_SECRET') ?? null;
  }

  /**
   * Called with every persisted task change. Fires once per state change into a state with an
   * event; receipt-only updates (same state) fire nothing. The agent's own start-up
   * instruction is internal and fires nothing either.
   */
  taskUpdated(task: Task, previous: string | null): void {
    if (this.stopped || previous === task.status.state || task.metadata.kind === 'bootstrap') return;
    const event = webhookEventFor(task.status.state);
    if (!event) return;
    let targets: WebhookTarget[];
    try {
      targets = this.store.targets(event);
    } catch (err) {
      this.log(`webhooks: cannot read webhooks for ${event}: ${(err as Error).message}`);
      return;
    }
    const deliveries: Delivery[] = [];
    for (const target of targets) {
      const id = nodeCrypto().randomUUID();
      const timestamp = iso(this.clock.now());
      // The original's body: {event, event_id, timestamp, data: {task_id, error?}}, plus the task.
      const body = Buffer.from(JSON.stringify(redactDeep(webhookPayload(event, id, timestamp, task, this.agentId), this.redact)));
      deliveries.push(this.delivery({ id, timestamp, event, taskId: task.id, target, body }));
    }
    // Written before the first attempt: a kill from here on loses nothing (resume sends it).
    try {
      const due = this.clock.now();
      this.store.outbox.add(
        deliveries.map((d) => ({
          delivery_id: d.id,
          webhook_id: d.target.id,
          event: d.event,
          task_id: d.taskId,
          body: d.body,
          created_at: d.timestamp,
          attempts: 0,
          next_attempt_at: due,
        })),
      );
    } catch (err) {
      this.log(`webhooks: cannot write ${event} of task ${task.id} to the outbox (it is sent, but not kept across a restart): ${(err as Error).message}`);
    }
    // Next tick: the caller (the task manager's emit) returns before any I/O starts.
    for (const d of deliveries) this.schedule(() => this.attempt(d, 1), 0);
  }

  /**
   * Sends again what the outbox still holds from the previous run: retries that were waiting
   * keep their due time; an attempt that was on the wire when the agent died is logged as
   * interrupted and retried at once (it counts as an attempt). Entries of removed webhooks are
   * dropped. Call once at start, before anything can fire new events. Returns how many resume.
   */
  resume(): number {
    let pending: ReturnType<WebhookStore['pendingDeliveries']>;
    try {
      pending = this.store.pendingDeliveries();
    } catch (err) {
      this.log(`webhooks: cannot read the outbox: ${(err as Error).message}`);
      return 0;
    }
    let resumed = 0;
    for (const e of pending) {
      const target = this.store.target(e.webhook_id);
      if (!target) {
        this.store.outbox.remove(e.delivery_id);
        this.log(`webhooks: dropped ${e.event} of task ${e.task_id} from the outbox: its webhook was removed`);
        continue;
      }
      const d = this.delivery({ id: e.delivery_id, timestamp: e.created_at, event: e.event, taskId: e.task_id, target, body: e.body });
      const next = e.attempts + 1;
      let wait = Math.max(0, (e.next_attempt_at ?? 0) - this.clock.now());
      if (e.next_attempt_at === null) {
        const retry = e.attempts <= this.maxRetries;
        this.settleSafely(
          d,
          { attempt: e.attempts, status: null, error: INTERRUPTED, ok: false, durationMs: 0, willRetry: retry },
          retry ? this.clock.now() : null,
        );
        if (!retry) {
          this.log(`webhooks: ${d.event} to ${redactUrl(d.target.url)} was cut off by the restart; giving up after ${e.attempts} attempt(s)`);
          continue;
        }
        wait = 0;
      }
      resumed++;
      this.schedule(() => this.attempt(d, next), wait);
    }
    if (resumed > 0) this.log(`webhooks: resuming ${resumed} delivery(ies) left in the outbox by the previous run`);
    return resumed;
  }

  private delivery(d: Omit<Delivery, 'signature'>): Delivery {
    const secret = d.target.secret ?? this.defaultSecret;
    return { ...d, signature: secret ? signatureFor(d.body, secret) : null };
  }

  /**
   * Cancels pending retries and aborts requests in flight (after up to `graceMs`, so a final
   * event sent during shutdown still has a chance); resolves once nothing is left running.
   */
  async stop(graceMs = 0): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) this.clock.clearTimeout(t);
    this.timers.clear();
    if (this.attempts.size === 0) return;
    if (graceMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(this.attempts), new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
      clearTimeout(timer);
    }
    for (const req of this.requests) req.destroy(new Error('the agent is shutting down'));
    await Promise.all(this.attempts);
  }

  private schedule(fn: () => void, ms: number): void {
    const t = this.clock.setTimeout(() => {
      this.timers.delete(t);
      if (!this.stopped) fn();
    }, ms);
    t.unref?.();
    this.timers.add(t);
  }

  private backoffFor(retry: number): number {
    const known = this.backoffMs[retry - 1];
    if (known !== undefined) return known;
    const last = this.backoffMs[this.backoffMs.length - 1]!;
    return last * 2 ** (retry - this.backoffMs.length);
  }

  private attempt(d: Delivery, attempt: number): void {
    const started = this.clock.now();
    try {
      this.store.outbox.started(d.id, attempt);
    } catch (err) {
      this.log(`webhooks: cannot mark delivery ${d.id} in the outbox: ${(err as Error).message}`);
    }
    const running: Promise<void> = this.send(d, attempt)
      .catch((err: Error): AttemptResult => ({ status: null, error: err.message }))
      .then((result) => this.settle(d, attempt, started, result))
      .catch((err: Error) => this.log(`webhooks: delivery ${d.id} failed unexpectedly: ${err.message}`))
      .finally(() => this.attempts.delete(running));
    this.attempts.add(running);
  }

  /** Logs the attempt's outcome and schedules the retry it calls for. */
  private settle(d: Delivery, attempt: number, started: number, result: AttemptResult): void {
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    // Network errors, timeouts and 5xx may pass; 3xx/4xx mean the request itself is wrong.
    const retryable = !ok && (result.status === null || result.status >= 500);
    const retriesLeft = retryable && attempt <= this.maxRetries;
    // Stopping: a retry still due stays in the outbox and goes out at the next start.
    const wait = this.backoffFor(attempt);
    const nextAt = retriesLeft ? (this.stopped ? this.clock.now() : this.clock.now() + wait) : null;
    const durationMs = Math.max(0, Math.round(this.clock.now() - started));
    this.settleSafely(d, { attempt, status: result.status, error: result.error, ok, durationMs, willRetry: retriesLeft }, nextAt);
    if (ok) return;
    const where = redactUrl(d.target.url);
    if (retriesLeft && this.stopped) {
      this.log(`webhooks: ${d.event} to ${where} failed (${result.error}); kept in the outbox for the next start`);
    } else if (retriesLeft) {
      this.log(`webhooks: ${d.event} to ${where} failed (${result.error}); retry ${attempt} in ${wait} ms`);
      this.schedule(() => this.attempt(d, attempt + 1), wait);
    } else {
      this.log(`webhooks: ${d.event} to ${where} failed (${result.error}); giving up after ${attempt} attempt(s)`);
    }
  }

  /** Logs an attempt and settles its outbox entry (`nextAt` null: done); a failing database is logged, not thrown. */
  private settleSafely(
    d: Delivery,
    a: { attempt: number; status: number | null; error: string | null; ok: boolean; durationMs: number; willRetry: boolean },
    nextAt: number | null,
  ): void {
    try {
      this.store.settleAttempt(
        {
          delivery_id: d.id,
          webhook_id: d.target.id,
          url: d.target.url,
          event: d.event,
          task_id: d.taskId,
          attempt: a.attempt,
          status_code: a.status,
          ok: a.ok,
          duration_ms: a.durationMs,
          error: a.error,
          will_retry: a.willRetry,
        },
        nextAt,
      );
    } catch (err) {
      this.log(`webhooks: cannot record delivery ${d.id}: ${(err as Error).message}`);
    }
  }

  /** One POST; resolves with the status or the network error. */
  private async send(d: Delivery, attempt: number): Promise<AttemptResult> {
    let url: URL;
    try {
      url = new URL(d.target.url);
    } catch {
      return { status: null, error: 'invalid url' };
    }
    // node:https (and TLS with it) costs ~9 ms to load: only agents with an https webhook pay it.
    const client = await transportFor(url, this.tls);
    if (this.stopped) return { status: null, error: 'the agent is shutting down' };
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'content-length': String(d.body.length),
      'user-agent': `synapse/${VERSION}`,
      'x-synapse-event': d.event,
      'x-synapse-event-id': d.id,
      'x-synapse-timestamp': d.timestamp,
      'x-synapse-delivery': d.id,
      'x-synapse-attempt': String(attempt),
    };
    if (d.signature) headers['x-synapse-signature'] = d.signature;
    const result = new Promise<AttemptResult>((resolve) => {
      let finished = false;
      const finish = (r: AttemptResult) => {
        if (finished) return;
        finished = true;
        clearTimeout(deadline);
        this.requests.delete(req);
        resolve(r);
      };
      const req = client.request(url, { ...client.options, method: 'POST', headers, agent: false }, (res) => {
        const status = res.statusCode ?? 0;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text.length < ERROR_BODY_CHARS) text += chunk;
        });
        res.on('end', () => {
          const ok = status >= 200 && status < 300;
          const snippet = text.replace(/\s+/g, ' ').trim().slice(0, ERROR_BODY_CHARS);
          finish({ status, error: ok ? null : `HTTP ${status}${snippet ? `: ${snippet}` : ''}` });
        });
        res.on('error', (err) => finish({ status, error: err.message }));
        res.on('close', () => finish({ status, error: 'the connection closed before the response ended' }));
      });
      // A whole-request deadline: a receiver that trickles bytes cannot hold the delivery open.
      const deadline = setTimeout(() => req.destroy(new Error(`timed out after ${this.timeoutMs} ms`)), this.timeoutMs);
      deadline.unref();
      req.on('error', (err) => finish({ status: null, error: err.message }));
      this.requests.add(req);
      req.end(d.body);
    });
    return await result;
  }
}
