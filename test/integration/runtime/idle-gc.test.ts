import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AGENT_NODE_FLAGS } from '../../../src/runtime/launch.js';
import { cleanupAll, postJson, startHeadless, tempHome, textMessage, waitFor, waitForTask } from '../../support/synapse.js';

/** An agent idle after work hands the heap back (src/runtime/idle-gc.ts), and says so in its log. */
const t = tempHome();
/** Preloaded into an agent (not into its CLI): V8's bytecode size, a line every 200 ms, to PROBE_OUT. */
const BYTECODE_PROBE = path.join(t.home, 'bytecode-probe.cjs');
fs.writeFileSync(
  BYTECODE_PROBE,
  `if (process.argv[1] && process.argv[1].endsWith('synapse.js')) {
  const v8 = require('node:v8');
  const fs = require('node:fs');
  setInterval(() => fs.appendFileSync(process.env.PROBE_OUT, v8.getHeapCodeStatistics().bytecode_and_metadata_size + '\\n'), 200).unref();
}
`,
);
afterEach(cleanupAll);
afterAll(() => t.cleanup());

const LOGGED = /idle after work: full GC, heap used [\d.]+ -> [\d.]+ MiB of [\d.]+, bytecode ([\d.]+) -> ([\d.]+) MiB, RSS [\d.]+ MiB/;
/** What `--trace-gc` prints for a full collection of V8's memory reducer. */
const REDUCER_GC = /Mark-Compact \(reduce\)/;

describe('the idle collection', () => {
  it('runs once a task has finished and the agent stayed without one for SYNAPSE_IDLE_GC_MS', async () => {
    const env = { ...t.env, ECHO_THINK_MS: '0', SYNAPSE_IDLE_GC_MS: '300' };
    const agent = await startHeadless('echo', { env, nodeFlags: AGENT_NODE_FLAGS });
    const logged = () => agent.output().match(new RegExp(LOGGED, 'g'))?.length ?? 0;
    // The start-up instruction's turn may have earned one already: count from the task on.
    const before = logged();
    const sent = await postJson(`${agent.endpoint}/tasks/send`, textMessage('hello'));
    expect(sent.status).toBe(202);
    expect((await waitForTask(agent.endpoint, sent.body.task.id)).status).toBe('completed');
    await waitFor(() => logged() > before, 10_000, 'the idle collection in the log');
    // Once per quiet spell: staying idle (five quiet times) collects no more.
    const after = logged();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(logged()).toBe(after);
  });

  it("counts the start-up as work: the first quiet spell after it drops the start-up's bytecode", async () => {
    // No start-up instruction, and no task: the agent's first READY is all that starts the wait.
    const env = { ...t.env, SYNAPSE_IDLE_GC_MS: '300', SYNAPSE_SKIP_STARTUP_INSTRUCTION: '1' };
    const agent = await startHeadless('echo', { env, nodeFlags: AGENT_NODE_FLAGS });
    await waitFor(() => LOGGED.test(agent.output()), 10_000, 'the idle collection in the log');
    const [, before, after] = LOGGED.exec(agent.output())!;
    // The start-up's code, that the collection dropped: ~1 MiB of bytecode, all but a few functions'.
    expect(Number(after)).toBeLessThan(Number(before) / 2);
  });

  it("makes V8's own collections lean while the agent is quiet: its memory reducer drops the code that ran once", async () => {
    // The reducer runs a while after a process goes quiet (~8 s after its last full collection):
    // 15 s here, so that the agent's lean spell has begun (a second after start-up), and the
    // agent's own collection (60 s) has not. A probe in each agent reads V8's bytecode size
    // every 200 ms (what --trace-flush-bytecode prints was not all there on a loaded machine).
    const flags = ['--trace-gc', '--gc-memory-reducer-start-delay-ms=15000', ...AGENT_NODE_FLAGS];
    const started = async (name: string, idleGcMs: string) => {
      const out = path.join(t.home, `bytecode-${name}.txt`);
      const env = { ...t.env, SYNAPSE_IDLE_GC_MS: idleGcMs, NODE_OPTIONS: `--require ${BYTECODE_PROBE}`, PROBE_OUT: out };
      return { agent: await startHeadless('echo', { env, nodeFlags: flags }), out };
    };
    const lean = await started('lean', '60000');
    const off = await started('off', '0');
    // It tries every 8 s, and collects once the process allocates little: not always at its first try.
    await waitFor(() => REDUCER_GC.test(lean.agent.output()) && REDUCER_GC.test(off.agent.output()), 50_000, "V8's memory reducer on both agents");
    await new Promise((resolve) => setTimeout(resolve, 600));
    await Promise.all([lean.agent.stop(), off.agent.stop()]);
    /** The most bytecode the agent held, and what it held last (after the reducer). */
    const bytecode = (out: string) => {
      const sizes = fs.readFileSync(out, 'utf8').trim().split('\n').map(Number);
      return { most: Math.max(...sizes), last: sizes[sizes.length - 1]! };
    };
    const l = bytecode(lean.out);
    const o = bytecode(off.out);
    // ~1.1 MiB after start-up; ~0.15 MiB after the reducer in a lean spell, ~1 MiB without one.
    expect(l.last, JSON.stringify(l)).toBeLessThan(l.most * 0.3);
    expect(o.last, JSON.stringify(o)).toBeGreaterThan(o.most * 0.7);
    expect(lean.agent.output()).not.toMatch(LOGGED);
  }, 80_000);

  it('needs no --expose-gc on the command line (node bin/synapse.js)', async () => {
    const agent = await startHeadless('echo', { env: { ...t.env, ECHO_THINK_MS: '0', SYNAPSE_IDLE_GC_MS: '300' }, nodeFlags: [] });
    const before = agent.output().match(new RegExp(LOGGED, 'g'))?.length ?? 0;
    const sent = await postJson(`${agent.endpoint}/tasks/send`, textMessage('hello'));
    await waitForTask(agent.endpoint, sent.body.task.id);
    await waitFor(() => (agent.output().match(new RegExp(LOGGED, 'g'))?.length ?? 0) > before, 10_000, 'the idle collection in the log');
  });

  it('is off with SYNAPSE_IDLE_GC_MS=0', async () => {
    const agent = await startHeadless('echo', { env: { ...t.env, ECHO_THINK_MS: '0', SYNAPSE_IDLE_GC_MS: '0' }, nodeFlags: AGENT_NODE_FLAGS });
    const sent = await postJson(`${agent.endpoint}/tasks/send`, textMessage('hello'));
    await waitForTask(agent.endpoint, sent.body.task.id);
    // Well past the quiet time of the other cases: a status read still answers, and nothing was collected.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(agent.output()).not.toMatch(LOGGED);
  });
});
