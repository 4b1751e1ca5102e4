import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, postgresUnavailable } from '../../support/pg-db.js';
import { simulatedHost, type SimulatedHost as Host } from '../../support/simulated-host.js';
import { cleanupAll, runCli, startHeadless, tempHome, waitFor, type AgentHandle } from '../../support/synapse.js';

/**
 * Two hosts through one PostgreSQL store (issue 22 §2-§3), simulated on loopback: two HOME and
 * registry roots with distinct host names (SYNAPSE_HOST_NAME), each with its own clone of one
 * repository (same remote, same branch), auth on with loopback callers needing the key too.
 * Each side lists the other's agents with their host; a `send --wait` goes from host A to an echo
 * agent on host B and back; an agent killed with SIGKILL (no clean delete) drops out of the
 * other side's list once its heartbeat expires (SYNAPSE_HEARTBEAT_MS short for the test).
 */

const unavailable = postgresUnavailable();
const KEY = 'two-hosts-test-key';
const REMOTE = 'https://git.example.com/team/app.git';

const host = (name: string, storeUrl: string): Host => simulatedHost(name, storeUrl, { key: KEY, gitRemote: REMOTE });

type Listed = { agent_id: string; name: string | null; host: string; remote: boolean; reachable?: boolean };

async function list(h: Host): Promise<Listed[]> {
  const r = await runCli(['list', '--json'], { env: h.env, cwd: h.project });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Listed[];
}

const byName = (rows: Listed[], name: string) => rows.find((r) => r.name === name);

