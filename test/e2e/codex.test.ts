// Codex CLI 0.171.0 under `synapse codex`, against the offline mock model server (OpenAI Responses).
import { afterEach, describe, expect, it } from 'vitest';
import { artifact, cleanupE2E, framed, send, startAgent, startMock, waitForState } from './harness.js';
import { realCliSuite } from './suite.js';

realCliSuite('codex', 'Codex CLI', 'Codex');

describe('synapse codex -- <flags the profile passes too> (real Codex CLI)', () => {
  afterEach(cleanupE2E);

  it('`-- --no-daemon` reaches Codex once (it exits 2 on a flag given twice) and the agent answers', async () => {
    const mock = await startMock();
    const agent = await startAgent('codex', mock, { cliArgs: ['--no-daemon'] });
    expect(agent.events().map((e) => e.msg)).toContain('passed once: --no-daemon (the codex profile passes it, and so do the CLI args)');
    const text = 'hello with --no-daemon passed twice';
    const done = await waitForState(agent, (await send(agent, text)).id);
    expect(done.status).toBe('completed');
    expect(artifact(done)).toBe(`MOCK: ${framed(text)}`);
  });
});
