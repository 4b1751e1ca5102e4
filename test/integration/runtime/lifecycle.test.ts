import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  cleanupAll,
  freePort,
  freeRange,
  getJson,
  postJson,
  runCli,
  startHeadless,
  tempHome,
  textMessage,
  waitFor,
  waitForTask,
} from '../../support/synapse.js';

const REQUIRED_FIELDS = [
  'agent_id',
  'agent_type',
  'name',
  'role',
  'port',
  'pid',
  'working_dir',
  'endpoint',
  'status',
  'status_updated_at',
  'current_task_preview',
  'task_received_at',
  'registered_at',
  'heartbeat_at',
];

/**
 * Announces a body of `bytes` and returns the status line's code without sending the body: the
 * server must refuse on Content-Length alone (sending 9 MB just to be cut off races with RST).
 */
function statusForDeclaredLength(port: number, pathname: string, bytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1', () => {
      sock.write(`POST ${pathname} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${bytes}\r\n\r\n`);
    });
    let data = '';
    sock.on('data', (d) => {
      data += d.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(data);
      if (m) {
        sock.destroy();
        resolve(Number(m[1]));
      }
    });
    sock.on('error', reject);
  });
}

function readEntry(env: NodeJS.ProcessEnv, agentId: string): any {
  try {
    return JSON.parse(fs.readFileSync(path.join(env.SYNAPSE_REGISTRY_DIR!, `${agentId}.json`), 'utf8'));
  } catch {
    return null;
  }
}

/**
 * The agent process itself (registry entry, signals, ports, start-up, card, HTTP edge) and the
 * commands only a real process can prove: `start`'s detached agent and its log, concurrent
 * starts, exit codes through main. What list / status / logs / stop / kill / profiles print is
 * tested in-process in test/integration/cli/agents.test.ts.
 */