describe.skipIf(unavailable !== '')(`two hosts, one PostgreSQL store${unavailable ? ` (SKIPPED: ${unavailable})` : ''}`, () => {
  let db: { url: string; drop: () => Promise<void> };
  let a: Host;
  let b: Host;
  let alice: AgentHandle;
  let bob: AgentHandle;
  let carol: AgentHandle;

  beforeAll(async () => {
    db = await freshDatabase('synapse_hosts');
    a = host('host-a', db.url);
    b = host('host-b', db.url);
    const statusHeaders = () => ({ 'x-api-key': KEY });
    [alice, bob, carol] = await Promise.all([
      startHeadless('echo', { env: a.env, cwd: a.project, args: ['--name', 'alice'], statusHeaders }),
      startHeadless('echo', { env: b.env, cwd: b.project, args: ['--name', 'bob'], statusHeaders }),
      startHeadless('echo', { env: b.env, cwd: b.project, args: ['--name', 'carol'], statusHeaders }),
    ]);
  }, 60_000);

  afterAll(async () => {
    await cleanupAll();
    await db?.drop();
    a?.cleanup();
    b?.cleanup();
  });

  it("each host's list shows the other host's agents, with their host, once", async () => {
    const fromA = await waitFor(
      async () => {
        const rows = await list(a);
        return byName(rows, 'bob') && byName(rows, 'carol') ? rows : null;
      },
      15_000,
      'host A to see host B',
    );
    expect(byName(fromA, 'alice')).toMatchObject({ agent_id: alice.agentId, host: 'host-a', remote: false });
    expect(byName(fromA, 'bob')).toMatchObject({ agent_id: bob.agentId, host: 'host-b', remote: true });
    expect(byName(fromA, 'carol')).toMatchObject({ agent_id: carol.agentId, host: 'host-b', remote: true });
    expect(fromA).toHaveLength(3);

    const fromB = await waitFor(
      async () => {
        const rows = await list(b);
        return byName(rows, 'alice') ? rows : null;
      },
      15_000,
      'host B to see host A',
    );
    expect(byName(fromB, 'alice')).toMatchObject({ agent_id: alice.agentId, host: 'host-a', remote: true });
    expect(byName(fromB, 'bob')).toMatchObject({ host: 'host-b', remote: false });
    expect(fromB).toHaveLength(3);

    const table = await runCli(['list', '--plain'], { env: a.env, cwd: a.project });
    expect(table.stdout).toMatch(/^ID\s+HOST\s+NAME/m);
    expect(table.stdout).toMatch(new RegExp(`${bob.agentId}\\s+host-b\\s+bob`));
  });

  it('send --wait goes from host A to an echo agent on host B and brings its answer back, with the API key', async () => {
    const r = await runCli(['send', 'bob', 'ping across hosts', '--wait', '--json', '--timeout', '30'], { env: a.env, cwd: a.project, timeoutMs: 45_000 });
    expect(r.code, r.stderr).toBe(0);
    const receipt = JSON.parse(r.stdout) as { target: string; status: string; answer: string };
    expect(receipt).toMatchObject({ target: bob.agentId, status: 'completed' });
    expect(receipt.answer).toContain('ping across hosts');

    // Without the key the same agent refuses: the send above got through because it carried it.
    const keyless = { ...a.env, SYNAPSE_API_KEYS: '' };
    const refused = await runCli(['send', 'bob', 'no key', '--silent'], { env: keyless, cwd: a.project, timeoutMs: 30_000 });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/401|API key|unauthori/i);
  });

  it("an answer to an agent on host A (--notify) reaches that agent's terminal from host B", async () => {
    const r = await runCli(['send', 'bob', 'notify alice please', '--notify', '--from', 'alice', '--json'], { env: a.env, cwd: a.project, timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    const taskId = (JSON.parse(r.stdout) as { task_id: string }).task_id;
    // Bob's agent posts the answer to alice's endpoint only because the registry table vouches for it.
    const screen = async () => {
      const res = await fetch(`${alice.endpoint}/screen`, { headers: { 'x-api-key': KEY } });
      return ((await res.json()) as { lines: string[] }).lines.join('\n');
    };
    await waitFor(async () => (await screen()).includes(`[ANSWER to ${taskId.slice(0, 8)}]`), 20_000, "bob's answer in alice's terminal");
  });

  it("leaves out a sending agent's loopback endpoint nobody advertised, and says an answer cannot come back to it", async () => {
    const unadvertised = { ...a.env };
    delete unadvertised.SYNAPSE_ADVERTISE_HOST;
    const r = await runCli(['send', 'bob', 'no way back', '--notify', '--from', 'alice', '--json'], { env: unadvertised, cwd: a.project, timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`bob (${bob.agentId}) on host host-b cannot post an answer back to ${alice.endpoint} (loopback, not advertised)`);
    const taskId = (JSON.parse(r.stdout) as { task_id: string }).task_id;
    const task = await waitFor(
      async () => {
        const res = await fetch(`${bob.endpoint}/tasks/${taskId}`, { headers: { 'x-api-key': KEY } });
        const body = (await res.json()) as { status: string; metadata: { sender?: Record<string, unknown> } };
        return body.status === 'completed' ? body : null;
      },
      20_000,
      'bob to answer',
    );
    expect(task.metadata.sender).toMatchObject({ sender_id: alice.agentId });
    expect(task.metadata.sender).not.toHaveProperty('sender_endpoint');
  });

  it('an id two hosts share is <agent_id>@<host> on the other side, and that name reaches the right agent', async () => {
    // The same port on two addresses of one machine: 127.0.0.2 stands in for host D's own address.
    const d = host('host-d', db.url);
    d.env.SYNAPSE_ADVERTISE_HOST = '127.0.0.2';
    let twin: AgentHandle | undefined;
    try {
      const port = alice.port;
      // startHeadless polls 127.0.0.1:<port>, which is alice: the list below waits for twin itself.
      twin = await startHeadless('echo', {
        env: d.env,
        cwd: d.project,
        args: ['--name', 'twin', '--host', '127.0.0.2'],
        port,
        waitReady: false,
        statusHeaders: () => ({ 'x-api-key': KEY }),
      });
      const rows = await waitFor(
        async () => {
          const now = await list(a);
          return now.find((r) => r.name === 'twin') ? now : null;
        },
        15_000,
        'host A to see twin',
      );
      expect(byName(rows, 'alice')).toMatchObject({ agent_id: alice.agentId, host: 'host-a' });
      expect(byName(rows, 'twin')).toMatchObject({ agent_id: `${alice.agentId}@host-d`, host: 'host-d' });
      const r = await runCli(['send', `${alice.agentId}@host-d`, 'which one are you', '--wait', '--json', '--timeout', '30'], {
        env: a.env,
        cwd: a.project,
        timeoutMs: 45_000,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ target: `${alice.agentId}@host-d`, status: 'completed' });
    } finally {
      await twin?.stop();
      d.cleanup();
    }
  });

  it('refuses a remote agent that registered a loopback address nobody advertised (it would be an agent of this host)', async () => {
    const c = host('host-c', db.url);
    let daveAgent: AgentHandle | undefined;
    try {
      delete c.env.SYNAPSE_ADVERTISE_HOST;
      daveAgent = await startHeadless('echo', { env: c.env, cwd: c.project, args: ['--name', 'dave'], statusHeaders: () => ({ 'x-api-key': KEY }) });
      const dave = await waitFor(async () => (await list(a)).find((r) => r.name === 'dave'), 15_000, 'host A to see dave');
      expect(dave).toMatchObject({ host: 'host-c', reachable: false });
      const r = await runCli(['send', 'dave', 'hello', '--silent'], { env: a.env, cwd: a.project, timeoutMs: 30_000 });
      expect(r.code).toBe(5);
      expect(r.stderr).toMatch(/dave .* runs on host host-c and listens on loopback only/);
    } finally {
      await daveAgent?.stop();
      c.cleanup();
    }
  });

  it('refuses a remote agent of another project unless --force (compared by git remote and branch, not paths)', async () => {
    const elsewhere = path.join(path.dirname(a.project), 'other');
    fs.mkdirSync(elsewhere);
    const r = await runCli(['send', 'bob', 'wrong project', '--silent'], { env: a.env, cwd: elsewhere, timeoutMs: 30_000 });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/bob .* runs on host host-b .*no git remote to compare/);
    const forced = await runCli(['send', 'bob', 'forced', '--silent', '--force'], { env: a.env, cwd: elsewhere, timeoutMs: 30_000 });
    expect(forced.code, forced.stderr).toBe(0);
  });

  it("an agent killed without a clean stop leaves the other host's list once its heartbeat expires", async () => {
    expect(byName(await list(a), 'carol')).toBeDefined();
    process.kill(-carol.child.pid!, 'SIGKILL');
    const rows = await waitFor(
      async () => {
        const now = await list(a);
        return byName(now, 'carol') ? null : now;
      },
      20_000,
      'carol to expire from host A',
    );
    expect(byName(rows, 'bob')).toMatchObject({ host: 'host-b' });
  });

  it("a clean stop deletes the agent's row at once (nobody has to list for it to go)", async () => {
    const rows = async () => {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        return (await client.query<{ host: string; agent_id: string }>('SELECT host, agent_id FROM synapse_agents ORDER BY host, agent_id')).rows;
      } finally {
        await client.end();
      }
    };
    expect(await rows()).toContainEqual({ host: 'host-b', agent_id: bob.agentId });
    await bob.stop();
    expect(await rows()).not.toContainEqual({ host: 'host-b', agent_id: bob.agentId });
    expect(await rows()).toContainEqual({ host: 'host-a', agent_id: alice.agentId });
  });
});

