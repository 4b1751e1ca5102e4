import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, getJson, postJson, runCli, tempHome, textMessage, waitFor, waitForTask } from '../support/synapse.js';

/**
 * Issue 15 §6: what an agent leaves on disk is the user's alone and holds no secret. Registry,
 * reply, message, log and database files are 0600 in 0700 directories; a long-message file is
 * gone once its TTL (SYNAPSE_LONG_MESSAGE_TTL) has passed; API keys and webhook secrets appear in
 * no log, history, registry or other file (a webhook's own secret lives only in the agent's
 * database, where it signs the calls).
 */

const t = tempHome();
const SECRETS = {
  apiKey: 'api-key-3b9f0c2e7d41a8',
  adminKey: 'admin-key-91c4e07b5a2f63',
  envWebhookSecret: 'env-webhook-secret-5e8a1d',
  ownWebhookSecret: 'own-webhook-secret-c27f90',
};
const longDir = path.join(t.home, 'long-messages');
const env: NodeJS.ProcessEnv = {
  ...t.env,
  SYNAPSE_HISTORY_ENABLED: 'true',
  SYNAPSE_LONG_MESSAGE_THRESHOLD: '40',
  SYNAPSE_LONG_MESSAGE_TTL: '2',
  SYNAPSE_LONG_MESSAGE_DIR: longDir,
  // Answers wait on the reply stack, so its file is there to look at.
  ECHO_AUTO_REPLY: '0',
  SYNAPSE_REPLY_GRACE: '60',
  SYNAPSE_API_KEYS: `${SECRETS.apiKey},another-key`,
  SYNAPSE_ADMIN_KEY: SECRETS.adminKey,
  SYNAPSE_WEBHOOK_SECRET: SECRETS.envWebhookSecret,
};
let endpoint: string;
let agentId: string;
let receiver: http.Server;
const hooks: Array<{ signature: string | undefined; body: string }> = [];

const mode = (p: string) => fs.statSync(p).mode & 0o777;

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? filesUnder(p) : d.isFile() ? [p] : [];
  });
}

/** Files under HOME that hold any of `secrets`, as `file: secret`. */
function leaks(secrets: string[], except: (file: string) => boolean = () => false): string[] {
  return filesUnder(t.home)
    .filter((f) => !except(f))
    .flatMap((f) => {
      const bytes = fs.readFileSync(f);
      return secrets.filter((s) => bytes.includes(s)).map((s) => `${path.relative(t.home, f)}: ${s}`);
    });
}

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hooks.push({ signature: req.headers['x-synapse-signature'] as string | undefined, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const port = await freePort();
  const started = await runCli(['start', 'echo', '--name', 'vault', '--port', String(port), '--json'], { env, timeoutMs: 30_000 });
  expect(started.code, started.stderr).toBe(0);
  const entry = JSON.parse(started.stdout);
  endpoint = entry.endpoint;
  agentId = entry.agent_id;
  await waitFor(async () => (await getJson(`${endpoint}/status`)).body.ready_for_messages === true, 15_000, 'vault to take messages');
}, 40_000);

afterAll(async () => {
  await runCli(['stop', 'vault'], { env }).catch(() => undefined);
  await new Promise<void>((r) => receiver.close(() => r()));
  t.cleanup();
});

