import fs from 'node:fs';
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
