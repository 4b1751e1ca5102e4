import { createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Task, TaskState } from '../../../src/agent-api/task.js';
import { systemClock, type Clock } from '../../../src/clock.js';
import { WebhookDispatcher } from '../../../src/runtime/webhook-dispatcher.js';
import { AGENT_DB_MIGRATIONS } from '../../../src/store/agent-db-migrations.js';
import { openDatabase, type Db } from '../../../src/store/sqlite.js';
import { WebhookStore } from '../../../src/store/webhooks.js';
import { freePort, waitFor } from '../../support/synapse.js';

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
}

/** A local receiver: each path answers with the statuses listed for it, in order (the last one repeats); 'hang' never answers. */
async function receiver(
  script: Record<string, Array<number | 'hang'>>,
): Promise<{ url: (p: string) => string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const served = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const p = req.url ?? '/';
      received.push({ path: p, headers: req.headers, raw: Buffer.concat(chunks) });
      const steps = script[p] ?? [200];
      const n = served.get(p) ?? 0;
      served.set(p, n + 1);
      const step = steps[Math.min(n, steps.length - 1)]!;
      if (step === 'hang') return;
      res.writeHead(step, { 'content-type': 'text/plain' }).end(step >= 400 ? `nope ${step}` : 'ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (p) => `http://127.0.0.1:${port}${p}`,
    received,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function verify(r: Received, secret: string): boolean {
  const header = String(r.headers['x-synapse-signature'] ?? '');
  const expected = `sha256=${createHmac('sha256', secret).update(r.raw).digest('hex')}`;
  return header.length === expected.length && timingSafeEqual(Buffer.from(header), Buffer.from(expected));
}

function task(state: TaskState, extra: Partial<Task> = {}): Task {
  const now = new Date().toISOString();
  return {
    id: 'a0a0a0a0-1111-4222-8333-444455556666',
    context_id: 'ctx-1',
    status: { state, timestamp: now },
    message: { role: 'user', parts: [{ type: 'text', text: 'build the parser' }] },
    artifacts: state === 'completed' ? [{ artifact_id: 'art-1', name: 'response', parts: [{ type: 'text', text: 'done' }] }] : [],
    metadata: { kind: 'message', sender: { sender_id: 'synapse-claude-8100', sender_name: 'alice' } },
    priority: 3,
    receipt: { state: 'answered', queued_at: now },
    created_at: now,
    updated_at: now,
    ...extra,
  };
}

let dir: string;
let db: Db;
let store: WebhookStore;
const cleanups: Array<() => Promise<void> | void> = [];
const logs: string[] = [];

function dispatcher(env: Record<string, string> = {}, extra: { clock?: Clock; backoffMs?: number[] } = {}): WebhookDispatcher {
  const d = new WebhookDispatcher({
    store,
    env,
    log: (m) => logs.push(m),
    agentId: 'synapse-echo-8199',
    backoffMs: extra.backoffMs ?? [10, 20, 40],
    ...(extra.clock ? { clock: extra.clock } : {}),
  });
  cleanups.push(() => d.stop());
  return d;
}

async function listen(script: Record<string, Array<number | 'hang'>>) {
  const r = await receiver(script);
  cleanups.push(r.close);
  return r;
}

const attemptsFor = (webhookId: string) => store.deliveries({ webhook_id: webhookId }).reverse();

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-delivery-'));
  db = openDatabase(path.join(dir, 'agent.db'), AGENT_DB_MIGRATIONS);
  store = new WebhookStore(db);
  logs.length = 0;
});

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('webhook delivery', () => {
  it('retries 5xx with backoff until it succeeds, signs with the webhook secret, and records every attempt', async () => {
    const r = await listen({ '/flaky': [500, 500, 200] });
    const { webhook } = store.add({ url: r.url('/flaky'), secret: 'own-secret' });
    dispatcher({ SYNAPSE_WEBHOOK_SECRET: 'env-secret' }).taskUpdated(task('completed'), 'working');

    const attempts = await waitFor(
      () => {
        const a = attemptsFor(webhook.id);
        return a.length === 3 ? a : null;
      },
      5_000,
      'three attempts',
    );
    expect(attempts.map((a) => [a.attempt, a.status_code, a.ok, a.will_retry])).toEqual([
      [1, 500, false, true],
      [2, 500, false, true],
      [3, 200, true, false],
    ]);
    expect(attempts[0]!.error).toBe('HTTP 500: nope 500');
    expect(attempts[2]!.error).toBeNull();
    expect(new Set(attempts.map((a) => a.delivery_id)).size).toBe(1);
    for (const a of attempts) expect(a.duration_ms).toBeGreaterThanOrEqual(0);

    expect(r.received).toHaveLength(3);
    const deliveryId = attempts[0]!.delivery_id;
    for (const [i, req] of r.received.entries()) {
      expect(req.headers['x-synapse-event']).toBe('task.completed');
      expect(req.headers['x-synapse-delivery']).toBe(deliveryId);
      expect(req.headers['x-synapse-event-id']).toBe(deliveryId);
      expect(req.headers['x-synapse-timestamp']).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(req.headers['x-synapse-attempt']).toBe(String(i + 1));
      expect(req.headers['content-type']).toBe('application/json');
      expect(verify(req, 'own-secret')).toBe(true);
      expect(verify(req, 'env-secret')).toBe(false);
    }
    const body = JSON.parse(r.received[0]!.raw.toString('utf8'));
    // The original's body: {event, event_id, timestamp, data: {task_id, …}}; the task (wire shape) and agent ride along.
    expect(Object.keys(body)).toEqual(['event', 'event_id', 'timestamp', 'data', 'agent_id']);
    expect(body).toMatchObject({
      event: 'task.completed',
      event_id: deliveryId,
      timestamp: r.received[0]!.headers['x-synapse-timestamp'],
      agent_id: 'synapse-echo-8199',
      data: {
        task_id: task('completed').id,
        status: 'completed',
        task: { id: task('completed').id, status: 'completed', artifacts: [{ type: 'text', data: 'done' }], error: null },
      },
    });
    expect(body.data).not.toHaveProperty('error');
    expect(r.received[2]!.raw.equals(r.received[0]!.raw)).toBe(true);
    expect(logs.join('\n')).not.toContain('own-secret');
  });

  it("a failed task's payload carries its error in data, as the original's task.failed does", async () => {
    const r = await listen({ '/failed': [200] });
    store.add({ url: r.url('/failed'), events: ['task.failed'] });
    const error = { code: 'REPLY_FAILED', message: 'the staging database is down', data: null };
    dispatcher().taskUpdated(task('failed', { error, status: { state: 'failed', timestamp: new Date().toISOString(), message: error.message } }), 'working');
    await waitFor(() => r.received.length === 1, 5_000, 'the delivery');
    const body = JSON.parse(r.received[0]!.raw.toString('utf8'));
    expect(body.data).toMatchObject({ task_id: task('failed').id, status: 'failed', error, task: { status: 'failed', error, status_message: error.message } });
  });

  it('does not retry a 4xx', async () => {
    const r = await listen({ '/reject': [400, 200] });
    const { webhook } = store.add({ url: r.url('/reject'), events: ['task.failed'] });
    dispatcher().taskUpdated(task('failed'), 'working');
    const [only] = await waitFor(() => (attemptsFor(webhook.id).length > 0 ? attemptsFor(webhook.id) : null), 5_000, 'the attempt');
    expect(only).toMatchObject({ attempt: 1, status_code: 400, ok: false, will_retry: false, event: 'task.failed' });
    // A later delivery to another receiver proves the dispatcher moved on; the 4xx one got no second try.
    const other = await listen({ '/ok': [200] });
    const second = store.add({ url: other.url('/ok'), events: ['task.canceled'] }).webhook;
    dispatcher().taskUpdated(task('canceled'), 'working');
    await waitFor(() => attemptsFor(second.id).length === 1, 5_000, 'the second delivery');
    expect(r.received).toHaveLength(1);
  });

  it('signs with SYNAPSE_WEBHOOK_SECRET when the webhook has no secret, and not at all without one', async () => {
    const r = await listen({});
    const signed = store.add({ url: r.url('/signed'), events: ['task.input_required'] }).webhook;
    dispatcher({ SYNAPSE_WEBHOOK_SECRET: 'env-secret' }).taskUpdated(task('input-required'), 'working');
    await waitFor(() => attemptsFor(signed.id).some((a) => a.ok), 5_000, 'signed delivery');
    expect(r.received[0]!.headers['x-synapse-event']).toBe('task.input_required');
    expect(verify(r.received[0]!, 'env-secret')).toBe(true);

    const plain = store.add({ url: r.url('/plain'), events: ['task.canceled'] }).webhook;
    dispatcher().taskUpdated(task('canceled'), 'working');
    await waitFor(() => attemptsFor(plain.id).some((a) => a.ok), 5_000, 'unsigned delivery');
    expect(r.received.find((x) => x.path === '/plain')!.headers['x-synapse-signature']).toBeUndefined();
  });

  it('fires once per state change, only for subscribed events, and not for the start-up instruction', async () => {
    const r = await listen({});
    const done = store.add({ url: r.url('/done'), events: ['task.completed'] }).webhook;
    const all = store.add({ url: r.url('/all') }).webhook;
    const d = dispatcher();
    d.taskUpdated(task('submitted'), null);
    d.taskUpdated(task('working'), 'submitted');
    d.taskUpdated(task('input-required'), 'working');
    d.taskUpdated(task('input-required'), 'input-required'); // a receipt-only update
    d.taskUpdated(task('completed', { id: 'bootstrap-task', metadata: { kind: 'bootstrap' } }), 'working');
    d.taskUpdated(task('completed'), 'input-required');
    d.taskUpdated(task('completed'), 'completed'); // the artifact replaced by an explicit reply
    await waitFor(() => attemptsFor(all.id).length === 2 && attemptsFor(done.id).length === 1, 5_000, 'deliveries');
    expect(attemptsFor(all.id).map((a) => a.event)).toEqual(['task.input_required', 'task.completed']);
    expect(attemptsFor(done.id).map((a) => a.event)).toEqual(['task.completed']);
    // Every delivery has its own id.
    expect(new Set(store.deliveries().map((a) => a.delivery_id)).size).toBe(3);
    expect(r.received.every((x) => !x.raw.toString().includes('bootstrap-task'))).toBe(true);
  });

  it('retries network errors and gives up after SYNAPSE_WEBHOOK_MAX_RETRIES', async () => {
    const port = await freePort();
    const { webhook } = store.add({ url: `http://127.0.0.1:${port}/nobody` });
    dispatcher({ SYNAPSE_WEBHOOK_MAX_RETRIES: '1' }).taskUpdated(task('completed'), 'working');
    const attempts = await waitFor(() => (attemptsFor(webhook.id).length === 2 ? attemptsFor(webhook.id) : null), 5_000, 'two attempts');
    expect(attempts.map((a) => [a.attempt, a.status_code, a.will_retry])).toEqual([
      [1, null, true],
      [2, null, false],
    ]);
    expect(attempts[0]!.error).toMatch(/ECONNREFUSED/);
    expect(logs.some((l) => l.includes('giving up after 2 attempt(s)'))).toBe(true);
  });

  it('https URLs go through the TLS client (a refused connection is a network error)', async () => {
    const port = await freePort();
    const { webhook } = store.add({ url: `https://127.0.0.1:${port}/tls` });
    dispatcher({ SYNAPSE_WEBHOOK_MAX_RETRIES: '0' }).taskUpdated(task('completed'), 'working');
    const [a] = await waitFor(() => (attemptsFor(webhook.id).length === 1 ? attemptsFor(webhook.id) : null), 5_000, 'the https attempt');
    expect(a).toMatchObject({ status_code: null, ok: false, will_retry: false });
    expect(a!.error).toMatch(/ECONNREFUSED/);
  });

  it('times out a receiver that never answers (SYNAPSE_WEBHOOK_TIMEOUT, seconds)', async () => {
    const r = await listen({ '/slow': ['hang'] });
    const { webhook } = store.add({ url: r.url('/slow') });
    dispatcher({ SYNAPSE_WEBHOOK_TIMEOUT: '0.2', SYNAPSE_WEBHOOK_MAX_RETRIES: '0' }).taskUpdated(task('completed'), 'working');
    const [a] = await waitFor(() => (attemptsFor(webhook.id).length === 1 ? attemptsFor(webhook.id) : null), 5_000, 'the timed-out attempt');
    expect(a).toMatchObject({ status_code: null, ok: false, will_retry: false });
    expect(a!.error).toContain('timed out after 200 ms');
    expect(a!.duration_ms).toBeGreaterThanOrEqual(150);
  });

  it('stop() cancels pending retries and aborts requests in flight', async () => {
    const r = await listen({ '/fail': [503], '/hang': ['hang'] });
    const failing = store.add({ url: r.url('/fail'), events: ['task.failed'] }).webhook;
    const hanging = store.add({ url: r.url('/hang'), events: ['task.canceled'] }).webhook;
    const scheduled: Array<{ ms: number; timer: NodeJS.Timeout }> = [];
    const cleared = new Set<NodeJS.Timeout>();
    const clock: Clock = {
      now: () => systemClock.now(),
      setTimeout: (fn, ms) => {
        const timer = systemClock.setTimeout(fn, ms);
        scheduled.push({ ms, timer });
        return timer;
      },
      clearTimeout: (t) => {
        if (t) cleared.add(t);
        systemClock.clearTimeout(t);
      },
    };
    const d = dispatcher({}, { clock, backoffMs: [60_000] });
    d.taskUpdated(task('failed'), 'working');
    d.taskUpdated(task('canceled'), 'working');
    await waitFor(() => attemptsFor(failing.id).length === 1 && r.received.some((x) => x.path === '/hang'), 5_000, 'first attempt and the hanging request');
    const retry = scheduled.find((s) => s.ms === 60_000);
    expect(retry).toBeDefined();
    expect(retry!.timer.hasRef()).toBe(false);

    await d.stop();
    expect(cleared.has(retry!.timer)).toBe(true);
    const aborted = attemptsFor(hanging.id);
    expect(aborted).toHaveLength(1);
    // Aborted, not given up: both stay in the outbox for the next start.
    expect(aborted[0]).toMatchObject({ ok: false, status_code: null, will_retry: true, error: 'the agent is shutting down' });
    expect(store.pendingDeliveries().map((e) => [e.webhook_id, e.attempts, e.next_attempt_at !== null])).toEqual([
      [failing.id, 1, true],
      [hanging.id, 1, true],
    ]);
    expect(logs.join('\n')).toContain('kept in the outbox for the next start');
    d.taskUpdated(task('failed'), 'working');
    expect(scheduled.filter((s) => s.ms === 0)).toHaveLength(2);
  });

  it('resume() sends what the outbox kept: a cut-off attempt is logged as interrupted and sent again with the same event id and body', async () => {
    const r = await listen({ '/hook': [200] });
    const { webhook } = store.add({ url: r.url('/hook'), secret: 'own-secret' });
    const gone = store.add({ url: r.url('/gone') }).webhook;
    const body = Buffer.from(JSON.stringify({ event: 'task.completed', event_id: 'd-1', data: { task_id: 't-1' } }));
    // What a killed agent leaves: one attempt on the wire, one never started, one for a removed webhook.
    store.outbox.add([
      {
        delivery_id: 'd-1',
        webhook_id: webhook.id,
        event: 'task.completed',
        task_id: 't-1',
        body,
        created_at: '2026-01-01T00:00:00.000Z',
        attempts: 1,
        next_attempt_at: null,
      },
      {
        delivery_id: 'd-2',
        webhook_id: webhook.id,
        event: 'task.failed',
        task_id: 't-2',
        body,
        created_at: '2026-01-01T00:00:01.000Z',
        attempts: 0,
        next_attempt_at: 0,
      },
      {
        delivery_id: 'd-3',
        webhook_id: gone.id,
        event: 'task.failed',
        task_id: 't-3',
        body,
        created_at: '2026-01-01T00:00:02.000Z',
        attempts: 0,
        next_attempt_at: 0,
      },
    ]);
    store.remove(gone.id);
    expect(dispatcher().resume()).toBe(2);
    await waitFor(() => store.pendingDeliveries().length === 0 && r.received.length === 2, 5_000, 'both resumed deliveries');
    const first = r.received.find((x) => x.headers['x-synapse-event-id'] === 'd-1')!;
    expect(first.raw.equals(body)).toBe(true);
    expect(first.headers['x-synapse-attempt']).toBe('2');
    expect(first.headers['x-synapse-timestamp']).toBe('2026-01-01T00:00:00.000Z');
    expect(verify(first, 'own-secret')).toBe(true);
    expect(r.received.find((x) => x.headers['x-synapse-event-id'] === 'd-2')!.headers['x-synapse-attempt']).toBe('1');
    expect(
      store
        .deliveries({ delivery_id: 'd-1' })
        .reverse()
        .map((a) => [a.attempt, a.ok, a.error]),
    ).toEqual([
      [1, false, 'interrupted: the agent stopped during this attempt'],
      [2, true, null],
    ]);
    expect(logs.join('\n')).toContain('dropped task.failed of task t-3 from the outbox: its webhook was removed');
    expect(logs.join('\n')).toContain('resuming 2 delivery(ies)');
  });

  it('a delivered or given-up event leaves the outbox', async () => {
    const r = await listen({ '/ok': [204], '/no': [404] });
    store.add({ url: r.url('/ok') });
    store.add({ url: r.url('/no') });
    dispatcher().taskUpdated(task('completed'), 'working');
    expect(store.pendingDeliveries()).toHaveLength(2);
    await waitFor(() => r.received.length === 2 && store.pendingDeliveries().length === 0, 5_000, 'both settled');
  });
});