describe('data at rest', () => {
  it('long-message, registry, reply, database and log files are 0600 in 0700 directories; the long message is removed at its TTL', async () => {
    const long = 'a long message that goes to a file: '.repeat(4);
    const sent = await postJson(`${endpoint}/tasks/send`, textMessage(long, { response_mode: 'silent' }));
    expect(sent.status).toBe(202);
    const file = path.join(longDir, `${sent.body.task.id}.txt`);
    await waitFor(() => fs.existsSync(file), 10_000, 'the long-message file');
    expect(mode(file)).toBe(0o600);
    expect(mode(longDir)).toBe(0o700);
    await waitForTask(endpoint, sent.body.task.id, 15_000);

    // An answer is expected: the sender waits on the reply stack.
    const asked = await postJson(`${endpoint}/tasks/send`, textMessage('short question', { response_mode: 'wait', sender: { sender_id: 'synapse-echo-1' } }));
    expect(asked.status).toBe(202);
    const replyFile = path.join(t.env.SYNAPSE_REPLY_TARGET_DIR!, `${agentId}.reply.json`);
    await waitFor(() => fs.existsSync(replyFile), 10_000, 'the reply stack file');

    const synapseHome = t.env.SYNAPSE_HOME!;
    const agentDb = path.join(synapseHome, 'agents', `${agentId}.db`);
    const historyDb = path.join(synapseHome, 'history', 'history.db');
    await waitFor(() => fs.existsSync(historyDb), 10_000, 'the history database');
    const logs = fs.readdirSync(path.join(synapseHome, 'logs')).map((n) => path.join(synapseHome, 'logs', n));
    expect(logs.length).toBeGreaterThan(0);
    const files = [path.join(t.env.SYNAPSE_REGISTRY_DIR!, `${agentId}.json`), replyFile, agentDb, `${agentDb}-wal`, historyDb, ...logs];
    const dirs = [
      t.env.SYNAPSE_REGISTRY_DIR!,
      t.env.SYNAPSE_REPLY_TARGET_DIR!,
      path.join(synapseHome, 'agents'),
      path.join(synapseHome, 'history'),
      synapseHome,
      path.join(synapseHome, 'logs'),
    ];
    expect(Object.fromEntries(files.map((f) => [path.relative(t.home, f), mode(f).toString(8)]))).toEqual(
      Object.fromEntries(files.map((f) => [path.relative(t.home, f), '600'])),
    );
    expect(Object.fromEntries(dirs.map((d) => [path.relative(t.home, d), mode(d).toString(8)]))).toEqual(
      Object.fromEntries(dirs.map((d) => [path.relative(t.home, d), '700'])),
    );

    // SYNAPSE_LONG_MESSAGE_TTL=2: the running agent removes the file soon after.
    await waitFor(() => !fs.existsSync(file), 10_000, 'the long-message file to be removed at its TTL');
  });

  it('API keys and webhook secrets are in no log, history or registry file (a webhook secret only in the agent database)', async () => {
    const hook = await postJson(`${endpoint}/webhooks`, {
      url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`,
      events: ['task.completed'],
      secret: SECRETS.ownWebhookSecret,
    });
    expect(hook.status).toBeLessThan(300);
    expect(JSON.stringify(hook.body)).not.toContain(SECRETS.ownWebhookSecret);
    const sent = await postJson(`${endpoint}/tasks/send`, textMessage('a task that fires the webhook', { response_mode: 'silent' }));
    await waitForTask(endpoint, sent.body.task.id, 15_000);
    // The secret is used (the call is signed with it) …
    const call = await waitFor(() => hooks.find((h) => h.body.includes(sent.body.task.id)), 10_000, 'the signed webhook call');
    expect(call.signature).toBe(`sha256=${createHmac('sha256', SECRETS.ownWebhookSecret).update(call.body).digest('hex')}`);
    expect(call.body).not.toContain(SECRETS.ownWebhookSecret);

    // … and written nowhere but the agent's own database.
    const agentDb = (f: string) => path.basename(f).startsWith(`${agentId}.db`);
    expect(leaks([SECRETS.ownWebhookSecret], agentDb)).toEqual([]);
    expect(leaks([SECRETS.apiKey, SECRETS.adminKey, SECRETS.envWebhookSecret])).toEqual([]);

    // Still none once the agent has stopped (exit records, final log lines, history).
    const stopped = await runCli(['stop', 'vault'], { env });
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(leaks([SECRETS.ownWebhookSecret], agentDb)).toEqual([]);
    expect(leaks([SECRETS.apiKey, SECRETS.adminKey, SECRETS.envWebhookSecret])).toEqual([]);
  });
});
