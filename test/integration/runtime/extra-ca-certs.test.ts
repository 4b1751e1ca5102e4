import { spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { childOf, environ } from '../../support/proc.js';
import {
  BIN,
  cleanupAll,
  freePort,
  getJson,
  postJson,
  ROOT,
  runCli,
  runFile,
  runNode,
  stopGroup,
  tempHome,
  textMessage,
  waitFor,
} from '../../support/synapse.js';

/**
 * NODE_EXTRA_CA_CERTS waits while a synapse process's node starts (src/extra-ca-certs.ts): the
 * bin's shebang and `synapse start` hold it aside, the process puts it back for what it starts and
 * reads it before its first TLS connection. Run through the shebang, as a shell runs `synapse`.
 */
const CERT_FILE = path.join(ROOT, 'test', 'fixtures', 'tls', 'cert.pem');
const t = tempHome();
let server: https.Server;
let hits = 0;

beforeAll(async () => {
  server = https.createServer({ cert: fs.readFileSync(CERT_FILE), key: fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'tls', 'key.pem')) }, (req, res) => {
    req.resume();
    req.on('end', () => {
      hits++;
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});
afterEach(cleanupAll);
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  t.cleanup();
});

const caVars = (env: Record<string, string>) => ({ NODE_EXTRA_CA_CERTS: env.NODE_EXTRA_CA_CERTS, SYNAPSE_EXTRA_CA: env.SYNAPSE_EXTRA_CA });

/** `synapse start echo` through the shebang; the agent's webhook to the https receiver, after one task. */
async function startAndDeliver(env: NodeJS.ProcessEnv) {
  const started = await runFile(BIN, ['start', 'echo', '--port', String(await freePort()), '--json'], {
    env: { ...env, ECHO_THINK_MS: '0', SYNAPSE_WEBHOOK_MAX_RETRIES: '0' },
  });
  expect(started.code, started.stderr).toBe(0);
  const entry = JSON.parse(started.stdout) as { agent_id: string; pid: number; endpoint: string };
  try {
    const agentEnv = caVars(environ(entry.pid));
    const cliEnv = caVars(environ(childOf(entry.pid)));
    const hook = await postJson(`${entry.endpoint}/webhooks`, { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook` });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const sent = await postJson(`${entry.endpoint}/tasks/send`, textMessage('over tls'));
    expect(sent.status).toBe(202);
    const attempt = await waitFor(
      async () => ((await getJson(`${entry.endpoint}/webhooks/deliveries`)).body as Array<{ success: boolean; error: string | null }>)[0],
      15_000,
      'a webhook delivery attempt',
    );
    return { agentEnv, cliEnv, attempt };
  } finally {
    expect((await runCli(['kill', entry.agent_id], { env })).code).toBe(0);
  }
}

describe('NODE_EXTRA_CA_CERTS', () => {
  it("is not read by synapse start's agent at its start, reaches its CLI as set, and is trusted for its webhooks over TLS", async () => {
    const before = hits;
    const { agentEnv, cliEnv, attempt } = await startAndDeliver({ ...t.env, NODE_EXTRA_CA_CERTS: CERT_FILE });
    expect(agentEnv).toEqual({ NODE_EXTRA_CA_CERTS: undefined, SYNAPSE_EXTRA_CA: CERT_FILE });
    expect(cliEnv).toEqual({ NODE_EXTRA_CA_CERTS: CERT_FILE, SYNAPSE_EXTRA_CA: undefined });
    expect(attempt).toMatchObject({ success: true, error: null });
    expect(hits).toBeGreaterThan(before);
  });

  it('unset: nothing is held aside or set for the CLI, and the self-signed receiver is not trusted', async () => {
    const env = { ...t.env };
    delete env.NODE_EXTRA_CA_CERTS;
    const { agentEnv, cliEnv, attempt } = await startAndDeliver(env);
    expect(agentEnv).toEqual({ NODE_EXTRA_CA_CERTS: undefined, SYNAPSE_EXTRA_CA: undefined });
    expect(cliEnv).toEqual({ NODE_EXTRA_CA_CERTS: undefined, SYNAPSE_EXTRA_CA: undefined });
    expect(attempt.success).toBe(false);
    expect(attempt.error).toMatch(/self.signed|certificate/i);
  });

  it('is held aside by the shebang of a foreground agent, whose CLI gets it back', async () => {
    const port = await freePort();
    const child = spawn(BIN, ['echo', '--headless', '--port', String(port)], {
      env: { ...t.env, NODE_EXTRA_CA_CERTS: CERT_FILE },
      stdio: 'ignore',
      detached: true,
    });
    try {
      await waitFor(async () => (await getJson(`http://127.0.0.1:${port}/status`).catch(() => null))?.body.ready_for_messages, 15_000, 'the agent');
      // The shebang's env execs node in the same process: its environment is what node read.
      expect(caVars(environ(child.pid!))).toEqual({ NODE_EXTRA_CA_CERTS: '', SYNAPSE_EXTRA_CA: CERT_FILE });
      expect(caVars(environ(childOf(child.pid!)))).toEqual({ NODE_EXTRA_CA_CERTS: CERT_FILE, SYNAPSE_EXTRA_CA: undefined });
    } finally {
      await stopGroup(child);
    }
  });

  it("extends a context only without an explicit ca, and shares a client's context per set of options, never a server's", async () => {
    const script = `
      import tls from 'node:tls';
      import { restoreExtraCaCerts, trustExtraCaCerts } from ${JSON.stringify(path.join(ROOT, 'dist', 'extra-ca-certs.js'))};
      restoreExtraCaCerts();
      const before = tls.createSecureContext;
      trustExtraCaCerts();
      trustExtraCaCerts();
      const key = ${JSON.stringify(fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'tls', 'key.pem'), 'utf8'))};
      const cert = ${JSON.stringify(fs.readFileSync(CERT_FILE, 'utf8'))};
      const plain = tls.createSecureContext();
      const socket = tls.connect({ host: '127.0.0.1', port: ${(server.address() as AddressInfo).port}, servername: 'localhost' });
      socket.on('secureConnect', () => socket.end());
      socket.on('error', (e) => console.log(JSON.stringify({ error: e.code })));
      await new Promise((r) => socket.on('close', r));
      console.log(JSON.stringify({
        env: [process.env.NODE_EXTRA_CA_CERTS, process.env.SYNAPSE_EXTRA_CA],
        patchedOnce: tls.createSecureContext !== before,
        connected: socket.authorized,
        shared: plain === tls.createSecureContext({}),
        perOptions: plain !== tls.createSecureContext({ minVersion: 'TLSv1.3' }) && tls.createSecureContext({ minVersion: 'TLSv1.3' }) === tls.createSecureContext({ minVersion: 'TLSv1.3' }),
        explicitCa: tls.createSecureContext({ ca: cert }) !== tls.createSecureContext({ ca: cert }),
        server: tls.createSecureContext({ key, cert }) !== tls.createSecureContext({ key, cert }),
      }));`;
    const run = await runNode(['--input-type=module', '-e', script], { env: { ...t.env, NODE_EXTRA_CA_CERTS: '', SYNAPSE_EXTRA_CA: CERT_FILE } });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout.trim().split('\n').pop()!)).toEqual({
      env: [CERT_FILE, null],
      patchedOnce: true,
      connected: true,
      shared: true,
      perOptions: true,
      explicitCa: true,
      server: true,
    });
  });

  it("an unreadable file: node's own warning when it would have been read, and the default roots", async () => {
    const script = `
      import tls from 'node:tls';
      import { restoreExtraCaCerts, trustExtraCaCerts } from ${JSON.stringify(path.join(ROOT, 'dist', 'extra-ca-certs.js'))};
      restoreExtraCaCerts();
      const before = tls.createSecureContext;
      trustExtraCaCerts();
      console.log(JSON.stringify({ env: process.env.NODE_EXTRA_CA_CERTS, patched: tls.createSecureContext !== before }));`;
    const missing = path.join(t.home, 'no-such-ca.pem');
    const run = await runNode(['--input-type=module', '-e', script], { env: { ...t.env, NODE_EXTRA_CA_CERTS: '', SYNAPSE_EXTRA_CA: missing } });
    expect(run.stderr).toContain(`Warning: Ignoring extra certs from \`${missing}\`, load failed: ENOENT`);
    expect(JSON.parse(run.stdout)).toEqual({ env: missing, patched: false });
  });
});
