import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installErrorHandler } from '../../../src/server/errors.js';
import { webhookRoutes } from '../../../src/server/routes/webhooks.js';
import { AGENT_DB_MIGRATIONS } from '../../../src/store/agent-db-migrations.js';
import { openDatabase, type Db } from '../../../src/store/sqlite.js';
import { WebhookStore } from '../../../src/store/webhooks.js';

let dir: string;
let file: string;
let db: Db;
let app: FastifyInstance;

async function build(): Promise<FastifyInstance> {
  db = openDatabase(file, AGENT_DB_MIGRATIONS);
  const a = Fastify({ logger: false });
  installErrorHandler(a);
  await a.register(webhookRoutes, { store: new WebhookStore(db) });
  await a.ready();
  return a;
}

async function call(method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) {
  const res = await app.inject({ method, url, ...(payload === undefined ? {} : { payload: payload as object }) });
  return { status: res.statusCode, body: res.json(), raw: res.body };
}

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-routes-'));
  file = path.join(dir, 'agent.db');
  app = await build();
});

afterEach(async () => {
  await app.close();
  if (db.open) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('webhook routes', () => {
  it("registers, lists without the secret, and deletes by id, in the original Synapse's shapes", async () => {
    const created = await call('POST', '/webhooks', {
      url: 'https://hooks.example.test/synapse',
      events: ['task.completed', 'task.failed'],
      secret: 'topsecret',
    });
    expect(created.status).toBe(201);
    // The webhook itself, as the original answers it ({url, events, enabled, created_at}), plus ours.
    expect(created.body).toEqual({
      url: 'https://hooks.example.test/synapse',
      events: ['task.completed', 'task.failed'],
      enabled: true,
      created_at: expect.any(String),
      id: expect.any(String),
      has_secret: true,
      updated_at: expect.any(String),
      created: true,
    });
    expect(created.raw).not.toContain('topsecret');

    const listed = await call('GET', '/webhooks');
    expect(listed.status).toBe(200);
    const { created: _created, ...webhook } = created.body;
    expect(listed.body).toEqual([webhook]);
    expect(listed.raw).not.toContain('topsecret');

    const removed = await call('DELETE', `/webhooks/${created.body.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ status: 'removed', url: 'https://hooks.example.test/synapse', id: created.body.id });
    expect((await call('GET', '/webhooks')).body).toEqual([]);
    expect((await call('DELETE', `/webhooks/${created.body.id}`)).body.error.code).toBe('not_found');
  });

  it('defaults to all four events and re-registering a URL updates it (200, same id)', async () => {
    const first = await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/h' });
    expect(first.body.events).toEqual(['task.completed', 'task.failed', 'task.canceled', 'task.input_required']);
    expect(first.body.has_secret).toBe(false);
    const again = await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/h', events: ['task.canceled'] });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ created: false, id: first.body.id, events: ['task.canceled'] });
  });

  it('refuses non-http URLs, unknown events, unknown fields and empty bodies with 400', async () => {
    for (const body of [
      { url: 'ftp://example.test/x' },
      { url: 'file:///etc/passwd' },
      { url: 'nonsense' },
      { url: 'http://127.0.0.1:9/h', events: ['task.started'] },
      { url: 'http://127.0.0.1:9/h', events: [] },
      { url: 'http://127.0.0.1:9/h', event: ['task.failed'] },
      { url: 'http://127.0.0.1:9/h', secret: '' },
      {},
    ]) {
      const res = await call('POST', '/webhooks', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_input');
    }
    expect((await call('GET', '/webhooks')).body).toEqual([]);
  });

  it('names the allowed events once when an event is unknown', async () => {
    const res = await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/h', events: ['task.started'] });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'invalid_input',
      message: 'body/events/0 must be one of task.completed, task.failed, task.canceled, task.input_required',
    });
  });

  it('deletes by URL, and refuses a bare DELETE /webhooks', async () => {
    await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/a' });
    await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/b' });
    const bare = await call('DELETE', '/webhooks');
    expect(bare.status).toBe(400);
    const byUrl = await call('DELETE', `/webhooks?url=${encodeURIComponent('http://127.0.0.1:9/a')}`);
    expect(byUrl.status).toBe(200);
    expect(byUrl.body).toMatchObject({ status: 'removed', url: 'http://127.0.0.1:9/a' });
    expect((await call('GET', '/webhooks')).body.map((w: { url: string }) => w.url)).toEqual(['http://127.0.0.1:9/b']);
    expect((await call('DELETE', `/webhooks?url=${encodeURIComponent('http://127.0.0.1:9/a')}`)).status).toBe(404);
  });

  it('lists delivery attempts with filters and validates the query', async () => {
    const { body } = await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/a' });
    const store = new WebhookStore(db);
    const base = { webhook_id: body.id, url: 'http://127.0.0.1:9/a', event: 'task.completed' as const, duration_ms: 5, will_retry: false };
    store.recordAttempt({ ...base, delivery_id: 'd-1', task_id: 't-1', attempt: 1, status_code: 503, ok: false, error: 'HTTP 503' });
    store.recordAttempt({ ...base, delivery_id: 'd-1', task_id: 't-1', attempt: 2, status_code: 200, ok: true, error: null });
    store.recordAttempt({ ...base, delivery_id: 'd-2', task_id: 't-2', attempt: 1, status_code: null, ok: false, error: 'connect ECONNREFUSED' });

    const all = await call('GET', '/webhooks/deliveries');
    expect(all.body.map((d: { event_id: string; attempts: number }) => `${d.event_id}#${d.attempts}`)).toEqual(['d-2#1', 'd-1#2', 'd-1#1']);
    const one = await call('GET', '/webhooks/deliveries?task_id=t-1&limit=1');
    // The original's delivery record ({webhook_url, event_type, event_id, status_code, success, attempts, error, delivered_at}), plus ours.
    expect(one.body).toEqual([
      {
        webhook_url: 'http://127.0.0.1:9/a',
        event_type: 'task.completed',
        event_id: 'd-1',
        status_code: 200,
        success: true,
        attempts: 2,
        error: null,
        delivered_at: expect.any(String),
        webhook_id: body.id,
        task_id: 't-1',
        duration_ms: 5,
        will_retry: false,
        attempted_at: one.body[0].delivered_at,
      },
    ]);
    const failed = (await call('GET', '/webhooks/deliveries?task_id=t-2')).body;
    expect(failed[0]).toMatchObject({ success: false, status_code: null, error: 'connect ECONNREFUSED', delivered_at: null });
    expect((await call('GET', '/webhooks/deliveries?limit=0')).status).toBe(400);
  });

  it('webhooks registered over HTTP are still there after the database is reopened', async () => {
    const created = await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/keep', secret: 'k' });
    await app.close();
    db.close();
    app = await build();
    const { created: _created, ...webhook } = created.body;
    expect((await call('GET', '/webhooks')).body).toEqual([webhook]);
  });
});
