// Codex CLI 0.171.0 under `synapse codex`, against the offline mock model server.
import { afterEach, describe, it } from 'vitest';
import { cleanupE2E } from './harness.js';
import { foregroundScenario } from './foreground.js';
import { agentToAgentScenario, approveScenario, denyScenario, multilineScenario, priorityScenario, SPECS, startupScenario, textTurnScenario } from './scenarios.js';

const spec = SPECS.codex;

describe('synapse codex (real Codex CLI, headless)', () => {
  afterEach(cleanupE2E);

  it('reaches READY and delivers and completes the start-up instruction', () => startupScenario(spec), 90_000);
  it('answers a text turn with the model answer and no TUI chrome', () => textTurnScenario(spec), 90_000);
  it('delivers a multi-line message with quotes, backticks, $(…), tabs and non-ASCII intact as one message', () => multilineScenario(spec), 90_000);
  it('turns the permission dialog into input-required and runs the command when approved over HTTP', () => approveScenario(spec), 90_000);
  it('denied over HTTP: nothing runs, the task ends and the CLI takes the next message', () => denyScenario(spec), 90_000);
  it('priority 5 interrupts a long turn within 2 s and the urgent message is handled', () => priorityScenario(spec), 90_000);
  it('agent to agent: Codex runs `synapse send … --wait` and gets the other Codex answer back', () => agentToAgentScenario(spec), 120_000);
});

describe('synapse codex (real Codex CLI, foreground in tmux)', () => {
  afterEach(cleanupE2E);

  it('holds a delivery while the human has half-typed text, and delivers once the line is cleared', () => foregroundScenario('codex'), 120_000);
});
