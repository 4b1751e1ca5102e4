// Codex CLI 0.171.0 with the Synapse MCP server (`synapse mcp install codex`), against the offline mock model server.
import { afterEach, describe, it } from 'vitest';
import { cleanupE2E, traceSummary } from './harness.js';
import { mcpRoundTripScenario } from './mcp-scenario.js';

describe('synapse codex with `synapse mcp install codex` (real Codex CLI, headless)', () => {
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') console.log(traceSummary());
    await cleanupE2E();
  });

  it(
    'offers the Synapse MCP tools to the model, skips the start-up instruction, and send_message reaches another Codex and returns its answer',
    () => mcpRoundTripScenario('codex'),
    180_000,
  );
});
