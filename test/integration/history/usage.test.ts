import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupAll, postJson, runCli, startHeadless, tempHome, textMessage, waitFor, waitForTask } from '../../support/synapse.js';

/**
 * Token usage end to end with the echo agent (issue 20 §3): `[[usage: IN OUT CR CW]]` makes it
 * write a usage record in Claude Code's session format as its answer ends; the agent reads it
 * after the turn, keeps it on the task and in the history, and `synapse history stats` shows it.
 */

const homes: Array<ReturnType<typeof tempHome>> = [];
afterEach(async () => {
  await cleanupAll();
  for (const h of homes.splice(0)) h.cleanup();
});

async function send(endpoint: string, text: string): Promise<any> {
  const res = await postJson(`${endpoint}/tasks/send`, textMessage(text));
  expect(res.status).toBe(202);
  return waitForTask(endpoint, res.body.task.id);
}

async function stats(env: NodeJS.ProcessEnv, cwd: string, args: string[] = []): Promise<any> {
  const r = await runCli(['history', 'stats', '--json', ...args], { env, cwd });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe('token usage of an agent whose CLI records it', () => {
  it('sums the records of each turn per task, stores them in history and prices them from settings `pricing`', async () => {
    const t = tempHome();
    homes.push(t);
    const project = path.join(t.home, 'project');
    fs.mkdirSync(path.join(project, '.synapse'), { recursive: true });
    // The echo agent's model is `echo`: priced here at $1 in, $2 out, $0.5 cache read, $4 cache write per million.
    fs.writeFileSync(
      path.join(project, '.synapse', 'settings.json'),
      JSON.stringify({ pricing: { echo: { input: 1, output: 2, cacheRead: 0.5, cacheWrite: 4 } } }),
    );
    const env = { ...t.env, SYNAPSE_HISTORY_ENABLED: 'true' };
    const agent = await startHeadless('echo', { env, cwd: project, args: ['--name', 'counter'] });

    const first = await send(agent.endpoint, 'first [[usage: 1000 200 30 4]]');
    expect(first.status).toBe('completed');
    const second = await send(agent.endpoint, 'second [[usage: 10 2 0 0]]');
    const plain = await send(agent.endpoint, 'no usage recorded for this one');
    expect(plain.status).toBe('completed');

    // The usage lands on the task (metadata.usage) once the turn's records are read.
    const withUsage = await waitFor(async () => {
      const res = await fetch(`${agent.endpoint}/tasks/${second.id}`);
      const task = (await res.json()) as any;
      return task.metadata?.usage ? task : null;
    }, 10_000);
    expect(withUsage.metadata.usage).toMatchObject({ input_tokens: 10, output_tokens: 2, cache_read_tokens: 0, cache_write_tokens: 0, records: 1 });

    const s = await waitFor(async () => {
      const st = await stats(env, project);
      return st.agents[0]?.usage?.tasks === 2 ? st : null;
    }, 10_000);
    expect(s.agents).toHaveLength(1);
    expect(s.agents[0]).toMatchObject({ agent_id: agent.agentId, agent_name: 'counter', total: 3 });
    const cost = (1010 * 1 + 202 * 2 + 30 * 0.5 + 4 * 4) / 1_000_000;
    expect(s.agents[0].usage).toMatchObject({
      input_tokens: 1010,
      output_tokens: 202,
      cache_read_tokens: 30,
      cache_write_tokens: 4,
      tasks: 2,
      unpriced_models: [],
      by_model: { echo: { input_tokens: 1010, output_tokens: 202, cache_read_tokens: 30, cache_write_tokens: 4, priced_as: 'echo' } },
    });
    expect(s.agents[0].usage.estimated_cost_usd).toBeCloseTo(cost, 12);
    expect(s.usage).toMatchObject({ input_tokens: 1010, output_tokens: 202, tasks: 2 });

    // The human view: a TOKEN USAGE section with the same figures.
    const human = await runCli(['history', 'stats'], { env, cwd: project });
    expect(human.stdout).toContain('TOKEN USAGE');
    expect(human.stdout).toMatch(/counter \(synapse-echo-\d+\)\s+1,010\s+202\s+30\s+4\s+2\s+\$0\.0014/);

    // `history show` carries the task's usage.
    const shown = JSON.parse((await runCli(['history', 'show', first.id, '--json'], { env, cwd: project })).stdout);
    expect(shown.usage).toMatchObject({ input_tokens: 1000, output_tokens: 200, cache_read_tokens: 30, cache_write_tokens: 4 });

    // The Canvas `cost` card takes the same figures (no dashboard running: stored for its next start).
    const posted = await runCli(['canvas', 'cost', '--json'], { env, cwd: project });
    expect(posted.code, posted.stderr).toBe(0);
    const card = JSON.parse(posted.stdout);
    expect(card.card).toMatchObject({ id: 'token-cost', type: 'cost', title: 'Token usage (estimated cost)' });
    expect(card.card.body.items).toEqual([
      { label: 'counter (+30 cache read, 4 cache write)', input_tokens: 1010, output_tokens: 202, cost: s.agents[0].usage.estimated_cost_usd },
    ]);
  }, 60_000);

  it('without usage records, stats has no TOKEN USAGE section and `usage` is null; a garbled session file fails nothing', async () => {
    const t = tempHome();
    homes.push(t);
    const env = { ...t.env, SYNAPSE_HISTORY_ENABLED: 'true', ECHO_SESSION_DIR: path.join(t.home, 'echo-sessions') };
    fs.mkdirSync(env.ECHO_SESSION_DIR, { recursive: true });
    const agent = await startHeadless('echo', { env, cwd: t.home });
    // Another session's file full of garbage lines in the directory the agent reads.
    fs.writeFileSync(path.join(env.ECHO_SESSION_DIR, 'other.usage.jsonl'), '{not json\n{"type":"assistant","message":{"usage":"x"}}\n\u0000\u0001\n');
    const done = await send(agent.endpoint, 'plain message');
    expect(done.status).toBe('completed');
    const s = await waitFor(async () => {
      const st = await stats(env, t.home);
      return st.total === 1 ? st : null;
    }, 10_000);
    expect(s.usage).toBeNull();
    expect(s.agents[0].usage).toBeNull();
    const human = await runCli(['history', 'stats'], { env, cwd: t.home });
    expect(human.stdout).not.toContain('TOKEN USAGE');
    const noCard = await runCli(['canvas', 'cost'], { env, cwd: t.home });
    expect(noCard.code).not.toBe(0);
    expect(noCard.stderr).toContain('no token usage in the history yet');
  }, 60_000);
});
