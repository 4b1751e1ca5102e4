import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AGENT_NODE_FLAGS } from '../../../src/runtime/launch.js';
import { bareCodeCache, codeCacheProbe, expectProbe } from '../../support/code-cache-probe.js';
import { cleanupAll, postJson, startHeadless, tempHome, textMessage, waitFor, waitForTask, type AgentHandle } from '../../support/synapse.js';

/**
 * V8's compilers past its interpreter, the optimizing one (TurboFan) and the baseline one
 * (Sparkplug), are held off from the CLI's spawn until the CLI has written
 * SYNAPSE_OPTIMIZE_AFTER_KB (src/runtime/optimizer-gate.ts). Seen from outside a real agent:
 * with --trace-opt V8 names every function it optimizes, with --trace-baseline-batch-compilation
 * every one it queues for Sparkplug; and V8 takes a code cache only under its default flags, so a
 * code cache made by a bare node is refused while either is held and taken again once both are on.
 */
const t = tempHome();
afterEach(cleanupAll);
afterAll(() => t.cleanup());

const OPTIMIZED = /completed optimizing/;
const BASELINE = /Enqueued SFI/;
const TURNED_ON = /V8's compilers on \(turbofan, sparkplug\): echo has written (\d+) KiB \(SYNAPSE_OPTIMIZE_AFTER_KB\)/;
/** Messages are typed into the CLI as they are (not left in a file), and the echo CLI prints them back: output. */
const env = { ...t.env, ECHO_THINK_MS: '0', SYNAPSE_LONG_MESSAGE_THRESHOLD: '100000', SYNAPSE_IDLE_GC_MS: '0' };

async function send(agent: AgentHandle, text: string): Promise<void> {
  const sent = await postJson(`${agent.endpoint}/tasks/send`, textMessage(text));
  expect(sent.status).toBe(202);
  expect((await waitForTask(agent.endpoint, sent.body.task.id, 20_000)).status).toBe('completed');
}

/** What the agent wrote from its first log line on (before it, the bin and the CLI's start-up path ran, with both compilers on). */
function sinceFirstLogLine(output: string): string {
  const at = output.indexOf('{"level"');
  expect(at).toBeGreaterThan(-1);
  return output.slice(at);
}

