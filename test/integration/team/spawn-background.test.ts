import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, postJson, runCli, startHeadless, tempHome, type AgentHandle } from '../../support/synapse.js';

/**
 * Spawning without a multiplexer (background agents), saved agents by id and name, `--agent`,
 * rename of a running agent, and the agent's team routes (`POST /spawn`, `/team/start`,
 * `/rename`) with hostile bodies.
 */

const t = tempHome();
const project = path.join(t.home, 'project');
let lead: AgentHandle;
const cli = (args: string[], env = t.env) => runCli(args, { env, cwd: project, timeoutMs: 60_000 });

const entries = () =>
  fs
    .readdirSync(t.env.SYNAPSE_REGISTRY_DIR!)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(fs.readFileSync(path.join(t.env.SYNAPSE_REGISTRY_DIR!, f), 'utf8')));
const entryNamed = (name: string) => entries().find((e) => e.name === name);

beforeAll(async () => {
  fs.mkdirSync(project, { recursive: true });
  lead = await startHeadless('echo', { env: t.env, cwd: project, args: ['--name', 'lead'] });
});

afterAll(async () => {
  for (const e of entries()) if (e.pid !== lead.child.pid) await cli(['kill', e.agent_id, '-f']).catch(() => undefined);
  await cleanupAll();
  t.cleanup();
});

