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
const TOOL_PREFIX: Partial<Record<Cli, string>> = { claude: 'mcp__synapse__', gemini: 'mcp_synapse_', codex: 'mcp__synapse__' };
const TOOLS = ['bootstrap_agent', 'list_agents', 'send_message', 'reply', 'board_create', 'lock_file', 'memory_search', 'analyze_task'];

/**
 * The tool names a model request offers: Anthropic `tools[].name`, Gemini
 * `tools[].functionDeclarations[].name`, Responses (Codex) function tools, also inside a
 * `namespace` (`<namespace>__<tool>`), and those its `tool_search` returned in the input.
 */
function toolNames(r: MockRequest): string[] {
  const names = (tools: unknown, namespace: string | null): string[] =>
    (Array.isArray(tools) ? tools : []).flatMap((t: any) => [
      ...(typeof t?.name === 'string' && t.type !== 'namespace' ? [namespace ? `${namespace}__${t.name}` : t.name] : []),
      ...(Array.isArray(t?.functionDeclarations) ? t.functionDeclarations.map((d: { name: string }) => d.name) : []),
      ...(t?.type === 'namespace' ? names(t.tools, t.name) : []),
    ]);
  const input: any[] = Array.isArray(r.body?.input) ? r.body.input : [];
  return [...names(r.body?.tools, null), ...input.filter((i) => i?.type === 'tool_search_output').flatMap((i) => names(i.tools, null))];
}

/**
 * Whether the request offers the Synapse tools: by name, or (Codex, which defers MCP tools behind
 * its `tool_search`) as a deferred namespace listed to the model.
 */
function offersSynapse(r: MockRequest, prefix: string): boolean {
  return toolNames(r).some((n) => n.startsWith(prefix)) || JSON.stringify(r.body?.input ?? '').includes('- mcp__synapse:');
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
      return last !== undefined && offersSynapse(last, prefix);
    },
    60_000,
    'a model turn that offers the Synapse MCP tools',
  );

  const question = 'ping over MCP';
  const args = JSON.stringify({ target: receiver.agentId, message: question, response_mode: 'wait', force: true });
  const task = await send(sender, `ask the other agent [[mcp: send_message ${args}]]`);
  const done = await waitForState(sender, task.id, undefined, 90_000);
  expect(done.status).toBe('completed');

  // A model request of that turn offered the Synapse tools, under the CLI's names for them (Codex:
  // the follow-up request after its tool_search, which the mock, as a model, made first).
  const turns = modelTurns(mock).filter((r) => turnOf(cli, r).userText.includes('[[mcp: send_message'));
  const asking = turns.find((r) => toolNames(r).includes(`${prefix}send_message`));
  expect(asking, `a model turn of the directive offering send_message; offered: ${turns.map((r) => toolNames(r).join(', ')).join(' | ')}`).toBeTruthy();
  const offered = toolNames(asking!);
  // Codex's tool_search returns the best matches only; the others offer every tool up front.
  for (const tool of cli === 'codex' ? ['send_message'] : TOOLS) expect(offered, `tools offered: ${offered.join(', ')}`).toContain(`${prefix}${tool}`);

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
