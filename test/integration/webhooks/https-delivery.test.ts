import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Task } from '../../../src/agent-api/task.js';
import { WebhookDispatcher } from '../../../src/runtime/webhook-dispatcher.js';
import { AGENT_DB_MIGRATIONS } from '../../../src/store/agent-db-migrations.js';
import { openDatabase, type Db } from '../../../src/store/sqlite.js';
import { WebhookStore } from '../../../src/store/webhooks.js';
import { ROOT, waitFor } from '../../support/synapse.js';

/** Webhooks to an https receiver with a self-signed certificate: trusted through SYNAPSE_TLS_CA's CAs only. */

const CERT = fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'tls', 'cert.pem'), 'utf8');
const KEY = fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'tls', 'key.pem'), 'utf8');

let dir: string;
let db: Db;
let store: WebhookStore;
let server: https.Server;
let received: number;
const dispatchers: WebhookDispatcher[] = [];

function task(): Task {
  const now = new Date().toISOString();
  return {
    id: 'b1b1b1b1-1111-4222-8333-444455556666',
    context_id: 'ctx-1',
    status: { state: 'completed', timestamp: now },
    message: { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
    artifacts: [],
    metadata: { kind: 'message' },
    priority: 3,
    receipt: { state: 'answered', queued_at: now },
    created_at: now,
    updated_at: now,
  };
}

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-https-'));
  db = openDatabase(path.join(dir, 'agent.db'), AGENT_DB_MIGRATIONS);
  store = new WebhookStore(db);
  received = 0;
  server = https.createServer({ cert: CERT, key: KEY }, (req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});

afterEach(async () => {
  for (const d of dispatchers.splice(0)) await d.stop();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function deliver(tls: { extraCa: string[] } | undefined) {
  const { webhook } = store.add({ url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook` });
  const d = new WebhookDispatcher({ store, env: { SYNAPSE_WEBHOOK_MAX_RETRIES: '0' }, log: () => undefined, backoffMs: [10], tls });
  dispatchers.push(d);
  d.taskUpdated(task(), 'working');
  return waitFor(() => store.deliveries({ webhook_id: webhook.id })[0], 10_000, 'the delivery attempt');
}

describe('webhooks over https', () => {
  it('deliver to a receiver whose certificate is among the extra CAs', async () => {
    const attempt = await deliver({ extraCa: [CERT] });
    expect([attempt.ok, attempt.status_code, attempt.error]).toEqual([true, 200, null]);
    expect(received).toBe(1);
  });

  it('refuse a self-signed receiver that nothing trusts', async () => {
    const attempt = await deliver(undefined);
    expect(attempt.ok).toBe(false);
    expect(attempt.error).toContain('self-signed certificate');
    expect(received).toBe(0);
  });
});
