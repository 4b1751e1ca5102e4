import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AGENT_NODE_FLAGS } from '../../../src/runtime/launch.js';
import { cleanupAll, postJson, startHeadless, tempHome, textMessage, waitFor, waitForTask } from '../../support/synapse.js';

/** An agent idle after work hands the heap back once (src/runtime/idle-gc.ts), and says so in its log. */
const t = tempHome();
afterEach(cleanupAll);
afterAll(() => t.cleanup());

const LOGGED = /idle after work: full GC, heap used [\d.]+ -> [\d.]+ MiB of [\d.]+, RSS [\d.]+ MiB/;

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