describe('agent lifecycle and registry', () => {
  const t = tempHome();
  afterEach(cleanupAll);
  afterAll(() => t.cleanup());

  it('writes a registry entry with every field and removes it on SIGTERM', async () => {
    const a = await startHeadless('echo', { env: t.env, args: ['--name', 'alice', '--role', 'echoes things'] });
    const entry = readEntry(t.env, a.agentId);
    for (const f of REQUIRED_FIELDS) expect(entry, f).toHaveProperty(f);
    expect(entry).toMatchObject({
      agent_id: a.agentId,
      agent_type: 'echo',
      name: 'alice',
      role: 'echoes things',
      port: a.port,
      endpoint: a.endpoint,
      working_dir: process.cwd(),
    });
    await waitFor(() => readEntry(t.env, a.agentId)?.status === 'READY', 5000, 'READY in the registry');
    await a.stop();
    expect(readEntry(t.env, a.agentId)).toBeNull();
  });

  it('prunes the entry of an agent killed with SIGKILL on the next list', async () => {
    const a = await startHeadless('echo', { env: t.env });
    expect(readEntry(t.env, a.agentId)).not.toBeNull();
    process.kill(-a.child.pid!, 'SIGKILL');
    await new Promise((r) => a.child.once('close', r));
    expect(readEntry(t.env, a.agentId)).not.toBeNull();
    const list = await runCli(['list', '--json'], { env: t.env });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([]);
    expect(readEntry(t.env, a.agentId)).toBeNull();
  });

  it('gives 5 agents started at the same instant 5 distinct ports of the range', async () => {
    const range = await freeRange(10);
    const env = { ...t.env, SYNAPSE_PORT_RANGE_ECHO: `${range.first}-${range.last}` };
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => runCli(['start', 'echo', '--name', `p${i}`, '--json'], { env })));
    try {
      for (const r of results) expect(r.code, r.stderr).toBe(0);
      const ports = results.map((r) => JSON.parse(r.stdout).port as number);
      expect(new Set(ports).size).toBe(5);
      for (const p of ports) expect(p >= range.first && p <= range.last).toBe(true);
      const list = JSON.parse((await runCli(['list', '--json'], { env })).stdout);
      expect(list).toHaveLength(5);
    } finally {
      await Promise.all(results.filter((r) => r.code === 0).map((r) => runCli(['kill', JSON.parse(r.stdout).agent_id, '-f'], { env })));
    }
  });

  it('names the range and the agents holding it when the range is full', async () => {
    const port = await freePort();
    const env = { ...t.env, SYNAPSE_PORT_RANGE_ECHO: `${port}-${port}` };
    const a = await startHeadless('echo', { env, port, args: ['--name', 'holder'] });
    const r = await runCli(['echo', '--headless'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${port}-${port}`);
    expect(r.stderr).toContain(`${a.agentId} (holder)`);
  });

  it('a message that arrives while the agent starts is queued (202, receipt queued) and typed in after the start-up instruction', async () => {
    // A one-line instruction, so the whole order fits on the echo agent's screen.
    const project = fs.mkdtempSync(path.join(t.home, 'project-'));
    fs.mkdirSync(path.join(project, '.synapse'));
    fs.writeFileSync(path.join(project, '.synapse', 'default.md'), 'You are {{agent_id}}: the start-up instruction.\n');
    const a = await startHeadless('echo', { env: { ...t.env, ECHO_STARTUP_MS: '3000' }, cwd: project, waitReady: false });
    const early = await postJson(`${a.endpoint}/tasks/send`, textMessage('sent while starting'));
    const urgent = await postJson(`${a.endpoint}/tasks/send-priority?priority=5`, textMessage('urgent while starting'));
    // Both really came during start-up: the agent was not taking messages yet after they were answered.
    const { body: status } = await getJson(`${a.endpoint}/status`);
    expect(status).toMatchObject({ ready_for_messages: false, queued: 2 });
    for (const res of [early, urgent]) {
      expect(res.status).toBe(202);
      expect(res.headers.get('retry-after')).toBeNull();
      expect(res.body.task.receipt.state).toBe('queued');
    }
    expect((await waitForTask(a.endpoint, early.body.task.id, 15_000)).status).toBe('completed');
    expect((await waitForTask(a.endpoint, urgent.body.task.id)).status).toBe('completed');
    // On the CLI's screen: the instruction first, then the urgent message, then the other one.
    const screen: string[] = (await getJson(`${a.endpoint}/screen`)).body.lines;
    const at = (text: string) => screen.findIndex((l) => l === `ECHO: A2A: ${text}`);
    const order = [`You are ${a.agentId}: the start-up instruction.`, 'urgent while starting', 'sent while starting'].map(at);
    expect(
      order.every((i) => i >= 0),
      screen.join('\n'),
    ).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
  });

  it('sends the start-up instruction with the agent id and card URL, and skips it when resuming', async () => {
    const a = await startHeadless('echo', { env: t.env });
    const tasks = (await getJson(`${a.endpoint}/tasks`)).body;
    const boot = tasks.find((x: any) => x.metadata.kind === 'bootstrap');
    expect(boot.status).toBe('completed');
    const text = boot.message.parts[0].text;
    expect(text).toContain(a.agentId);
    expect(text).toContain(`curl -s http://127.0.0.1:${a.port}/.well-known/agent.json`);
    const b = await startHeadless('echo', { env: t.env, args: ['--', '--resume'] });
    const btasks = (await getJson(`${b.endpoint}/tasks`)).body;
    expect(btasks.filter((x: any) => x.metadata.kind === 'bootstrap')).toHaveLength(0);
  });

  it('serves the agent card with the synapse extensions and the other agents', async () => {
    const a = await startHeadless('echo', { env: t.env, args: ['--name', 'carda'] });
    const b = await startHeadless('echo', { env: t.env, args: ['--name', 'cardb'] });
    const card = (await getJson(`${a.endpoint}/.well-known/agent.json`)).body;
    expect(card.name).toBe('carda');
    expect(card.url).toBe(a.endpoint);
    expect(card.extensions.synapse).toMatchObject({ agent_id: a.agentId, pty_wrapped: true, priority_interrupt: true, at_agent_syntax: true });
    expect(card.extensions.synapse.addressable_as).toEqual([`@${a.agentId}`, '@echo', '@carda']);
    const ctx = card.extensions['x-synapse-context'];
    expect(ctx.identity).toContain(a.agentId);
    expect(ctx.routing_rules.length).toBeGreaterThan(0);
    expect(ctx.available_agents.map((x: any) => x.agent_id)).toEqual([b.agentId]);
  });

  it('rejects bad input with clear 4xx errors', async () => {
    const a = await startHeadless('echo', { env: { ...t.env } });
    const badJson = await fetch(`${a.endpoint}/tasks/send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message":' });
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as any).error).toEqual({
      code: 'invalid_input',
      message: "Body is not valid JSON but content-type is set to 'application/json'",
    });
    // A union of literals names its values once (not "must be equal to constant" per value).
    const badSchema = await postJson(`${a.endpoint}/tasks/send`, { message: { role: 'robot', parts: [] } });
    expect(badSchema.status).toBe(400);
    expect(badSchema.body.error).toEqual({ code: 'invalid_input', message: 'body/message/role must be one of user, agent' });
    const badState = await getJson(`${a.endpoint}/tasks?state=done`);
    expect(badState.status).toBe(400);
    expect(badState.body.error).toEqual({
      code: 'invalid_input',
      message: 'querystring/state must be one of submitted, working, input_required, input-required, completed, failed, canceled',
    });
    const badPriority = await postJson(`${a.endpoint}/tasks/send-priority?priority=9`, textMessage('x'));
    expect(badPriority.status).toBe(400);
    expect(badPriority.body.error).toEqual({ code: 'invalid_input', message: 'querystring/priority must be <= 5' });
    const missing = await getJson(`${a.endpoint}/tasks/00000000-0000-0000-0000-000000000000`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('task_not_found');
    expect(await statusForDeclaredLength(a.port, '/tasks/send', 9 * 1024 * 1024)).toBe(413);
    const foreignHost = await new Promise<number>((resolve, reject) => {
      http
        .get(`${a.endpoint}/status`, { headers: { host: 'evil.example:80' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
        .on('error', reject);
    });
    expect(foreignHost).toBe(403);
  });

  it('exits 2 listing the profiles for an unknown profile, and names a CLI that is not on PATH', async () => {
    const unknown = await runCli(['nosuchcli'], { env: t.env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown profile "nosuchcli".*claude.*echo/s);
    const missing = await runCli(['claude', '--headless'], { env: { ...t.env, PATH: '/nonexistent' } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('"claude" is not on PATH');
  });

  it('stopping hangs up the whole CLI process group, so a CLI that relaunched itself in a child exits too', async () => {
    // Like Gemini CLI: the launcher ignores SIGHUP and waits for the child it relaunched itself as.
    const bin = fs.mkdtempSync(path.join(t.home, 'bin-'));
    fs.writeFileSync(
      path.join(bin, 'claude'),
      [
        '#!/usr/bin/env node',
        "const { spawn } = require('node:child_process');",
        'if (!process.env.RELAUNCHED) {',
        "  process.on('SIGHUP', () => {});",
        "  const child = spawn(process.execPath, [__filename], { stdio: 'inherit', env: { ...process.env, RELAUNCHED: '1' } });",
        "  child.on('exit', () => process.exit(0));",
        '} else {',
        "  process.stdout.write('relaunched child running\\r\\n');",
        "  require('node:fs').writeFileSync(process.env.RELAUNCH_MARK, '');",
        '  setInterval(() => {}, 1000);',
        '}',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const mark = path.join(bin, 'relaunched');
    const a = await startHeadless('claude', { env: { ...t.env, PATH: `${bin}:${process.env.PATH}`, RELAUNCH_MARK: mark }, waitReady: false });
    // The child runs only once the launcher ignores SIGHUP: stopping any sooner would kill the
    // launcher by the hang-up itself (the agent registers before a CLI's node has even started).
    await waitFor(() => fs.existsSync(mark), 10_000, 'the fake CLI to relaunch itself');
    await a.stop();
    // Exit 0 from the launcher (its child got the hang-up), not the SIGKILL fallback.
    expect(a.output()).toMatch(/cli exited \(code 0\)/);
    expect(a.output()).not.toMatch(/signal 9/);
  });

  it('kill waits 30 s for a graceful exit unless -t or SYNAPSE_KILL_TIMEOUT says otherwise, and refuses a bad value', async () => {
    const { killGraceSeconds } = await import('../../../src/cli/commands/lifecycle.js');
    expect(killGraceSeconds(undefined, {})).toBe(30);
    expect(killGraceSeconds(undefined, { SYNAPSE_KILL_TIMEOUT: '12' })).toBe(12);
    expect(killGraceSeconds('2.5', { SYNAPSE_KILL_TIMEOUT: '12' })).toBe(2.5);
    expect(killGraceSeconds('0', {})).toBe(0);
    const bad = await runCli(['kill', 'nobody', '-t', 'soon'], { env: t.env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--timeout must be a number of seconds (0 or more), got 'soon'");
    const badEnv = await runCli(['kill', 'nobody'], { env: { ...t.env, SYNAPSE_KILL_TIMEOUT: '-1' } });
    expect(badEnv.code).toBe(1);
    expect(badEnv.stderr).toContain('SYNAPSE_KILL_TIMEOUT');
    const help = await runCli(['kill', '--help'], { env: t.env });
    expect(help.stdout).toContain('$SYNAPSE_KILL_TIMEOUT, else 30');
  });

  it('start runs the agent in the background with a log; logs and kill work on it', async () => {
    const port = await freePort();
    const started = await runCli(['start', 'echo', '--name', 'bg', '--port', String(port), '--json'], { env: t.env });
    expect(started.code, started.stderr).toBe(0);
    const entry = JSON.parse(started.stdout);
    try {
      expect(entry.log_file).toMatch(/\.synapse\/logs\//);
      await waitFor(async () => (await getJson(`${entry.endpoint}/status`)).body.ready_for_messages, 10_000, 'ready');
      const logs = await runCli(['logs', 'bg'], { env: t.env });
      expect(logs.stdout).toContain(`${entry.agent_id} listening on ${entry.endpoint}`);
    } finally {
      const killed = await runCli(['kill', 'bg'], { env: t.env });
      expect(killed.code).toBe(0);
    }
    await waitFor(
      () => {
        try {
          process.kill(entry.pid, 0);
          return false;
        } catch {
          return true;
        }
      },
      5000,
      'background agent to exit',
    );
    expect(readEntry(t.env, entry.agent_id)).toBeNull();
  });
});
