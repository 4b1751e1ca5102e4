// OpenCode 1.18.33 (npm `opencode-ai`) under `synapse opencode`, against the offline mock model
// server (OpenAI Chat Completions). Its home (test/support/cli-home.mjs) sets `permission.bash =
// "ask"` so shell commands ask first, and keeps OpenCode off the network (see prepareOpencodeHome).
import { afterEach, describe, expect, it } from 'vitest';
import { foregroundScenario } from './foreground.js';
import { cleanupE2E } from './harness.js';
import { agentToAgentScenario, approveScenario, denyScenario, multilineScenario, priorityScenario, SPECS, startupScenario, textTurnScenario } from './scenarios.js';

const spec = SPECS.opencode;

describe('synapse opencode (real OpenCode, headless)', () => {
  afterEach(cleanupE2E);

  it('reaches READY and delivers and completes the start-up instruction', () => startupScenario(spec), 90_000);
  it('answers a text turn with the model answer and no TUI chrome', () => textTurnScenario(spec), 90_000);
  it('delivers a multi-line message with quotes, backticks, $(…), tabs and non-ASCII intact as one message', () => multilineScenario(spec), 90_000);
  it('turns the permission dialog into input-required and, approved over HTTP, runs the command', () => approveScenario(spec), 90_000);
  it('denies the same dialog over HTTP: nothing runs and the next message is handled', () => denyScenario(spec), 90_000);
  it('priority 5 interrupts a long turn within 2 s and the urgent message is handled', () => priorityScenario(spec), 90_000);
  it('holds a delivery while the human has half-typed text, and delivers once the box is cleared', () => foregroundScenario('opencode'), 120_000);
  it('agent to agent: OpenCode runs `synapse send … --wait` and gets the other OpenCode answer back', () => agentToAgentScenario(spec), 150_000);
});
