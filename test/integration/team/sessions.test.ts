import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitRepo } from '../../support/git-repo.js';
import { freeRange, runCli, tempHome, waitFor } from '../../support/synapse.js';
import { TmuxServer } from '../../support/tmux-server.js';

/*
 * Issue 16 sessions with real agents, real git and real tmux (a server of the test's own):
 * `synapse session save` → kill every agent → `session restore`, in the background and in tmux
 * panes (one member in its own worktree); `--resume` against the echo agent's resume flag (the
 * restored agent remembers what it was told before); the fallback to a fresh start when a resume
 * does not come up in time (a short SYNAPSE_RESUME_TIMEOUT); list/show/delete, the user scope,
 * and names that would leave the sessions directory refused.
 */

const t = tempHome();
const repo = path.join(t.home, 'repo');
let env: NodeJS.ProcessEnv;
let tmux: TmuxServer;
const cli = (args: string[], more: NodeJS.ProcessEnv = {}, cwd = repo) => runCli(args, { env: { ...env, ...more }, cwd, timeoutMs: 90_000 });

const entries = (): Array<Record<string, any>> => {
  const dir = t.env.SYNAPSE_REGISTRY_DIR!;
  return fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')))
    : [];
};
const entryNamed = (name: string) => entries().find((e) => e.name === name);

async function killAll(): Promise<void> {
  for (const e of entries()) expect((await cli(['kill', e.agent_id])).code).toBe(0);
  expect(entries()).toEqual([]);
}

/** What the echo agent answers to `[[history]]`: the earlier messages of its conversation. */
async function history(target: string): Promise<string> {
  const res = await cli(['send', target, '[[history]]', '--wait', '--force']);
  expect(res.code, res.stderr).toBe(0);
  return res.stdout;
}

beforeAll(async () => {
  gitRepo(repo, t.env);
  const range = await freeRange(12);
  env = { ...t.env, SYNAPSE_PORT_RANGE_ECHO: `${range.first}-${range.last}` };
  tmux = new TmuxServer(t.home);
});

afterAll(async () => {
  for (const e of entries()) await cli(['kill', e.agent_id, '-f']).catch(() => undefined);
  tmux.kill();
  t.cleanup();
});

describe('session save and restore in the background', () => {
  it('save records every agent of the project with its conversation id (0600); kill all; restore brings them back as they were', async () => {
    expect((await cli(['start', 'echo', '--name', 'ann', '--role', 'writes'])).code).toBe(0);
    expect((await cli(['start', 'echo', '--name', 'bob'])).code).toBe(0);
    // An agent of another directory is not part of this project's session.
    const elsewhere = path.join(t.home, 'elsewhere');
    fs.mkdirSync(elsewhere);
    expect((await cli(['start', 'echo', '--name', 'zed'], {}, elsewhere)).code).toBe(0);
    const before = { ann: entryNamed('ann')!, bob: entryNamed('bob')! };
    expect(before.ann.session_id).toMatch(/^[0-9a-f-]{36}$/);

    const saved = await cli(['session', 'save', 'sprint', '--json']);
    expect(saved.code, saved.stderr).toBe(0);
    const file = path.join(repo, '.synapse', 'sessions', 'sprint.json');
    expect(JSON.parse(saved.stdout).file).toBe(file);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const session = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(session.agents).toEqual([
      expect.objectContaining({
        profile: 'echo',
        name: 'ann',
        role: 'writes',
        port: before.ann.port,
        working_dir: repo,
        session_id: before.ann.session_id,
        worktree: null,
      }),
      expect.objectContaining({ profile: 'echo', name: 'bob', role: null, port: before.bob.port, working_dir: repo, session_id: before.bob.session_id }),
    ]);

    expect((await cli(['kill', 'zed'])).code).toBe(0);
    await killAll();
    const restored = await cli(['session', 'restore', 'sprint', '--json']);
    expect(restored.code, restored.stderr).toBe(0);
    const out = JSON.parse(restored.stdout);
    expect(out.agents.map((a: { name: string; resumed: boolean; fell_back: boolean }) => [a.name, a.resumed, a.fell_back])).toEqual([
      ['ann', false, false],
      ['bob', false, false],
    ]);
    const ann = entryNamed('ann')!;
    expect(ann).toMatchObject({ role: 'writes', port: before.ann.port, working_dir: repo, status: expect.not.stringMatching(/STARTING/) });
    expect(entryNamed('bob')).toMatchObject({ port: before.bob.port });
    // Not resumed: a new conversation, which does not know the old one.
    expect(ann.session_id).not.toBe(before.ann.session_id);
    await killAll();
  }, 180_000);

  it('restore --resume starts each CLI on its saved conversation: the echo agent remembers what it was told', async () => {
    expect((await cli(['start', 'echo', '--name', 'cleo'])).code).toBe(0);
    const told = await cli(['send', 'cleo', 'remember the word pelican', '--wait', '--force']);
    expect(told.code, told.stderr).toBe(0);
    const id = entryNamed('cleo')!.session_id;
    expect((await cli(['session', 'save', 'memory'])).code).toBe(0);
    await killAll();

    const restored = await cli(['session', 'restore', 'memory', '--resume']);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(/restored synapse-echo-\d+ \(cleo\) in the background .*conversation resumed/);
    expect(entryNamed('cleo')!.session_id).toBe(id);
    const h = await history('cleo');
    expect(h).toContain(`in conversation ${id}`);
    expect(h).toContain('remember the word pelican');
    await killAll();
  }, 120_000);

  it('a resume that has not reached READY within SYNAPSE_RESUME_TIMEOUT is stopped and started fresh, and the console says so', async () => {
    expect((await cli(['start', 'echo', '--name', 'dora'])).code).toBe(0);
    expect((await cli(['send', 'dora', 'remember the word heron', '--wait', '--force'])).code).toBe(0);
    const id = entryNamed('dora')!.session_id;
    expect((await cli(['session', 'save', 'stuck'])).code).toBe(0);
    await killAll();

    // ECHO_RESUME_HANG: the echo agent never shows its prompt when resuming (a fresh start is not affected).
    const restored = await cli(['session', 'restore', 'stuck', '--resume', '--json'], { ECHO_RESUME_HANG: '1', SYNAPSE_RESUME_TIMEOUT: '1' });
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stderr).toContain(`dora (echo): resuming conversation ${id} did not reach READY within 1 s; starting it fresh`);
    expect(JSON.parse(restored.stdout).agents).toEqual([expect.objectContaining({ name: 'dora', resumed: false, fell_back: true, error: null })]);
    // One dora, the fresh one: READY, on a new conversation that has not heard of the heron.
    expect(entries().filter((e) => e.name === 'dora')).toHaveLength(1);
    expect(entryNamed('dora')!.session_id).not.toBe(id);
    expect(await history('dora')).not.toContain('heron');
    await killAll();
  }, 120_000);
});

