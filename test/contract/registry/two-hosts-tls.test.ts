import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, postgresUnavailable } from '../../support/pg-db.js';
import { simulatedHost, type SimulatedHost } from '../../support/simulated-host.js';
import { BIN, ROOT, freePort, runCli, stopGroup, waitFor } from '../../support/synapse.js';

/**
 * Host to host over TLS (issue 22 §3, guides/security-tls.md): two hosts simulated on loopback
 * through one PostgreSQL store, as in two-hosts.test.ts, with auth on. Host B's agent serves HTTPS
 * only (SYNAPSE_USE_HTTPS) with a self-signed certificate; host A trusts it as documented, with
 * SYNAPSE_TLS_CA naming that certificate, and `synapse send --wait` reaches it and brings its
 * answer back over TLS. Without the CA the same send fails and says to set SYNAPSE_TLS_CA.
 */

const unavailable = postgresUnavailable();
const KEY = 'two-hosts-tls-test-key';
const REMOTE = 'https://git.example.com/team/app.git';
const CERT = path.join(ROOT, 'test', 'fixtures', 'tls', 'cert.pem');
const CERT_KEY = path.join(ROOT, 'test', 'fixtures', 'tls', 'key.pem');

const host = (name: string, storeUrl: string): SimulatedHost => simulatedHost(name, storeUrl, { key: KEY, gitRemote: REMOTE });

type Listed = { agent_id: string; name: string | null; host: string; status: string; endpoint: string; reachable?: boolean };

describe.skipIf(unavailable !== '')(`two hosts over TLS${unavailable ? ` (SKIPPED: ${unavailable})` : ''}`, () => {
  let db: { url: string; drop: () => Promise<void> };
  let a: ReturnType<typeof host>;
  let b: ReturnType<typeof host>;
  let stopAgent: (() => Promise<void>) | undefined;
  let output = () => '';
  let agentId = '';

  beforeAll(async () => {
    db = await freshDatabase('synapse_tls');
    a = host('host-a', db.url);
    b = host('host-b', db.url);
    const port = await freePort();
    agentId = `synapse-echo-${port}`;
    const child = spawn(process.execPath, [BIN, 'echo', '--headless', '--port', String(port), '--name', 'secure'], {
      env: { ...b.env, SYNAPSE_USE_HTTPS: '1', SYNAPSE_TLS_CERT: CERT, SYNAPSE_TLS_KEY: CERT_KEY },
      cwd: b.project,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    output = () => out;
    stopAgent = () => stopGroup(child);
  }, 30_000);

  afterAll(async () => {
    await stopAgent?.();
    await db?.drop();
    a?.cleanup();
    b?.cleanup();
  });

  it("host A sees host B's agent with its https endpoint, and send --wait reaches it over TLS with the CA it was given", async () => {
    const row = await waitFor(
      async () => {
        const r = await runCli(['list', '--json'], { env: a.env, cwd: a.project });
        expect(r.code, r.stderr).toBe(0);
        const found = (JSON.parse(r.stdout) as Listed[]).find((x) => x.name === 'secure');
        return found && found.status === 'READY' ? found : null;
      },
      20_000,
      `host A to see host B's TLS agent READY (its output: ${output()})`,
    );
    expect(row).toMatchObject({ agent_id: agentId, host: 'host-b', reachable: true });
    expect(row.endpoint).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);

    const trusted = { ...a.env, SYNAPSE_TLS_CA: CERT };
    const r = await runCli(['send', 'secure', 'ping over tls', '--wait', '--json', '--timeout', '30'], { env: trusted, cwd: a.project, timeoutMs: 45_000 });
    expect(r.code, `${r.stderr}\n--- agent:\n${output()}`).toBe(0);
    const receipt = JSON.parse(r.stdout) as { target: string; status: string; answer: string };
    expect(receipt).toMatchObject({ target: agentId, status: 'completed' });
    expect(receipt.answer).toContain('ping over tls');
  }, 60_000);

  it('without the CA the send fails and says to set SYNAPSE_TLS_CA', async () => {
    const r = await runCli(['send', 'secure', 'untrusted', '--silent'], { env: a.env, cwd: a.project, timeoutMs: 30_000 });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/self-signed certificate/);
    expect(r.stderr).toContain('SYNAPSE_TLS_CA');
  }, 40_000);
});
