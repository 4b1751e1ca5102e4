// The real Claude Code (2.1.197) is given Synapse's skills: the mock model sees exactly what
// Claude Code sends it, so these tests prove the skill reaches the model, not only that files exist.
//   - the core skill synapse-a2a, deployed by `synapse claude` into ~/.claude/skills at start;
//   - the Claude Code plugin, installed from this repository's marketplace manifest.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, type TestContext } from 'vitest';
import { ROOT } from '../support/synapse.js';
import os from 'node:os';
import {
  artifact,
  BIN,
  cleanupE2E,
  defer,
  getJson,
  modelTurns,
  prepareAgentHome,
  send,
  startAgent,
  startMock,
  traceSummary,
  turnOf,
  TURN_MS,
  waitFor,
  waitForState,
} from './harness.js';

const CORE_DESCRIPTION = 'Work as one agent of a Synapse A2A team';
const MANAGER_DESCRIPTION = 'Lead a team of Synapse agents';

afterEach(async (ctx: TestContext) => {
  if (ctx.task.result?.state === 'fail') console.log(traceSummary());
  await cleanupE2E();
});

/** Runs the pinned `claude` with the prepared env; resolves with its exit code and output. */
function claude(args: string[], env: Record<string, string>, cwd: string, timeoutMs = 90_000): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('claude', args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`claude ${args.join(' ')} did not finish in ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

const bodyText = (body: unknown) => JSON.stringify(body);

describe('Claude Code is given the Synapse skills (real Claude Code, mock model)', () => {
  it('synapse claude deploys synapse-a2a at start and Claude Code sends it to the model', async () => {
    const mock = await startMock();
    const agent = await startAgent('claude', mock);
    const deployed = path.join(agent.home.home, '.claude', 'skills', 'synapse-a2a');
    expect(fs.readFileSync(path.join(deployed, 'SKILL.md'), 'utf8')).toContain(CORE_DESCRIPTION);
    expect(fs.existsSync(path.join(deployed, '.synapse-deployed'))).toBe(true);
    const turn = await waitFor(
      () => modelTurns(mock).find((r) => bodyText(r.body).includes(CORE_DESCRIPTION)),
      TURN_MS,
      'a model request that lists the synapse-a2a skill',
    );
    // Claude Code lists it among the skills its Skill tool can load ("- synapse-a2a: Work as one agent …").
    expect(bodyText(turn.body)).toContain(`- synapse-a2a: ${CORE_DESCRIPTION}`);
  }, 120_000);

  it('the plugin installs from the repository marketplace and its skills reach the model', async () => {
    const mock = await startMock();
    const { home, env } = await prepareAgentHome('claude', mock);
    for (const args of [
      ['plugin', 'validate', ROOT],
      ['plugin', 'marketplace', 'add', ROOT],
      ['plugin', 'install', 'synapse-a2a@synapse-a2a'],
    ]) {
      const r = await claude(args, env, home.cwd);
      expect(r.code, `claude ${args.join(' ')}:\n${r.out}`).toBe(0);
    }
    const list = await claude(['plugin', 'list'], env, home.cwd);
    expect(list.out).toMatch(/synapse-a2a@synapse-a2a[\s\S]*enabled/);
    // Nothing in ~/.claude/skills: whatever reaches the model came through the plugin.
    expect(fs.existsSync(path.join(home.home, '.claude', 'skills'))).toBe(false);

    const run = await claude(['-p', 'hello from the plugin test'], env, home.cwd);
    expect(run.out).toContain('MOCK: hello from the plugin test');
    const turn = modelTurns(mock).find((r) => bodyText(r.body).includes(MANAGER_DESCRIPTION));
    expect(turn, 'a model request that lists the plugin skills').toBeTruthy();
    // Plugin skills are listed under the plugin's name.
    expect(bodyText(turn!.body)).toMatch(new RegExp(`- synapse-a2a:synapse-manager: ${MANAGER_DESCRIPTION}`));
    expect(bodyText(turn!.body)).toMatch(new RegExp(`- synapse-a2a:synapse-a2a: ${CORE_DESCRIPTION}`));
  }, 180_000);

  it('skill route: the model that was given synapse-a2a calls `synapse send` through Bash, the other agent gets it framed with the sender and the answer comes back', async () => {
    const mock = await startMock();
    const registryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-e2e-registry-'));
    defer('shared registry', () => fs.rmSync(registryDir, { recursive: true, force: true }));
    const [receiver, sender] = await Promise.all([
      startAgent('claude', mock, { registryDir, env: { SYNAPSE_REPLY_GRACE: '1' } }),
      startAgent('claude', mock, { registryDir, autoApprove: true }),
    ]);
    const question = 'skill route ping';
    // What the skill teaches: `synapse send <target> "…" --wait` (the mock runs it as a Bash call).
    const task = await send(sender, `ask the other agent [[sh: node ${BIN} send ${receiver.agentId} "${question}" --wait --force]]`);
    const done = await waitForState(sender, task.id, undefined, 90_000);
    expect(done.status).toBe('completed');

    // The request that made the model call Bash carried the skill.
    const toolCall = modelTurns(mock).find((r) => r.answer === 'tool' && turnOf('claude', r).userText.includes(question));
    expect(toolCall, 'the model request that produced the Bash call').toBeTruthy();
    expect(bodyText(toolCall!.body)).toContain(`- synapse-a2a: ${CORE_DESCRIPTION}`);

    // The receiver got it framed with the sender, and its answer reached the sender's task.
    const { body } = await getJson(`${receiver.endpoint}/tasks?limit=50`);
    const received = (body as any[]).find((t) => t.metadata?.sender?.sender_id === sender.agentId);
    expect(received?.status).toBe('completed');
    const asked = `A2A: [From: ${sender.agentId} (${sender.agentId})] [REPLY EXPECTED] ${question}`;
    expect(modelTurns(mock).some((r) => turnOf('claude', r).userText === asked)).toBe(true);
    const toolTurn = modelTurns(mock).find((r) => (turnOf('claude', r).toolOutput ?? '').includes(artifact(received)));
    expect(toolTurn, "the sender's model got the other agent's answer as the Bash output").toBeTruthy();
    expect(artifact(done)).toContain('MOCK: tool said');
  }, 180_000);
});