describe('a PostgreSQL store that cannot be reached', () => {
  it('an agent still starts, serves and stops cleanly; its log says other hosts may not see it', async () => {
    const t = tempHome();
    try {
      const env = { ...t.env, SYNAPSE_STORE_URL: 'postgres://synapse:secret-pw@127.0.0.1:1/team', SYNAPSE_HEARTBEAT_MS: '200' };
      const agent = await startHeadless('echo', { env, cwd: t.home, args: ['--name', 'lonely'] });
      await waitFor(() => agent.output().includes("registry table: cannot write this agent's row"), 15_000, 'the log line');
      expect(agent.output()).not.toContain('secret-pw');
      const listed = await runCli(['list', '--json'], { env, cwd: t.home, timeoutMs: 30_000 });
      expect(JSON.parse(listed.stdout)).toMatchObject([{ name: 'lonely', remote: false }]);
      const closed = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => agent.child.once('close', (code, signal) => resolve([code, signal])));
      process.kill(-agent.child.pid!, 'SIGTERM');
      expect(await closed).toEqual([0, null]);
    } finally {
      await cleanupAll();
      t.cleanup();
    }
  });

  it("synapse list still shows this host's agents and says on stderr that other hosts are missing", async () => {
    const t = tempHome();
    try {
      const env = { ...t.env, SYNAPSE_STORE_URL: 'postgres://synapse:secret-pw@127.0.0.1:1/team' };
      const r = await runCli(['list', '--json'], { env, cwd: t.home, timeoutMs: 30_000 });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([]);
      expect(r.stderr).toMatch(
        /warning: agents on other hosts are not shown: cannot reach the PostgreSQL store at postgres:\/\/synapse:\*\*\*@127\.0\.0\.1:1\/team/,
      );
      expect(r.stderr).not.toContain('secret-pw');
    } finally {
      t.cleanup();
    }
  });
});
