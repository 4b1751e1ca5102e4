import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startOriginalSynapse, type OriginalSynapse } from '../../support/original-synapse.mjs';
import { freePort, getJson, ROOT, runCli, startHeadless, tempHome, waitFor } from '../../support/synapse.js';

/**
 * One registry for both implementations: an agent of the original Python Synapse (a stand-in
 * process that registers and answers HTTP exactly as the original 0.35 does, see
 * test/support/original-synapse.mjs) is listed, resolved and reached by our CLI.
 */
describe('an agent of the original Synapse in the same registry', () => {
  const t = tempHome();
  let py: OriginalSynapse;

  beforeEach(async () => {
    py = await startOriginalSynapse({ env: t.env, agentType: 'claude', port: await freePort(), name: 'py-claude', workingDir: ROOT });
  });
  afterEach(async () => py.stop());
  afterAll(() => t.cleanup());

  /** The task the stand-in holds for the text we sent, completed so that the next send is not refused (409). */
  async function sentTask(text: string): Promise<{ id: string; body: any }> {
    const req = await py.waitForRequest((r) => r.method === 'POST' && r.body?.message?.parts?.[0]?.text === text);
    const tasks = (await getJson(`${py.endpoint}/tasks`)).body as Array<{ id: string; status: string; message: { parts: Array<{ text: string }> } }>;
    const task = tasks.find((k) => k.message.parts[0]!.text === text)!;
    return { id: task.id, body: req.body };
  }

  it('is listed by `synapse list` and `synapse list --json`, with what its entry says', async () => {
    const json = await runCli(['list', '--json'], { env: t.env });
    expect(json.code, json.stderr).toBe(0);
    expect(json.stderr).toBe(''); // not skipped as "not an entry"
    const [agent] = JSON.parse(json.stdout);
    expect(agent).toMatchObject({
      agent_id: py.agentId,
      agent_type: 'claude',
      name: 'py-claude',
      port: py.port,
      pid: py.pid,
      working_dir: ROOT,
      endpoint: `http://localhost:${py.port}`,
      status: 'READY',
      heartbeat_at: null,
      uds_path: `/tmp/synapse-a2a/${py.agentId}.sock`,
    });
    expect(Date.parse(agent.registered_at)).not.toBeNaN();

    const table = await runCli(['list'], { env: t.env });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`${py.agentId}\\s+py-claude\\s+claude\\s+-\\s+READY`));
  });

  it('gets what `synapse send` sends, addressed by name, id, type-port or type', async () => {
    const targets = ['py-claude', py.agentId, `claude-${py.port}`, 'claude'];
    for (const target of targets) {
      const text = `hello original, as ${target}`;
      const sent = await runCli(['send', target, text, '--silent', '--json'], { env: t.env });
      expect(sent.code, `${target}: ${sent.stderr}`).toBe(0);
      const out = JSON.parse(sent.stdout);
      const task = await sentTask(text);
      expect(out).toMatchObject({ task_id: task.id, target: py.agentId, response_mode: 'silent' });
      expect(task.body).toMatchObject({ message: { role: 'user', parts: [{ type: 'text', text }] }, metadata: { response_mode: 'silent' } });
      expect(await py.complete(task.id, 'ok')).toBe(true);
    }
    const posts = py.requests.filter((r) => r.method === 'POST');
    expect(posts.map((r) => `${r.path}?priority=${r.query.priority}`)).toEqual(targets.map(() => '/tasks/send-priority?priority=3'));
    expect(posts.every((r) => String(r.headers['content-type']).startsWith('application/json'))).toBe(true);
  });

  // Needs our CLI to read the original's Task (status a string) and its SSE `done` event: it
  // fails until the Synapse-wire-format change (issue 12 §2) is in. The original completes a task
  // with the reply as `data` itself, or as {content} (its `synapse reply`, and its parsed
  // output: what the real original answered our send with); both must read as the answer.
  it.each([
    ['text', 'forty-two'],
    ['content', 'forty-three'],
  ] as const)('answers `synapse send --wait` when the original completes the task (artifact data as %s)', async (form, answer) => {
    const question = `what is the answer, as ${form}?`;
    const waiting = runCli(['send', 'py-claude', question, '--wait', '--timeout', '8'], { env: t.env });
    const task = await sentTask(question);
    expect(task.body.metadata.response_mode).toBe('wait');
    expect(await py.complete(task.id, answer, form)).toBe(true);
    const r = await waiting;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(answer);
  });

  /** The task the stand-in made for the text, once it took the message. */
  const taskFor = (text: string) =>
    waitFor(
      async () =>
        ((await getJson(`${py.endpoint}/tasks`)).body as Array<{ id: string; message: { parts: Array<{ text: string }> } }>).find(
          (k) => k.message.parts[0]!.text === text,
        ),
      10_000,
      `a task for "${text}"`,
    );
  const postsOf = (text: string) => py.requests.filter((r) => r.method === 'POST' && r.body?.message?.parts?.[0]?.text === text);

  it('gets `synapse send` once it is free, when it is busy with another task (409 with Retry-After: it takes one at a time)', async () => {
    const first = await runCli(['send', 'py-claude', 'first, keeps it busy', '--silent'], { env: t.env });
    expect(first.code, first.stderr).toBe(0);
    const busy = await taskFor('first, keeps it busy');
    const waiting = runCli(['send', 'py-claude', 'second, after the first', '--wait', '--timeout', '20'], { env: t.env });
    // Refused and asked again after its Retry-After: the message is not lost, nor the command failed.
    await waitFor(() => postsOf('second, after the first').length >= 2, 10_000, 'a second try after the 409');
    expect(await py.complete(busy.id, 'done with the first')).toBe(true);
    const second = await taskFor('second, after the first');
    expect(await py.complete(second.id, 'the second answer')).toBe(true);
    const r = await waiting;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('the second answer\n');
    expect(r.stderr).toContain(`py-claude (${py.agentId}) is busy with another task; waiting to deliver…`);
  });

  it('`synapse send` gives up at its --timeout when it stays busy (exit 4, with what it said)', async () => {
    await runCli(['send', 'py-claude', 'never finishes', '--silent'], { env: t.env });
    const busy = await taskFor('never finishes');
    const r = await runCli(['send', 'py-claude', 'too late', '--silent', '--timeout', '1'], { env: t.env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(
      `py-claude (${py.agentId}) was still busy with another task (Agent already has a working task (${busy.id.slice(0, 8)}). Retry after it completes.); try again later, or interrupt it with --priority 5`,
    );
    expect(postsOf('too late').length).toBeGreaterThanOrEqual(1);
  });

  it('`synapse status` shows what its entry and its GET /status say', async () => {
    const r = await runCli(['status', 'py-claude'], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`${py.agentId} (py-claude)  claude  READY`);
    expect(lines).toContain('  synapse      the original (Python): its entry and GET /status');
    expect(lines).toContain(`  pid          ${py.pid}`);
    expect(lines).toContain('  queued       -');
    expect(lines).toContain('  accepting    yes');
    expect(await py.setStatus('PROCESSING')).toBe(true);
    const json = await runCli(['status', py.agentId, '--json'], { env: t.env });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      agent_id: py.agentId,
      status: 'PROCESSING',
      original: true,
      live: { status: 'PROCESSING', lifecycle: 'RUNNING', ready: false, readiness_reason: 'agent_running' },
    });
    expect((await runCli(['status', 'py-claude'], { env: t.env })).stdout).toContain('  accepting    not now (agent_running)');
  });

  it('`synapse logs --screen` shows its recent output (its GET /status context); `synapse logs` says where its log is', async () => {
    await runCli(['send', 'py-claude', 'something to show', '--silent'], { env: t.env });
    await taskFor('something to show');
    const screen = await runCli(['logs', 'py-claude', '--screen'], { env: t.env });
    expect(screen.code, screen.stderr).toBe(0);
    expect(screen.stdout).toBe('A2A: something to show\n');
    const logs = await runCli(['logs', 'py-claude'], { env: t.env });
    expect(logs.code).not.toBe(0);
    expect(logs.stderr).toContain(
      `${py.agentId} has no log file: it is an agent of the original Python Synapse, whose \`synapse start\` logs to ~/.synapse/logs/<profile>.log`,
    );
  });

  it('`synapse stop` sends it SIGTERM, as its own `synapse stop` does (it has no POST /shutdown), and it unregisters', async () => {
    const r = await runCli(['stop', 'py-claude'], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      `stopped ${py.agentId} (py-claude) (an agent of the original Synapse, which has no POST /shutdown: SIGTERM to pid ${py.pid}, as its own \`synapse stop\` does)\n`,
    );
    expect(py.requests.map((q) => `${q.method} ${q.path}`)).toContain('POST /shutdown');
    await waitFor(() => py.child.exitCode !== null || py.child.signalCode !== null, 5000, 'the stand-in to exit');
    expect([py.child.exitCode, py.child.signalCode]).toEqual([0, null]); // its SIGTERM handler ran
    expect(fs.existsSync(py.file)).toBe(false);
  });

  it('`synapse stop` SIGKILLs it when it has not exited --timeout after SIGTERM (its own stop does after 5 s), and removes its entry', async () => {
    await py.stop();
    py = await startOriginalSynapse({ env: t.env, agentType: 'claude', port: await freePort(), name: 'py-claude', workingDir: ROOT, sigtermDelayMs: 60_000 });
    const r = await runCli(['stop', 'py-claude', '--timeout', '1'], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      `killed ${py.agentId} (py-claude) (an agent of the original Synapse: SIGKILL to pid ${py.pid}, 1 s after SIGTERM, as its own \`synapse stop\` does after 5 s)\n`,
    );
    await waitFor(() => py.child.signalCode === 'SIGKILL', 5000, 'the stand-in to be killed');
    expect(fs.existsSync(py.file)).toBe(false);
  });

  it('`synapse kill -f` SIGKILLs it and removes what it could not: its entry and its socket', async () => {
    await py.stop();
    const port = await freePort();
    const uds = fs.mkdtempSync(path.join(t.home, 'uds-'));
    const sock = path.join(uds, `synapse-claude-${port}.sock`);
    // The original serves its routes on this socket too; here the test holds it open for it.
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(sock, r));
    try {
      py = await startOriginalSynapse({ env: t.env, agentType: 'claude', port, name: 'py-claude', workingDir: ROOT, udsDir: uds });
      const r = await runCli(['kill', 'py-claude', '-f'], { env: t.env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`killed ${py.agentId} (py-claude)\n`);
      await waitFor(() => py.child.signalCode === 'SIGKILL', 5000, 'the stand-in to be killed');
      expect([fs.existsSync(py.file), fs.existsSync(sock)]).toEqual([false, false]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("is one of the available agents on our agents' cards", async () => {
    const ours = await startHeadless('echo', { env: t.env });
    try {
      const card = (await getJson(`${ours.endpoint}/.well-known/agent.json`)).body;
      expect(card.extensions['x-synapse-context'].available_agents).toContainEqual({
        agent_id: py.agentId,
        name: 'py-claude',
        type: 'claude',
        role: null,
        status: 'READY',
        endpoint: py.endpoint,
        working_dir: ROOT,
      });
    } finally {
      await ours.stop();
    }
  });

  it('is pruned from the registry when its process is gone, and no longer a target', async () => {
    await py.kill();
    expect(fs.existsSync(py.file)).toBe(true); // SIGKILL: it could not unregister
    const json = await runCli(['list', '--json'], { env: t.env });
    expect(JSON.parse(json.stdout)).toEqual([]);
    expect(fs.existsSync(py.file)).toBe(false);
    const sent = await runCli(['send', 'py-claude', 'anyone?', '--silent'], { env: t.env });
    expect(sent.code).not.toBe(0);
    expect(sent.stderr).toContain('no agent matches "py-claude"');
  });

  it('removes its own entry when stopped, as the original does on exit', async () => {
    await waitFor(() => fs.existsSync(py.file), 2000, 'its entry');
    await py.stop();
    expect(fs.existsSync(py.file)).toBe(false);
  });
});
