import { clockFrom } from '../../../src/clock.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_DB_MIGRATIONS } from '../../../src/store/agent-db-migrations.js';
import { AgentTaskStore } from '../../../src/store/agent-tasks.js';
import { openDatabase, type Db } from '../../../src/store/sqlite.js';
import { KEEP_ATTEMPTS, WEBHOOK_EVENTS, WebhookStore, redactUrl, validateWebhookUrl, webhookEventFor } from '../../../src/store/webhooks.js';

let dir: string;
let file: string;
let db: Db;
let store: WebhookStore;
let now: number;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhooks-unit-'));
  file = path.join(dir, 'agent.db');
  db = openDatabase(file, AGENT_DB_MIGRATIONS);
  now = Date.parse('2026-02-01T00:00:00Z');
  store = new WebhookStore(
    db,
    clockFrom(() => (now += 1000)),
  );
});

afterEach(() => {
  if (db.open) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function attempt(n: number, extra: Partial<Parameters<WebhookStore['recordAttempt']>[0]> = {}) {
  return store.recordAttempt({
    delivery_id: 'd1',
    webhook_id: 'w1',
    url: 'http://127.0.0.1:1/hook',
    event: 'task.completed',
    task_id: 't1',
    attempt: n,
    status_code: 500,
    ok: false,
    duration_ms: 3,
    error: 'HTTP 500',
    will_retry: true,
    ...extra,
  });
}

describe('webhook store', () => {
  it('subscribes to all four events by default and never shows the secret', () => {
    const { webhook, created } = store.add({ url: 'https://example.test/hook', secret: 's3cret' });
    expect(created).toBe(true);
    expect(webhook.events).toEqual([...WEBHOOK_EVENTS]);
    expect(webhook.has_secret).toBe(true);
    expect(JSON.stringify(store.list())).not.toContain('s3cret');
    expect(store.targets('task.failed')[0]?.secret).toBe('s3cret');
  });

  it('registering the same URL again replaces its events and secret instead of adding a second webhook', () => {
    const first = store.add({ url: 'http://127.0.0.1:9/a', events: ['task.completed'], secret: 'x' }).webhook;
    const second = store.add({ url: 'http://127.0.0.1:9/a', events: ['task.failed', 'task.failed'] });
    expect(second.created).toBe(false);
    expect(second.webhook).toMatchObject({ id: first.id, events: ['task.failed'], has_secret: false, created_at: first.created_at });
    expect(second.webhook.updated_at > first.updated_at).toBe(true);
    expect(store.list()).toHaveLength(1);
  });

  it('selects delivery targets by event', () => {
    store.add({ url: 'http://127.0.0.1:9/done', events: ['task.completed'] });
    store.add({ url: 'http://127.0.0.1:9/all' });
    expect(store.targets('task.completed').map((w) => w.url)).toEqual(['http://127.0.0.1:9/done', 'http://127.0.0.1:9/all']);
    expect(store.targets('task.input_required').map((w) => w.url)).toEqual(['http://127.0.0.1:9/all']);
  });

  it('accepts only http and https URLs', () => {
    expect(validateWebhookUrl('http://localhost:3000/x')).toBe('http://localhost:3000/x');
    for (const bad of ['ftp://example.test/x', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url', '/relative']) {
      expect(() => store.add({ url: bad })).toThrowError(expect.objectContaining({ code: 'invalid_input' }));
    }
    expect(store.list()).toEqual([]);
  });

  it('removes by id, unique prefix or URL, and says when nothing matches', () => {
    const a = store.add({ url: 'http://127.0.0.1:9/a' }).webhook;
    const b = store.add({ url: 'http://127.0.0.1:9/b' }).webhook;
    expect(store.remove(a.id.slice(0, 8)).id).toBe(a.id);
    expect(() => store.remove(a.id)).toThrowError(expect.objectContaining({ code: 'not_found' }));
    expect(store.removeByUrl('http://127.0.0.1:9/b').id).toBe(b.id);
    expect(() => store.removeByUrl('http://127.0.0.1:9/b')).toThrowError(expect.objectContaining({ code: 'not_found' }));
  });

  it('an ambiguous id prefix is an error that lists the matches', () => {
    const insert = db.prepare("INSERT INTO webhooks (id, url, events, secret, created_at, updated_at) VALUES (?, ?, '[]', NULL, '2026-01-01', '2026-01-01')");
    insert.run('abcd1111-0000-4000-8000-000000000000', 'http://127.0.0.1:9/a');
    insert.run('abcd2222-0000-4000-8000-000000000000', 'http://127.0.0.1:9/b');
    expect(() => store.remove('abcd')).toThrowError(
      expect.objectContaining({ code: 'conflict', message: expect.stringContaining('abcd2222-0000-4000-8000-000000000000') }),
    );
    expect(store.remove('abcd1').url).toBe('http://127.0.0.1:9/a');
    expect(store.list().map((w) => w.url)).toEqual(['http://127.0.0.1:9/b']);
  });

  it('logs every attempt, newest first, filtered by delivery, webhook or task', () => {
    attempt(1);
    attempt(2);
    attempt(3, { status_code: 200, ok: true, error: null, will_retry: false });
    attempt(1, { delivery_id: 'd2', task_id: 't2', webhook_id: 'w2' });
    expect(store.deliveries().map((d) => `${d.delivery_id}#${d.attempt}`)).toEqual(['d2#1', 'd1#3', 'd1#2', 'd1#1']);
    const d1 = store.deliveries({ delivery_id: 'd1' });
    expect(d1[0]).toMatchObject({ attempt: 3, ok: true, status_code: 200, will_retry: false, error: null });
    expect(d1[2]).toMatchObject({ attempt: 1, ok: false, status_code: 500, will_retry: true, error: 'HTTP 500' });
    expect(store.deliveries({ task_id: 't2' })).toHaveLength(1);
    expect(store.deliveries({ webhook_id: 'w1', limit: 2 })).toHaveLength(2);
  });

  it('keeps the log bounded', () => {
    const insert = db.transaction(() => {
      for (let i = 1; i <= KEEP_ATTEMPTS + 100; i++) attempt(i);
    });
    insert();
    const count = (db.prepare('SELECT COUNT(*) AS n FROM webhook_deliveries').get() as { n: number }).n;
    expect(store.deliveries({ limit: 1 })[0]?.attempt).toBe(KEEP_ATTEMPTS + 100);
    expect(count).toBe(KEEP_ATTEMPTS);
  });

  it('webhooks survive closing and reopening the agent database, next to its tasks', () => {
    const { webhook } = store.add({ url: 'https://example.test/persist', events: ['task.canceled'], secret: 'k' });
    attempt(1, { webhook_id: webhook.id });
    db.close();
    const tasks = new AgentTaskStore(file);
    try {
      const reopened = new WebhookStore(tasks.db);
      expect(reopened.list()).toEqual([webhook]);
      expect(reopened.targets('task.canceled')[0]?.secret).toBe('k');
      expect(reopened.deliveries({ webhook_id: webhook.id })).toHaveLength(1);
      expect(tasks.db.pragma('user_version', { simple: true })).toBe(4);
      expect(tasks.list()).toEqual([]);
    } finally {
      tasks.close();
    }
  });

  it('migrations 2 to 4 upgrade an existing v1 agent database and keep its tasks', () => {
    const old = path.join(dir, 'v1.db');
    const v1 = openDatabase(
      old,
      AGENT_DB_MIGRATIONS.filter((m) => m.version === 1),
    );
    v1.prepare("INSERT INTO tasks (id, state, priority, created_at, updated_at, body) VALUES ('t1', 'completed', 3, 'x', 'x', '{}')").run();
    expect(v1.pragma('user_version', { simple: true })).toBe(1);
    v1.close();
    const upgraded = openDatabase(old, AGENT_DB_MIGRATIONS);
    try {
      expect(upgraded.pragma('user_version', { simple: true })).toBe(4);
      expect((upgraded.prepare('SELECT COUNT(*) AS n FROM tasks').get() as { n: number }).n).toBe(1);
      expect((upgraded.prepare('SELECT COUNT(*) AS n FROM idempotency_keys').get() as { n: number }).n).toBe(0);
      expect(new WebhookStore(upgraded).list()).toEqual([]);
      expect(new WebhookStore(upgraded).pendingDeliveries()).toEqual([]);
    } finally {
      upgraded.close();
    }
  });

  it('maps task states to events', () => {
    expect(webhookEventFor('completed')).toBe('task.completed');
    expect(webhookEventFor('failed')).toBe('task.failed');
    expect(webhookEventFor('canceled')).toBe('task.canceled');
    expect(webhookEventFor('input-required')).toBe('task.input_required');
    expect(webhookEventFor('working')).toBeNull();
    expect(webhookEventFor('submitted')).toBeNull();
  });

  it('redacts credentials and query strings for logs', () => {
    expect(redactUrl('https://user:pw@example.test:8443/hook?token=abc')).toBe('https://example.test:8443/hook?…');
    expect(redactUrl('http://127.0.0.1:9/x')).toBe('http://127.0.0.1:9/x');
  });
});
