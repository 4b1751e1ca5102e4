import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, postJson, runCli, startHeadless, tempHome, type AgentHandle } from '../../support/synapse.js';
import { gitRepo } from '../../support/git-repo.js';

/*
 * Issue 21 §1: worktrees of one repository share one team store. Three echo agents, one in the
 * main checkout and one in each of two worktrees (made by `--worktree`), claim from one board
 * (exactly one winner per task) and lock through one lock table (a lock taken in one worktree
 * blocks the same file in the other).
 */

const t = tempHome();
const repo = path.join(t.home, 'repo');
let main: AgentHandle;
let one: AgentHandle;
let two: AgentHandle;
const wt = (name: string) => path.join(repo, '.synapse', 'worktrees', name);

beforeAll(async () => {
  gitRepo(repo, t.env, { 'src/a.ts': 'export const a = 1;\n' });
  [main, one, two] = await Promise.all([
    startHeadless('echo', { env: t.env, cwd: repo, args: ['--name', 'main'] }),
    startHeadless('echo', { env: t.env, cwd: repo, args: ['--name', 'one', '--worktree', 'one'] }),
    startHeadless('echo', { env: t.env, cwd: repo, args: ['--name', 'two', '--worktree', 'two'] }),
  ]);
}, 60_000);

afterAll(async () => {
  await cleanupAll();
  t.cleanup();
});

function entryOf(agent: AgentHandle): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(t.env.SYNAPSE_REGISTRY_DIR!, `${agent.agentId}.json`), 'utf8')) as Record<string, unknown>;
}

describe('worktrees of one repository share one team store', () => {
  it('starts each --worktree agent in its own worktree and records it in the registry entry', () => {
    expect(entryOf(one)).toMatchObject({ working_dir: wt('one'), worktree: { name: 'one', path: wt('one'), branch: 'synapse/one' } });
    expect(entryOf(two)).toMatchObject({ working_dir: wt('two'), worktree: { name: 'two', branch: 'synapse/two' } });
    expect(entryOf(main).worktree).toBeUndefined();
    expect(fs.existsSync(path.join(wt('one'), 'src', 'a.ts'))).toBe(true);
  });

  it('has agents in the main checkout and two worktrees claim from one board with exactly one winner per task', async () => {
    const created = await postJson(`${one.endpoint}/tasks/board`, { tasks: Array.from({ length: 30 }, (_, i) => ({ subject: `task ${i}` })) });
    expect(created.status).toBe(201);
    const ids = (created.body.tasks as { id: string }[]).map((task) => task.id);
    expect(ids).toHaveLength(30);
    // Every task is on every agent's board: it is one board.
    for (const agent of [main, two]) {
      const board = (await (await fetch(`${agent.endpoint}/tasks/board?status=pending`)).json()) as { tasks: { id: string }[] };
      expect(board.tasks.map((task) => task.id).sort()).toEqual([...ids].sort());
    }
    const agents = [main, one, two];
    const attempts = await Promise.all(
      ids.flatMap((id) =>
        agents.map(async (agent) => ({ id, agent: agent.agentId, status: (await postJson(`${agent.endpoint}/tasks/board/${id}/claim`, {})).status })),
      ),
    );
    for (const id of ids) {
      const mine = attempts.filter((a) => a.id === id);
      expect(
        mine.filter((a) => a.status === 200),
        `winners of ${id}`,
      ).toHaveLength(1);
      expect(
        mine.filter((a) => a.status === 409),
        `losers of ${id}`,
      ).toHaveLength(2);
    }
    // Each agent sees the same assignee for every task.
    const views = await Promise.all(
      agents.map(async (a) => (await (await fetch(`${a.endpoint}/tasks/board`)).json()) as { tasks: { id: string; assignee: string | null }[] }),
    );
    const winners = Object.fromEntries(attempts.filter((a) => a.status === 200).map((a) => [a.id, a.agent]));
    for (const view of views) for (const task of view.tasks) expect(task.assignee).toBe(winners[task.id]);
    expect(fs.existsSync(path.join(repo, '.synapse', 'task_board.db'))).toBe(true);
    expect(fs.existsSync(path.join(wt('one'), '.synapse', 'task_board.db'))).toBe(false);
  }, 30_000);

  it('blocks a file locked in one worktree from an agent in another, and in the main checkout', async () => {
    const taken = await runCli(['file-safety', 'lock', 'src/a.ts', one.agentId], { env: t.env, cwd: wt('one') });
    expect(taken.stderr).toBe('');
    expect(taken.code).toBe(0);
    const refused = await runCli(['file-safety', 'lock', 'src/a.ts', two.agentId], { env: t.env, cwd: wt('two') });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`locked by ${one.agentId}`);
    const check = await runCli(['file-safety', 'validate', 'src/a.ts', main.agentId, '--json'], { env: t.env, cwd: repo });
    expect(JSON.parse(check.stdout)).toMatchObject({ allowed: false, path: path.join(repo, 'src', 'a.ts'), holder: { agent_id: one.agentId } });
    // Released in the worktree where it was taken, it is free everywhere.
    expect((await runCli(['file-safety', 'unlock', 'src/a.ts', one.agentId], { env: t.env, cwd: wt('one') })).code).toBe(0);
    expect((await runCli(['file-safety', 'lock', 'src/a.ts', two.agentId], { env: t.env, cwd: wt('two') })).code).toBe(0);
  }, 30_000);

  it('shares memory: a note saved in a worktree is read in the main checkout', async () => {
    expect((await postJson(`${two.endpoint}/memory/save`, { key: 'decision', content: 'use sqlite' })).status).toBe(200);
    const note = (await (await fetch(`${main.endpoint}/memory/decision`)).json()) as { content?: string; memory?: { content: string } };
    expect(JSON.stringify(note)).toContain('use sqlite');
  });
});
