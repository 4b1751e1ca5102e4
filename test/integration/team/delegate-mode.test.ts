import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempProject, type Project } from '../../support/project.js';
import { cleanupAll, getJson, runCli, startHeadless, waitFor, type AgentHandle } from '../../support/synapse.js';

/**
 * `--delegate-mode`: a manager that coordinates and does not edit. Real agents (echo), the real
 * registry, board and file-safety databases of a temp project.
 */
describe('delegate mode (real processes)', () => {
  let p: Project;
  let lead: AgentHandle;
  let worker: AgentHandle;
  /** Commands run from the lead's terminal: its id in SYNAPSE_AGENT_ID, as the agent's CLI gets it. */
  let asLead: NodeJS.ProcessEnv;
  const cli = (args: string[], env: NodeJS.ProcessEnv = p.env) => runCli(args, { env, cwd: p.dir });

  beforeAll(async () => {
    p = tempProject();
    lead = await startHeadless('echo', { env: p.env, cwd: p.dir, args: ['--name', 'lead', '--delegate-mode'] });
    worker = await startHeadless('echo', { env: p.env, cwd: p.dir, args: ['--name', 'worker'] });
    asLead = { ...p.env, SYNAPSE_AGENT_ID: lead.agentId };
  });
  afterAll(async () => {
    await cleanupAll();
    p.cleanup();
  });

  it('records delegate_mode in the registry entry and tells the manager in its start-up instruction', async () => {
    const entry = JSON.parse(fs.readFileSync(path.join(p.registry, `${lead.agentId}.json`), 'utf8'));
    expect(entry.delegate_mode).toBe(true);
    const other = JSON.parse(fs.readFileSync(path.join(p.registry, `${worker.agentId}.json`), 'utf8'));
    expect(other.delegate_mode).toBeUndefined();
    const bootstrap = await waitFor(
      async () => ((await getJson(`${lead.endpoint}/tasks`)).body as any[]).find((t) => t.metadata.kind === 'bootstrap') ?? null,
      5000,
      'the start-up instruction',
    );
    const text = bootstrap.message.parts.map((x: any) => x.text).join('');
    expect(text).toContain('Delegate mode: you are the manager');
    expect(text).toContain('do not edit files');
    const plain = ((await getJson(`${worker.endpoint}/tasks`)).body as any[]).find((t) => t.metadata.kind === 'bootstrap');
    expect(plain.message.parts.map((x: any) => x.text).join('')).not.toContain('Delegate mode');
  });

  it('refuses a send of work with no board task, naming the command to run; nothing reaches the worker', async () => {
    const before = ((await getJson(`${worker.endpoint}/tasks`)).body as any[]).length;
    const r = await cli(['send', 'worker', "fix the parser's bug", '--silent'], asLead);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('lead (');
    expect(r.stderr).toContain('runs in delegate mode');
    expect(r.stderr).toContain(`synapse send worker 'fix the parser'\\''s bug' --task`);
    expect(((await getJson(`${worker.endpoint}/tasks`)).body as any[]).length).toBe(before);
    // Anyone else (a human here) sends as before.
    const human = await cli(['send', 'worker', 'hello from a human', '--silent']);
    expect(human.code, human.stderr).toBe(0);
  });

  it('takes a send with --task: a board task assigned to the worker, linked to the message', async () => {
    const r = await cli(['send', 'worker', 'write the parser tests', '--task', '--silent', '--json'], asLead);
    expect(r.code, r.stderr).toBe(0);
    const sent = JSON.parse(r.stdout);
    const board = JSON.parse((await cli(['tasks', 'list', '--json'])).stdout);
    const linked = board.find((t: any) => t.a2a_task_id === sent.task_id);
    expect(linked).toMatchObject({ subject: 'write the parser tests', assignee: worker.agentId, created_by: lead.agentId });
  });

  it('takes a send with --task <id> (links that board task), and one when the worker has an open board task', async () => {
    const created = JSON.parse((await cli(['tasks', 'create', 'refactor the lexer', '--json'])).stdout);
    const r = await cli(['send', 'worker', 'start on the lexer', '--task', created.id.slice(0, 8), '--silent', '--json'], asLead);
    expect(r.code, r.stderr).toBe(0);
    const sent = JSON.parse(r.stdout);
    expect(JSON.parse((await cli(['tasks', 'show', created.id, '--json'])).stdout).task.a2a_task_id).toBe(sent.task_id);

    // An open board task assigned to the worker (not linked to any message) lets work go without a flag.
    const open = JSON.parse((await cli(['tasks', 'create', 'document the lexer', '--json'])).stdout);
    expect((await cli(['tasks', 'assign', open.id, 'worker'])).code).toBe(0);
    const follow = await cli(['send', 'worker', 'and document it', '--silent'], asLead);
    expect(follow.code, follow.stderr).toBe(0);
  });

  it('lets the manager interrupt without a board task (coordination, not work)', async () => {
    const stop = await cli(['interrupt', 'worker', 'stop: main is red'], asLead);
    expect(stop.code, stop.stderr).toBe(0);
  });

  it('file-safety denies the manager a lock (by name and from its terminal) and its writes; the worker locks as usual', async () => {
    const own = await cli(['file-safety', 'lock', 'src/app.ts', 'lead']);
    expect(own.code).toBe(1);
    expect(own.stderr).toContain('lock refused: lead (');
    expect(own.stderr).toContain('delegate mode');
    const fromTerminal = await cli(['file-safety', 'lock', 'src/app.ts', 'someone-else'], asLead);
    expect(fromTerminal.code).toBe(1);
    expect(fromTerminal.stderr).toContain('delegate mode');
    const check = await cli(['file-safety', 'validate', 'src/app.ts', 'lead', '--json']);
    expect(check.code).toBe(1);
    expect(JSON.parse(check.stdout)).toMatchObject({ allowed: false, reason: expect.stringContaining('delegate mode') });

    const ok = await cli(['file-safety', 'lock', 'src/app.ts', 'worker', '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).lock.agent_id).toBe(worker.agentId);
    const locks = JSON.parse((await cli(['file-safety', 'locks', '--json'])).stdout);
    expect(locks.map((l: any) => l.agent_id)).toEqual([worker.agentId]);
  });

  it('synapse start --delegate-mode: the background agent is a manager too', async () => {
    const started = await cli(['start', 'echo', '--name', 'bg-lead', '--delegate-mode', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const entry = JSON.parse(started.stdout);
    try {
      expect(entry.delegate_mode).toBe(true);
      // lead has no board task (worker has open ones by now).
      const r = await cli(['send', 'lead', 'do it', '--silent'], { ...p.env, SYNAPSE_AGENT_ID: 'bg-lead' });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('bg-lead (');
      expect(r.stderr).toContain('runs in delegate mode');
    } finally {
      expect((await cli(['kill', 'bg-lead'])).code).toBe(0);
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
      'the background agent to exit',
    );
  });
});
