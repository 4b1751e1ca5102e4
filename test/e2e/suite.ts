// The e2e list, the same for every real CLI: each <cli>.test.ts registers it for its CLI,
// so vitest runs and reports the CLIs as separate files (one at a time, see vitest.config.ts).
import { afterEach, describe, it, type TestContext } from 'vitest';
import { foregroundScenario } from './foreground.js';
import { cleanupE2E, traceSummary, type Cli } from './harness.js';
import {
  agentToAgentScenario,
  approveScenario,
  denyScenario,
  failingCommandScenario,
  multilineScenario,
  priorityScenario,
  SPECS,
  startupScenario,
  textTurnScenario,
  usageScenario,
} from './scenarios.js';

/** A failed test shows what its agents saw (readings, deliveries, screens) before cleanup removes it. */
async function afterScenario(ctx: TestContext): Promise<void> {
  if (ctx.task.result?.state === 'fail') console.log(traceSummary());
  await cleanupE2E();
}

/** `name` is how the CLI is called in test titles ("Claude Code"), `short` in the agent-to-agent one. */
export function realCliSuite(cli: Cli, name: string, short: string): void {
  const spec = SPECS[cli];

  describe(`synapse ${cli} (real ${name}, headless)`, () => {
    afterEach(afterScenario);

    it('reaches READY and delivers and completes the start-up instruction', () => startupScenario(spec), 90_000);
    it('answers a text turn with the model answer and no TUI chrome', () => textTurnScenario(spec), 90_000);
    it("records the turn's token usage: history stats shows exactly the mock model's numbers", () => usageScenario(spec), 90_000);
    it('delivers a multi-line message with quotes, backticks, $(…), tabs and non-ASCII intact as one message', () => multilineScenario(spec), 90_000);
    it('turns the permission dialog into input-required and runs the command when approved over HTTP', () => approveScenario(spec), 90_000);
    it('denied over HTTP: nothing runs, the task ends and the CLI takes the next message', () => denyScenario(spec), 90_000);
    it(
      'a command that fails: the task completes with the answer and a structured COMMAND_NOT_FOUND error read off the screen',
      () => failingCommandScenario(spec),
      90_000,
    );
    it('priority 5 interrupts a long turn within 2 s and the urgent message is handled', () => priorityScenario(spec), 90_000);
    it(`agent to agent: ${short} runs \`synapse send … --wait\` and gets the other ${short}'s answer back`, () => agentToAgentScenario(spec), 150_000);
  });

  describe(`synapse ${cli} (real ${name}, foreground in tmux)`, () => {
    afterEach(afterScenario);

    it('holds a delivery while the human has half-typed text, and delivers once the input is cleared', () => foregroundScenario(cli), 120_000);
  });
}
