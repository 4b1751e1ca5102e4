import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, getJson, postJson, runCli, startHeadless, tempHome, textMessage, waitFor, type AgentHandle } from '../../support/synapse.js';

/**
 * Issue 21 §6: helpers end by themselves. Real background echo agents spawned with a lease end
 * after it runs out (READY with no task for a while, or n answered tasks), through their normal
 * shutdown; and the depth guard refuses an agent spawned too deep (CLI and `POST /spawn`).
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
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  fs.mkdirSync(project, { recursive: true });
  lead = await startHeadless('echo', { env: t.env, cwd: project, args: ['--name', 'lead'] });
});

afterAll(async () => {
  for (const e of entries()) if (e.pid !== lead.child.pid) await cli(['kill', e.agent_id, '-f']).catch(() => undefined);
  await cleanupAll();
  t.cleanup();
});

/** Spawns an echo helper in the background; its spawn JSON. */
async function spawn(name: string, ...flags: string[]): Promise<any> {
  const res = await cli(['spawn', 'echo', '--name', name, '--terminal', 'background', '--json', ...flags]);
  expect(res.code, res.stderr).toBe(0);
  return JSON.parse(res.stdout);
}

describe('a lease', () => {
  it('--keep-idle: the helper ends by itself after that long READY with no task', async () => {
    const spawned = await spawn('idler', '--keep-idle', '3s');
    expect(spawned.still_starting).toBe(false);
    await waitFor(() => !entryNamed('idler') && !alive(spawned.pid), 20_000, 'the idle helper to end');
    const log = fs.readFileSync(spawned.log_file, 'utf8');
    expect(log).toContain('ending: its lease ran out: READY with no task for 3s');
    expect(log).toMatch(/stopped \(exit \d+\)/);
  }, 60_000);

  it('--keep-turns: the helper answers n tasks, then ends by itself; the answers are complete', async () => {
    // History on for this helper: its last answer may only be readable there (below).
    const historyEnv = { ...t.env, SYNAPSE_HISTORY_ENABLED: 'true' };
    const res = await cli(['spawn', 'echo', '--name', 'twice', '--terminal', 'background', '--json', '--keep-turns', '2'], historyEnv);
    expect(res.code, res.stderr).toBe(0);
    const spawned = JSON.parse(res.stdout);
    for (const [i, text] of ['first', 'second'].entries()) {
      const sent = await postJson(`${spawned.endpoint}/tasks/send`, textMessage(text));
      expect(sent.status).toBe(202);
      const id: string = sent.body.task.id;
      // The second answer ends the lease: the helper may be gone before a poll sees the finished
      // task (a loaded machine), so then its final state comes from the history it recorded.
      const state = await waitFor(
        async () => {
          try {
            const { body } = await getJson(`${spawned.endpoint}/tasks/${id}`);
            return ['completed', 'failed', 'canceled'].includes(body?.status) ? (body.status as string) : null;
          } catch (err) {
            if (i === 1 && !alive(spawned.pid)) return 'ended';
            throw err;
          }
        },
        15_000,
        `task ${text} to finish`,
      );
      if (state === 'ended') {
        const shown = await cli(['history', 'show', id, '--json'], historyEnv);
        expect(shown.code, shown.stderr).toBe(0);
        expect(JSON.parse(shown.stdout)).toMatchObject({ status: 'completed', input: text });
      } else {
        expect(state).toBe('completed');
      }
    }
    await waitFor(() => !entryNamed('twice') && !alive(spawned.pid), 20_000, 'the helper to end after two answers');
    expect(fs.readFileSync(spawned.log_file, 'utf8')).toContain('ending: its lease ran out: 2 answered task(s) of the 2 it was kept for');
  }, 60_000);

  it('the settings give the default lease (spawn.keepTurns); --keep-turns 0 turns it off', async () => {
    expect((await cli(['config', 'set', 'spawn.keepTurns', '5', '--scope', 'project'])).code).toBe(0);
    await spawn('defaulted');
    expect(entryNamed('defaulted').lease).toMatchObject({ keep_idle_s: null, keep_turns: 5 });
    await spawn('unleased', '--keep-turns', '0');
    expect(entryNamed('unleased').lease).toBeUndefined();
    for (const name of ['defaulted', 'unleased']) expect((await cli(['kill', name, '-f'])).code).toBe(0);
    expect((await cli(['config', 'set', 'spawn.keepTurns', '', '--scope', 'project'])).code).toBe(0);
    const bad = await cli(['spawn', 'echo', '--keep-idle', 'soon']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("invalid --keep-idle 'soon'");
  }, 60_000);

  it('POST /spawn takes keep_idle and keep_turns (and refuses a bad one with 400)', async () => {
    const one = await postJson(`${lead.endpoint}/spawn`, { profile: 'echo', name: 'viahttp', terminal: 'background', keep_idle: '10m', keep_turns: 4 });
    expect(one.status).toBe(201);
    expect(entryNamed('viahttp').lease).toMatchObject({ keep_idle_s: 600, keep_turns: 4, turns_answered: 0 });
    // list and status say when it ends.
    await waitFor(() => entryNamed('viahttp')?.lease.idle_ends_at, 15_000, 'the idle clock to run');
    const listed = await cli(['list']);
    expect(listed.stdout).toMatch(
      /Leases:\n {2}viahttp: ends by itself after 10m READY with no task \(idle now: in \S+\), or after 4 answered task\(s\) \(0 so far\)/,
    );
    expect((await cli(['status', 'viahttp'])).stdout).toMatch(/lease {8}ends by itself after 10m READY with no task/);
    expect((await cli(['kill', 'viahttp', '-f'])).code).toBe(0);
    for (const bad of [{ keep_idle: 'soon' }, { keep_idle: -1 }, { keep_turns: 1.5 }, { keep_turns: -1 }, { keep_idle: 'x'.repeat(100) }]) {
      const res = await postJson(`${lead.endpoint}/spawn`, { profile: 'echo', terminal: 'background', ...bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.error.code).toBe('invalid_input');
    }
  }, 60_000);
});

describe('the depth guard', () => {
  it('an agent spawned by an agent carries its depth; beyond SYNAPSE_MAX_SPAWN_DEPTH, spawn (CLI and POST /spawn) refuses', async () => {
    const env = { ...t.env, SYNAPSE_MAX_SPAWN_DEPTH: '1' };
    // The lead was started by a person (depth 0): what its CLI spawns is depth 1.
    const child = await cli(['spawn', 'echo', '--name', 'depth1', '--terminal', 'background', '--json'], { ...env, SYNAPSE_AGENT_ID: lead.agentId });
    expect(child.code, child.stderr).toBe(0);
    const d1 = entryNamed('depth1');
    expect(d1.spawn_depth).toBe(1);
    expect((await cli(['status', 'depth1'])).stdout).toContain('spawned      at depth 1');

    // What depth1's CLI runs carries its depth (SYNAPSE_SPAWN_DEPTH) and its id: depth 2 is refused.
    const before = entries().length;
    const deeper = await cli(['spawn', 'echo', '--name', 'depth2', '--terminal', 'background'], {
      ...env,
      SYNAPSE_AGENT_ID: d1.agent_id,
      SYNAPSE_SPAWN_DEPTH: '1',
    });
    expect(deeper.code).toBe(1);
    expect(deeper.stderr).toContain(`not spawning: ${d1.agent_id} is at spawn depth 1 and SYNAPSE_MAX_SPAWN_DEPTH is 1`);
    // Without the variable, its registry entry still says how deep it is; `synapse start` is guarded too.
    const started = await cli(['start', 'echo', '--name', 'depth2'], { ...env, SYNAPSE_AGENT_ID: d1.agent_id });
    expect(started.code).toBe(1);
    expect(started.stderr).toContain('not spawning');
    const team = await cli(['team', 'start', 'echo:a', 'echo:b', '--all-new', '--terminal', 'background'], { ...env, SYNAPSE_AGENT_ID: d1.agent_id });
    expect(team.code).toBe(1);
    expect(team.stderr).toContain('not spawning');

    // depth1's own POST /spawn: its process has SYNAPSE_MAX_SPAWN_DEPTH=1 and depth 1.
    const http = await postJson(`${d1.endpoint}/spawn`, { profile: 'echo', name: 'depth2', terminal: 'background' });
    expect(http.status).toBe(403);
    expect(http.body.error).toMatchObject({ code: 'spawn_depth_exceeded' });
    expect(entries().length).toBe(before);
    expect((await cli(['kill', 'depth1', '-f'])).code).toBe(0);
  }, 90_000);
});
