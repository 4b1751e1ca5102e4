// Gemini CLI 0.61.0 under `synapse gemini`, against the offline mock model server (Gemini API).
import { afterEach, describe, expect, it } from 'vitest';
import { artifact, cleanupE2E, framed, report, send, startAgent, startMock, waitForState } from './harness.js';
import { realCliSuite } from './suite.js';

realCliSuite('gemini', 'Gemini CLI', 'Gemini');

describe('synapse gemini where CI=true (real Gemini CLI)', () => {
  afterEach(cleanupE2E);

  it('starts its TUI and answers, with CI=true, GITHUB_ACTIONS=true and NO_COLOR=1 in the environment (not passed on)', async () => {
    // Alone, Gemini CLI 0.61.0 takes CI=true or GITHUB_ACTIONS=true for headless mode and exits 42
    // ("No input provided via stdin"); NO_COLOR=1 draws an input box the profile cannot read.
    const mock = await startMock();
    const t0 = Date.now();
    const agent = await startAgent('gemini', mock, { env: { CI: 'true', GITHUB_ACTIONS: 'true', NO_COLOR: '1' } });
    const took = Date.now() - t0;
    expect(agent.events().map((e) => e.msg)).toContain(
      'not passed to gemini: CI, GITHUB_ACTIONS, NO_COLOR (they would make it run as if nobody started it; guides/profiles.md)',
    );
    const text = 'hello from a CI runner';
    const done = await waitForState(agent, (await send(agent, text)).id);
    expect(done.status).toBe('completed');
    expect(artifact(done)).toBe(`MOCK: ${framed(text)}`);
    report({ kind: 'ci-start', cli: 'gemini', env: 'CI=true GITHUB_ACTIONS=true NO_COLOR=1', spawnToTakingMessagesMs: took });
  });
});
