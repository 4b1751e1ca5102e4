// Gemini CLI 0.61.0 with the Synapse MCP server (`synapse mcp install gemini`), against the offline mock model server.
import { afterEach, describe, it } from 'vitest';
import { cleanupE2E, traceSummary } from './harness.js';
import { mcpRoundTripScenario } from './mcp-scenario.js';

describe('synapse gemini with `synapse mcp install gemini` (real Gemini CLI, headless)', () => {
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') console.log(traceSummary());
    await cleanupE2E();
  });

  it(
    'offers the Synapse MCP tools to the model, skips the start-up instruction, and send_message reaches another Gemini and returns its answer',
    () => mcpRoundTripScenario('gemini'),
    180_000,
  );
});
