// Claude Code 2.1.197 with the Synapse MCP server (`synapse mcp install claude`), against the offline mock model server.
import { afterEach, describe, it } from 'vitest';
import { cleanupE2E, traceSummary } from './harness.js';
import { mcpRoundTripScenario } from './mcp-scenario.js';

describe('synapse claude with `synapse mcp install claude` (real Claude Code, headless)', () => {
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') console.log(traceSummary());
    await cleanupE2E();
  });

  it(
    'offers the Synapse MCP tools to the model, skips the start-up instruction, and send_message reaches another Claude and returns its answer',
    () => mcpRoundTripScenario('claude'),
    180_000,
  );
});