describe("an agent's compilers", () => {
  it('optimizes nothing through start-up, its start-up instruction and small messages; the CLI output of the budget turns it on', async () => {
    const agent = await startHeadless('echo', { env: { ...env, SYNAPSE_OPTIMIZE_AFTER_KB: '8' }, nodeFlags: ['--trace-opt', ...AGENT_NODE_FLAGS] });
    for (let i = 0; i < 5; i++) await send(agent, `small message ${i}`);
    expect(agent.output()).toContain('accepting messages');
    expect(agent.output()).not.toMatch(OPTIMIZED);
    expect(agent.output()).not.toMatch(TURNED_ON);

    // ~3,000 characters of output a message: the typed text and its echo.
    for (let i = 0; i < 3; i++) await send(agent, `${'y'.repeat(1500)} ${i}`);
    const on = await waitFor(() => TURNED_ON.exec(agent.output()), 5000, 'the compilers turned on in the log');
    expect(Number(on[1])).toBeGreaterThanOrEqual(8);
    // From then on V8 optimizes as it would anywhere: parsing the CLI's screen is what gets hot.
    for (let i = 0; i < 5 && !OPTIMIZED.test(agent.output()); i++) await send(agent, `${'z'.repeat(1500)} ${i}`);
    await waitFor(() => OPTIMIZED.test(agent.output()), 10_000, 'a function optimized once the optimizer is on');
  });

  it('queues nothing for the baseline compiler through start-up, its start-up instruction and small messages; the budget turns it on', async () => {
    const agent = await startHeadless('echo', {
      env: { ...env, SYNAPSE_OPTIMIZE_AFTER_KB: '8' },
      nodeFlags: ['--trace-baseline-batch-compilation', ...AGENT_NODE_FLAGS],
    });
    await waitFor(() => agent.output().includes('accepting messages (start-up instruction completed)'), 10_000, 'the start-up instruction done');
    // xterm builds its parser's table in a loop after the hold: queued at every start without it (below).
    expect(agent.output()).not.toMatch(/Enqueued SFI addMany /);
    for (let i = 0; i < 3; i++) await send(agent, `small message ${i}`);
    const held = sinceFirstLogLine(agent.output());
    expect(held).not.toMatch(BASELINE);
    expect(held).not.toMatch(TURNED_ON);

    for (let i = 0; i < 3; i++) await send(agent, `${'y'.repeat(1500)} ${i}`);
    await waitFor(() => TURNED_ON.test(agent.output()), 5000, 'the compilers turned on in the log');
    for (let i = 0; i < 3 && !BASELINE.test(agent.output().slice(agent.output().search(TURNED_ON))); i++) await send(agent, `after ${i}`);
    expect(agent.output().slice(agent.output().search(TURNED_ON))).toMatch(BASELINE);
  });

  it('compiles start-up code with the baseline compiler at once with SYNAPSE_OPTIMIZE_AFTER_KB=0', async () => {
    const agent = await startHeadless('echo', {
      env: { ...env, SYNAPSE_OPTIMIZE_AFTER_KB: '0' },
      nodeFlags: ['--trace-baseline-batch-compilation', ...AGENT_NODE_FLAGS],
    });
    await waitFor(() => agent.output().includes('accepting messages (start-up instruction completed)'), 10_000, 'the start-up instruction done');
    expect(agent.output()).toMatch(/Enqueued SFI addMany /);
    expect(sinceFirstLogLine(agent.output())).toMatch(BASELINE);
  });

  it("leaves V8's flags as they were, and a built-in code cache usable, only once the CLI's output has turned it on", async () => {
    const src = bareCodeCache(t.home);
    const held = codeCacheProbe(t.home, src, 'synapse.js');
    const idle = await startHeadless('echo', { env: { ...env, NODE_OPTIONS: `--require ${held.file}`, PROBE_OUT: held.out }, nodeFlags: AGENT_NODE_FLAGS });
    await idle.stop();
    expectProbe(held.out, { rejected: true, young: 'small' });

    const released = codeCacheProbe(t.home, src, 'synapse.js');
    const worked = await startHeadless('echo', {
      env: { ...env, SYNAPSE_OPTIMIZE_AFTER_KB: '2', NODE_OPTIONS: `--require ${released.file}`, PROBE_OUT: released.out },
      nodeFlags: AGENT_NODE_FLAGS,
    });
    await send(worked, 'x'.repeat(1500));
    await waitFor(() => TURNED_ON.test(worked.output()), 5000, 'the compilers turned on in the log');
    await worked.stop();
    expectProbe(released.out, { rejected: false, young: 'small' });
  });

  it('is on from the start with SYNAPSE_OPTIMIZE_AFTER_KB=0: the flags stay the defaults', async () => {
    const src = bareCodeCache(t.home);
    const probe = codeCacheProbe(t.home, src, 'synapse.js');
    const agent = await startHeadless('echo', {
      env: { ...env, SYNAPSE_OPTIMIZE_AFTER_KB: '0', NODE_OPTIONS: `--require ${probe.file}`, PROBE_OUT: probe.out },
      nodeFlags: AGENT_NODE_FLAGS,
    });
    await agent.stop();
    expectProbe(probe.out, { rejected: false, young: 'small' });
    expect(agent.output()).not.toMatch(TURNED_ON);
  });

  it('holds nothing in a node that runs --jitless from NODE_OPTIONS (the one compiler flag node allows there)', async () => {
    const agent = await startHeadless('echo', { env: { ...env, SYNAPSE_OPTIMIZE_AFTER_KB: '2', NODE_OPTIONS: '--jitless' }, nodeFlags: AGENT_NODE_FLAGS });
    await send(agent, 'x'.repeat(1500));
    await send(agent, 'done');
    expect(agent.output()).toContain('accepting messages');
    // The budget was spent, but nothing was held, so nothing is turned on.
    expect(agent.output()).not.toMatch(/V8's compilers on/);
  });
});