describe('session restore in tmux panes', () => {
  it('members come back in panes, one in its own worktree; --resume remembers, and a hung resume in a pane falls back to a fresh start', async () => {
    const inside = { ...tmux.insideEnv() };
    const spawn = (args: string[]) => cli(['spawn', 'echo', ...args, '--terminal', 'tmux', '--json'], inside);
    const a = await spawn(['--name', 'eve']);
    expect(a.code, a.stderr).toBe(0);
    const b = await spawn(['--name', 'fay', '--worktree', 'fay-tree']);
    expect(b.code, b.stderr).toBe(0);
    const worktree = path.join(repo, '.synapse', 'worktrees', 'fay-tree');
    expect(entryNamed('fay')!.working_dir).toBe(worktree);
    expect((await cli(['send', 'eve', 'remember the word otter', '--wait', '--force'])).code).toBe(0);
    expect((await cli(['send', 'fay', 'remember the word lynx', '--wait', '--force'])).code).toBe(0);
    expect((await cli(['session', 'save', 'panes'])).code).toBe(0);
    const saved = JSON.parse((await cli(['session', 'show', 'panes', '--json'])).stdout);
    expect(saved.agents[1]).toMatchObject({ name: 'fay', worktree: { name: 'fay-tree', path: worktree, branch: 'synapse/fay-tree' } });
    const panesBefore = tmux.panes().length;
    await killAll();
    await waitFor(() => tmux.panes().length === panesBefore - 2, 10_000, 'the panes to close');

    const restored = await cli(['session', 'restore', 'panes', '--resume', '--terminal', 'tmux', '--json'], inside);
    expect(restored.code, restored.stderr).toBe(0);
    const out = JSON.parse(restored.stdout);
    expect(out.agents.map((m: { name: string; resumed: boolean }) => [m.name, m.resumed])).toEqual([
      ['eve', true],
      ['fay', true],
    ]);
    for (const m of out.agents) expect(tmux.panes()).toContain(m.agent.pane.id);
    expect(entryNamed('fay')).toMatchObject({ working_dir: worktree, worktree: { name: 'fay-tree' } });
    expect(await history('eve')).toContain('remember the word otter');
    expect(await history('fay')).toContain('remember the word lynx');
    await killAll();

    // The same in a pane whose resume hangs: the stuck pane agent is stopped (its pane closes), a fresh one opens.
    const count = tmux.panes().length;
    const hung = await cli(['session', 'restore', 'panes', '--resume', '--terminal', 'tmux', '--json'], {
      ...inside,
      ECHO_RESUME_HANG: '1',
      SYNAPSE_RESUME_TIMEOUT: '2',
    });
    expect(hung.code, hung.stderr).toBe(0);
    expect(hung.stderr).toMatch(/eve \(echo\): resuming conversation \S+ did not reach READY within 2 s; starting it fresh/);
    expect(JSON.parse(hung.stdout).agents.map((m: { fell_back: boolean }) => m.fell_back)).toEqual([true, true]);
    await waitFor(() => tmux.panes().length === count + 2, 10_000, 'one pane per member, the stuck ones closed');
    expect(await history('eve')).not.toContain('otter');
    await killAll();
  }, 240_000);
});

