// The MCP route, for every CLI whose MCP configuration `synapse mcp install` writes: the model is
// really offered Synapse's tools, and a call of send_message reaches a second wrapped agent,
// framed with the right sender, and brings its answer back as the tool's result.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import {
  BIN,
  artifact,
  defer,
  getJson,
  modelTurns,
  send,
  startAgent,
  startMock,
  turnOf,
  userTexts,
  waitFor,
  waitForState,
  type Cli,
  type MockRequest,
} from './harness.js';

/** How each CLI names an MCP server's tools in its model requests. */
const TOOL_PREFIX: Partial<Record<Cli, string>> = { claude: 'mcp__synapse__', gemini: 'mcp_synapse_' };
const TOOLS = ['bootstrap_agent', 'list_agents', 'send_message', 'reply', 'board_create', 'lock_file', 'memory_search', 'analyze_task'];

/** The tool names a model request offers (Anthropic `tools[].name`, Gemini `tools[].functionDeclarations[].name`). */
function toolNames(r: MockRequest): string[] {
  const tools: any[] = Array.isArray(r.body?.tools) ? r.body.tools : [];
  return tools
    .flatMap((t) => [t.name, ...(Array.isArray(t.functionDeclarations) ? t.functionDeclarations.map((d: { name: string }) => d.name) : [])])
    .filter(Boolean);
}

export async function mcpRoundTripScenario(cli: Cli): Promise<void> {
  const prefix = TOOL_PREFIX[cli]!;
  const mock = await startMock();
  const registryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-e2e-registry-'));
  defer('shared registry', () => fs.rmSync(registryDir, { recursive: true, force: true }));
  const receiver = await startAgent(cli, mock, { registryDir, env: { SYNAPSE_REPLY_GRACE: '1' } });
  const sender = await startAgent(cli, mock, {
    registryDir,
    autoApprove: true,
    // As a user would: `synapse mcp install <cli>` in the project, nothing else.
    setup: (home, env) => {
      const r = spawnSync(process.execPath, [BIN, 'mcp', 'install', cli, '--command', `${process.execPath} ${BIN}`], { cwd: home.cwd, env, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
    },
  });

  // No start-up instruction was typed into the sender: its CLI has Synapse over MCP.
  const { body: senderTasks } = await getJson(`${sender.endpoint}/tasks?limit=50`);
  expect((senderTasks as any[]).filter((t) => t.metadata?.kind === 'bootstrap')).toEqual([]);
  expect(sender.output()).toContain(`no start-up instruction: ${cli}'s MCP configuration starts the Synapse MCP server`);

  // A CLI may connect its MCP servers in the background (Claude Code offers WaitForMcpServers
  // until then): turns until one offers the Synapse tools.
  const probe = 'are the tools there?';
  await waitFor(
    async () => {
      const t = await send(sender, `${probe} ${Date.now()}`);
      await waitForState(sender, t.id);
      const last = modelTurns(mock)
        .filter((r) => turnOf(cli, r).userText.includes(probe))
        .at(-1);
      return last !== undefined && toolNames(last).some((n) => n.startsWith(prefix));
    },
    60_000,
    'a model turn that offers the Synapse MCP tools',
  );

  const question = 'ping over MCP';
  const args = JSON.stringify({ target: receiver.agentId, message: question, response_mode: 'wait', force: true });
  const task = await send(sender, `ask the other agent [[mcp: send_message ${args}]]`);
  const done = await waitForState(sender, task.id, undefined, 90_000);
  expect(done.status).toBe('completed');

  // The model request that asked offered the Synapse tools, under the CLI's names for them.
  const asking = modelTurns(mock).find((r) => turnOf(cli, r).userText.includes('[[mcp: send_message'));
  expect(asking, 'a model turn with the send_message directive').toBeTruthy();
  const offered = toolNames(asking!);
  for (const tool of TOOLS) expect(offered, `tools offered: ${offered.join(', ')}`).toContain(`${prefix}${tool}`);

  // The receiver's CLI got the message framed with the sender's identity, and answered it.
  const asked = `A2A: [From: ${sender.agentId} (${sender.agentId})] [REPLY EXPECTED] ${question}`;
  expect(userTexts(cli, mock)).toContain(asked);
  const { body } = await getJson(`${receiver.endpoint}/tasks?limit=50`);
  const received = (body as any[]).find((t) => t.metadata?.sender?.sender_id === sender.agentId);
  expect(received?.status).toBe('completed');
  const reply = artifact(received);
  expect(reply).toBe(`MOCK: ${asked}`);

  // The sender's model got the receiver's answer back as the MCP tool's result, and answered.
  const toolTurn = modelTurns(mock).find((r) => (turnOf(cli, r).toolOutput ?? '').includes(reply));
  expect(toolTurn, "the sender model got the other agent's answer as the MCP tool's result").toBeTruthy();
  expect(turnOf(cli, toolTurn!).toolOutput).toContain(`"target":"${receiver.agentId}"`);
  expect(artifact(done)).toContain('MOCK: tool said');
}
