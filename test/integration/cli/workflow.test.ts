import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, runCli, tempHome, waitFor } from '../../support/synapse.js';

/**
 * `synapse workflow run` against real echo agents started with `synapse start`, each command a
 * real `synapse` process in a temporary HOME and project. The skill generation and sync tests
 * are in workflow-skills.test.ts.
 */

const t = tempHome();
const project = path.join(t.home, 'project');
fs.mkdirSync(path.join(project, '.synapse', 'workflows'), { recursive: true });
const started: Array<{ pid: number; agent_id: string; endpoint: string; env: NodeJS.ProcessEnv }> = [];

async function start(name: string, env = t.env, cwd = project): Promise<{ agent_id: string; endpoint: string }> {
  const r = await runCli(['start', 'echo', '--name', name, '--json'], { env, cwd, timeoutMs: 30_000 });
  expect(r.code, r.stderr).toBe(0);
  const entry = JSON.parse(r.stdout) as { pid: number; agent_id: string; endpoint: string };
  started.push({ ...entry, env });
  await waitFor(async () => (await getJson(`${entry.endpoint}/status`)).body.ready_for_messages === true, 15_000, `${name} to take messages`);
  return entry;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Stops the agents this file started (all, or those of `env`) by process group and waits until each is gone. */
async function stopAll(env?: NodeJS.ProcessEnv): Promise<void> {
  const stopping = started.filter((a) => env === undefined || a.env === env);
  started.splice(0, started.length, ...started.filter((a) => !stopping.includes(a)));
  for (const a of stopping) {
    try {
      process.kill(-a.pid, 'SIGTERM');
    } catch {
      continue; // gone already
    }
    await waitFor(() => !alive(a.pid), 10_000, `${a.agent_id} to exit`);
  }
}

function writeWorkflow(name: string, yaml: string, dir = project): void {
  fs.writeFileSync(path.join(dir, '.synapse', 'workflows', `${name}.yaml`), yaml);
}

const run = (args: string[], env = t.env, cwd = project) => runCli(['workflow', 'run', ...args], { env, cwd, timeoutMs: 60_000 });
const tasksOf = async (endpoint: string) => (await getJson(`${endpoint}/tasks`)).body as Array<{ id: string }>;

let bob: { agent_id: string; endpoint: string };
let carol: { agent_id: string; endpoint: string };

beforeAll(async () => {
  [, bob, carol] = await Promise.all([start('alice'), start('bob'), start('carol')]);
}, 90_000);

afterAll(async () => {
  await stopAll();
  t.cleanup();
}, 60_000);

describe('synapse workflow run', () => {
  it("passes step 1's answer into step 2's message: the echo agent's answer shows what it was sent", async () => {
    writeWorkflow(
      'relay',
      `name: relay
steps:
  - target: alice
    message: first question
    response_mode: wait
  - target: bob
    message: "alice said: {{steps.1.answer}}"
    response_mode: wait
    priority: 4
`,
    );
    const r = await run(['relay', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ workflow: 'relay', ok: true, dry_run: false });
    expect(summary.steps.map((s: { status: string }) => s.status)).toEqual(['ok', 'ok']);
    const first = summary.steps[0].answer as string;
    expect(first).toBe('ECHO: A2A: [REPLY EXPECTED] first question');
    expect(summary.steps[1].message).toBe(`alice said: ${first}`);
    // Bob echoes what he received: alice's answer, inside step 2's message.
    expect(summary.steps[1]).toMatchObject({ agent_id: bob.agent_id, task_status: 'completed', priority: 4 });
    expect(summary.steps[1].answer).toBe(`ECHO: A2A: [REPLY EXPECTED] alice said: ${first}`);
    // With --json the progress lines are on stderr, one per step.
    expect(r.stderr).toMatch(/\[1\/2\] send to alice \(wait, priority 3\)/);
    expect(r.stderr).toMatch(/\[2\/2\] send to bob \(wait, priority 4\)/);

    const human = await run(['relay']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(
      /\[1\/2\] send to alice[^\n]*\n {6}ok: synapse-echo-\d+ task [0-9a-f]{8} completed\n {6}answer: ECHO: A2A: \[REPLY EXPECTED\] first question\n/,
    );
    expect(human.stdout).toMatch(/workflow relay: 2 ok, 0 failed, 0 skipped, of 2\n$/);
  }, 60_000);

  it('--dry-run prints the steps and sends nothing', async () => {
    writeWorkflow(
      'to-carol',
      `name: to-carol
steps:
  - target: carol
    message: hello carol
    response_mode: wait
  - target: carol
    message: "you said {{steps.1.answer}}"
    response_mode: silent
  - target: nobody-here
    message: would fail
`,
    );
    const before = await tasksOf(carol.endpoint); // its start-up instruction, nothing else
    const dry = await run(['to-carol', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('[1/3] would send to carol (wait, priority 3)\n      hello carol\n');
    expect(dry.stdout).toContain('      you said {{steps.1.answer}}\n');
    expect(dry.stdout).toContain('[3/3] would send to nobody-here (default mode, priority 3) - not running now\n');
    expect(dry.stdout).toMatch(/workflow to-carol: dry run, 3 step\(s\), nothing sent\n$/);
    expect(await tasksOf(carol.endpoint)).toEqual(before);
    // The same steps for real do reach carol (so the empty list above is not an agent that records nothing).
    const real = await run(['to-carol', '--json']);
    expect(real.code).toBe(3);
    await waitFor(async () => (await tasksOf(carol.endpoint)).length === before.length + 2, 10_000, "carol's two tasks");
  }, 60_000);

  it('stops at a failed step by default; --continue-on-error goes on, exits non-zero and sums up', async () => {
    writeWorkflow(
      'gap',
      `name: gap
steps:
  - target: bob
    message: before the gap
    response_mode: silent
  - target: ghost
    message: nobody reads this
  - target: bob
    message: after the gap
    response_mode: wait
`,
    );
    const stopped = await run(['gap', '--json']);
    expect(stopped.code).toBe(3); // target_not_found, as `synapse send`
    const s1 = JSON.parse(stopped.stdout);
    expect(s1.ok).toBe(false);
    expect(s1.steps.map((s: { status: string }) => s.status)).toEqual(['ok', 'failed', 'skipped']);
    expect(s1.steps[1].error).toMatchObject({ code: 'target_not_found' });

    const goOn = await run(['gap', '--continue-on-error']);
    expect(goOn.code).toBe(3);
    expect(goOn.stdout).toMatch(/\[2\/3\] send to ghost[^\n]*\n {6}FAILED target_not_found: no agent matches "ghost"/);
    expect(goOn.stdout).toMatch(/\[3\/3\] send to bob[^\n]*\n {6}ok: [^\n]+completed\n {6}answer: ECHO: A2A: \[REPLY EXPECTED\] after the gap\n/);
    expect(goOn.stdout).toMatch(/workflow gap: 2 ok, 1 failed \(step 2 \(ghost\)\), 0 skipped, of 3\n$/);
  }, 60_000);

  it('a step whose answer source failed fails too, and names the step it needed', async () => {
    writeWorkflow(
      'chain',
      `name: chain
steps:
  - target: ghost
    message: no one
    response_mode: wait
  - target: bob
    message: "{{steps.1.answer}}"
`,
    );
    const r = await run(['chain', '--continue-on-error', '--json']);
    expect(r.code).toBe(3);
    const steps = JSON.parse(r.stdout).steps;
    expect(steps[1]).toMatchObject({ status: 'failed', task_id: null, error: { code: 'blocked', message: expect.stringContaining('step 1 has no answer') } });
  }, 30_000);

  it('--auto-spawn starts a target that is not running (its name as the profile), then sends', async () => {
    const other = tempHome();
    const dir = path.join(other.home, 'project');
    fs.mkdirSync(path.join(dir, '.synapse', 'workflows'), { recursive: true });
    try {
      writeWorkflow('spawn', 'name: spawn\nsteps:\n  - target: echo\n    message: are you there\n    response_mode: wait\n', dir);
      const dry = await run(['spawn', '--dry-run', '--auto-spawn'], other.env, dir);
      expect(dry.stdout).toContain('[1/1] would send to echo (wait, priority 3), would start it first (auto_spawn)');
      expect(fs.existsSync(other.env.SYNAPSE_REGISTRY_DIR!) ? fs.readdirSync(other.env.SYNAPSE_REGISTRY_DIR!) : []).toEqual([]);

      const r = await run(['spawn', '--auto-spawn', '--json'], other.env, dir);
      const entries = fs
        .readdirSync(other.env.SYNAPSE_REGISTRY_DIR!)
        .map((f) => JSON.parse(fs.readFileSync(path.join(other.env.SYNAPSE_REGISTRY_DIR!, f), 'utf8')));
      for (const e of entries) started.push({ ...e, env: other.env });
      expect(r.code, r.stderr).toBe(0);
      const step = JSON.parse(r.stdout).steps[0];
      expect(step.spawned).toMatch(/^started synapse-echo-\d+ on http:\/\/127\.0\.0\.1:\d+/);
      expect(step).toMatchObject({ status: 'ok', answer: 'ECHO: A2A: [REPLY EXPECTED] are you there' });
      expect(entries.map((e) => e.agent_id)).toEqual([step.agent_id]);
    } finally {
      await stopAll(other.env);
      other.cleanup();
    }
  }, 90_000);

  it('an unknown workflow and a bad file are errors that say what to do', async () => {
    const missing = await run(['nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no workflow "nope"');
    expect(missing.stderr).toContain('synapse workflow create nope');
    writeWorkflow('bad', 'name: bad\nsteps:\n  - target: bob\n    message: "{{steps.2.answer}}"\n  - target: bob\n    message: x\n');
    const bad = await run(['bad']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/step 1 uses \{\{steps\.2\.answer\}\}, but only an earlier step/);
  }, 30_000);
});