describe('synapse spawn in the background', () => {
  it('outside a multiplexer, auto means background: ready on return, spawned_by_pid is the agent it runs inside', async () => {
    const res = await cli(['spawn', 'echo', '--name', 'kid', '--json'], { ...t.env, SYNAPSE_AGENT_ID: lead.agentId });
    expect(res.code).toBe(0);
    const spawned = JSON.parse(res.stdout);
    expect(spawned).toMatchObject({ name: 'kid', terminal: 'background', pane: null, attach: `synapse logs ${spawned.agent_id} -f` });
    const entry = entryNamed('kid');
    expect(entry.status).not.toBe('STARTING');
    expect(entry.spawned_by_pid).toBe(lead.child.pid);
    expect((await cli(['kill', 'kid'])).code).toBe(0);
  }, 60_000);

  it('a name already running is refused before anything starts', async () => {
    const res = await cli(['spawn', 'echo', '--name', 'lead']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('the name "lead" is taken by');
  });
});

describe('saved agents', () => {
  it('add, list, show and spawn by id and by name; the project scope wins over the user scope; delete', async () => {
    expect((await cli(['agents', 'add', 'steady-builder', '--name', 'Rex', '--profile', 'echo', '--role', 'builds', '--scope', 'user'])).code).toBe(0);
    expect((await cli(['agents', 'add', 'steady-builder', '--name', 'Rex', '--profile', 'echo', '--role', 'builds here'])).code).toBe(0);
    const list = JSON.parse((await cli(['agents', 'list', '--json'])).stdout);
    expect(list).toEqual([expect.objectContaining({ id: 'steady-builder', scope: 'project', role: 'builds here' })]);
    const byName = JSON.parse((await cli(['agents', 'show', 'Rex', '--json'])).stdout);
    expect(byName.id).toBe('steady-builder');

    const spawned = JSON.parse((await cli(['spawn', 'steady-builder', '--terminal', 'background', '--json'])).stdout);
    expect(spawned).toMatchObject({ name: 'Rex', saved_agent: 'steady-builder' });
    expect(entryNamed('Rex').role).toBe('builds here');
    expect((await cli(['kill', 'Rex'])).code).toBe(0);
    const again = JSON.parse((await cli(['spawn', 'Rex', '--name', 'Rex2', '--terminal', 'background', '--json'])).stdout);
    expect(again.name).toBe('Rex2');
    expect((await cli(['kill', 'Rex2'])).code).toBe(0);

    // `synapse <profile> --agent`, here through `synapse start`: the definition, the flags over it.
    const started = await cli(['start', 'echo', '-A', 'steady-builder', '--role', 'overridden', '--json']);
    expect(started.code).toBe(0);
    expect(JSON.parse(started.stdout)).toMatchObject({ name: 'Rex', role: 'overridden' });
    expect((await cli(['kill', 'Rex'])).code).toBe(0);
    const wrong = await cli(['start', 'claude', '--agent', 'steady-builder']);
    expect(wrong.stderr).toMatch(/saved agent steady-builder is a echo agent|not on PATH/);

    expect((await cli(['agents', 'delete', 'Rex'])).code).toBe(0);
    const userLeft = JSON.parse((await cli(['agents', 'list', '--json'])).stdout);
    expect(userLeft).toEqual([expect.objectContaining({ id: 'steady-builder', scope: 'user' })]);
    expect((await cli(['agents', 'add', 'NotAnId', '--name', 'x', '--profile', 'echo'])).code).toBe(1);
    expect((await cli(['spawn', 'no-such-agent'])).code).toBe(2);
  }, 120_000);
});

describe('synapse rename', () => {
  it('renames a running agent: the registry entry changes and heartbeats keep it; --clear removes name and role', async () => {
    const res = await cli(['rename', 'lead', '--name', 'boss', '--role', 'leads']);
    expect(res.code).toBe(0);
    expect(entryNamed('boss')).toMatchObject({ agent_id: lead.agentId, role: 'leads' });
    const status = await cli(['status', 'boss', '--json']);
    expect(JSON.parse(status.stdout).name).toBe('boss');
    expect((await cli(['rename', 'boss', '--clear', '--name', 'lead'])).code).toBe(0);
    expect(entryNamed('lead')).toMatchObject({ agent_id: lead.agentId, role: null });
    expect((await cli(['rename', 'lead'])).code).toBe(1);
  }, 30_000);
});

describe('team routes of an agent', () => {
  it('POST /spawn starts an agent beside it (spawned_by_pid = that agent); POST /team/start starts several and reports failures', async () => {
    const one = await postJson(`${lead.endpoint}/spawn`, { profile: 'echo', name: 'viahttp', terminal: 'background' });
    expect(one.status).toBe(201);
    expect(one.body.agent).toMatchObject({ name: 'viahttp', terminal: 'background' });
    expect(entryNamed('viahttp').spawned_by_pid).toBe(lead.child.pid);

    const team = await postJson(`${lead.endpoint}/team/start`, { agents: ['echo:t1', 'nosuchcli:t2'], terminal: 'background' });
    expect(team.status).toBe(200);
    expect(team.body.started.map((s: { name: string }) => s.name)).toEqual(['t1']);
    expect(team.body.failed).toEqual([expect.objectContaining({ spec: 'nosuchcli:t2', code: 'unknown_profile' })]);

    const taken = await postJson(`${lead.endpoint}/spawn`, { profile: 'echo', name: 'viahttp', terminal: 'background' });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('conflict');
    for (const name of ['viahttp', 't1']) expect((await cli(['kill', name])).code).toBe(0);
  }, 90_000);

  it('hostile bodies are refused with 400 before anything runs', async () => {
    const bad: Array<[string, unknown]> = [
      ['/spawn', {}],
      ['/spawn', { profile: '--help' }],
      ['/spawn', { profile: 'echo', port: 0 }],
      ['/spawn', { profile: 'echo', terminal: 'xterm' }],
      ['/spawn', { profile: 'echo', cli_args: [{ a: 1 }] }],
      ['/spawn', { profile: 'echo', worktree: '../../etc' }],
      ['/spawn', { profile: 'echo', name: 'x'.repeat(10_000) }],
      ['/team/start', { agents: [] }],
      ['/team/start', { agents: ['-rf'] }],
      ['/team/start', { agents: Array.from({ length: 100 }, (_, i) => `echo:a${i}`) }],
      ['/rename', {}],
      ['/rename', { name: { first: 'x' } }],
      ['/rename', { role: ['a', 'b'] }],
    ];
    const before = entries().length;
    for (const [route, body] of bad) {
      const res = await postJson(`${lead.endpoint}${route}`, body);
      expect(res.status, `${route} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.error.code).toBe('invalid_input');
    }
    expect(entries().length).toBe(before);
  }, 30_000);
});