describe('session list, show, delete and names', () => {
  it('list shows project and user sessions; show and delete by name; --user picks the user scope', async () => {
    expect((await cli(['start', 'echo', '--name', 'gil'])).code).toBe(0);
    expect((await cli(['session', 'save', 'mine', '--user'])).code).toBe(0);
    expect((await cli(['session', 'save', 'mine'])).code).toBe(0);
    expect(fs.statSync(path.join(t.home, '.synapse', 'sessions', 'mine.json')).mode & 0o777).toBe(0o600);
    await killAll();

    const list = JSON.parse((await cli(['session', 'list', '--json'])).stdout);
    expect(list.find((s: { name: string }) => s.name === 'mine')).toMatchObject({ scope: 'project', agents: 1, error: null });
    const users = JSON.parse((await cli(['session', 'list', '--user', '--json'])).stdout);
    expect(users).toEqual([expect.objectContaining({ name: 'mine', scope: 'user' })]);
    const human = await cli(['session', 'list']);
    expect(human.stdout).toMatch(/NAME\s+SCOPE\s+AGENTS/);
    expect(human.stdout).toMatch(/mine\s+project\s+1/);

    const shown = await cli(['session', 'show', 'mine']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^session mine \(project, .*\)/);
    expect(shown.stdout).toMatch(/gil \(echo\), port \d+, .*conversation [0-9a-f-]{36}/);

    expect((await cli(['session', 'delete', 'mine'])).code).toBe(0);
    // The project one is gone: the user one of that name shows through.
    expect(JSON.parse((await cli(['session', 'show', 'mine', '--json'])).stdout).scope).toBe('user');
    expect((await cli(['session', 'delete', 'mine', '--user', '--json'])).code).toBe(0);
    const gone = await cli(['session', 'show', 'mine']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('no saved session "mine"');
  }, 60_000);

  it('saving with no agent of this project running is an error that says so; a corrupt file is named, not taken', async () => {
    const none = await cli(['session', 'save', 'empty']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no running agents in this project');
    fs.mkdirSync(path.join(repo, '.synapse', 'sessions'), { recursive: true });
    fs.writeFileSync(path.join(repo, '.synapse', 'sessions', 'broken.json'), '{"name": "broken", "agents": [{"profile": 7}]}');
    const listed = JSON.parse((await cli(['session', 'list', '--json'])).stdout);
    expect(listed.find((s: { name: string }) => s.name === 'broken').error).toMatch(/broken\.json/);
    const shown = await cli(['session', 'restore', 'broken']);
    expect(shown.code).toBe(1);
    expect(shown.stderr).toMatch(/broken\.json/);
    // A conversation id becomes a CLI argument: one that would pass a flag is refused, nothing starts.
    const hostile = {
      name: 'hostile',
      saved_at: new Date().toISOString(),
      project_dir: repo,
      agents: [
        {
          agent_id: 'synapse-echo-1',
          profile: 'echo',
          name: 'mal',
          role: null,
          skill_set: null,
          port: null,
          worktree: null,
          working_dir: repo,
          session_id: '--exit-at-start',
        },
      ],
    };
    fs.writeFileSync(path.join(repo, '.synapse', 'sessions', 'hostile.json'), JSON.stringify(hostile));
    const refused = await cli(['session', 'restore', 'hostile', '--resume']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/hostile\.json: \/agents\/0\/session_id/);
    expect(entryNamed('mal')).toBeUndefined();
  }, 30_000);

  it('names that would leave the sessions directory are refused by every subcommand, and nothing is written', async () => {
    const outside = path.join(t.home, 'outside.json');
    fs.writeFileSync(outside, '{}');
    // Every bad name on `save` (the one that writes); two of them on the others.
    const names = ['../outside', '../../etc/passwd', 'a/b', '.hidden', '..', 'x'.repeat(65), 'with space'];
    const calls = [
      ...names.map((bad) => ['save', bad]),
      ...['../outside', 'a/b'].flatMap((bad) => [
        ['show', bad],
        ['restore', bad],
        ['delete', bad],
        ['delete', bad, '--user'],
      ]),
    ];
    for (const args of calls) {
      const res = await cli(['session', ...args]);
      expect(res.code, args.join(' ')).toBe(1);
      expect(res.stderr).toContain('is not a session name');
    }
    expect(fs.readFileSync(outside, 'utf8')).toBe('{}');
    const dir = path.join(repo, '.synapse', 'sessions');
    expect(fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => !f.endsWith('.json')) : []).toEqual([]);
  }, 60_000);
});
