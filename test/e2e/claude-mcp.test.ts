// Claude Code 2.1.197 with the Synapse MCP server (`synapse mcp install claude`), against the
// offline mock model server: the model is really offered Synapse's tools, and a call of
// send_message reaches a second wrapped Claude and brings its answer back.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BIN,
  artifact,
  cleanupE2E,
  defer,
  getJson,
  modelTurns,
  send,
  startAgent,
  startMock,
  traceSummary,
  turnOf,
  userTexts,
  waitFor,
  waitForState,
  type MockRequest,
} from './harness.js';

const TOOLS = ['bootstrap_agent', 'list_agents', 'send_message', 'reply', 'board_create', 'lock_file', 'memory_search', 'analyze_task'];
const toolNames = (r: MockRequest): string[] => (Array.isArray(r.body?.tools) ? r.body.tools.map((t: { name: string }) => t.name) : []);

describe('synapse claude with `synapse mcp install claude` (real Claude Code, headless)', () => {
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') console.log(traceSummary());
    await cleanupE2E();
  });

  it('offers the Synapse MCP tools to the model, skips the start-up instruction, and send_message reaches another Claude and returns its answer', async () => {
    const mock = await startMock();
    const registryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-e2e-registry-'));
    defer('shared registry', () => fs.rmSync(registryDir, { recursive: true, force: true }));
    const receiver = await startAgent('claude', mock, { registryDir, env: { SYNAPSE_REPLY_GRACE: '1' } });
    const sender = await startAgent('claude', mock, {
      registryDir,
      autoApprove: true,
      setup: (home, env) => {
        // As a user would: the entry in the project's .mcp.json (install also approves it in .claude/settings.local.json).
        const r = spawnSync(process.execPath, [BIN, 'mcp', 'install', 'claude', '--command', `${process.execPath} ${BIN}`], {
          cwd: home.cwd,
          env,
          encoding: 'utf8',
        });
        expect(r.status, r.stderr).toBe(0);
      },
    });

    // No start-up instruction was typed into the sender: its CLI has Synapse over MCP.
    const { body: senderTasks } = await getJson(`${sender.endpoint}/tasks?limit=50`);
    expect((senderTasks as any[]).filter((t) => t.metadata?.kind === 'bootstrap')).toEqual([]);
    expect(sender.output()).toContain("no start-up instruction: claude's MCP configuration starts the Synapse MCP server");

    // Claude Code connects its MCP servers in the background: its first turns may come before the
    // tools are there (it offers WaitForMcpServers then). Turns until one offers them.
    await waitFor(
      async () => {
        const probe = await send(sender, `are the tools there? ${Date.now()}`);
        await waitForState(sender, probe.id);
        const last = modelTurns(mock)
          .filter((r) => turnOf('claude', r).userText.includes('are the tools there?'))
          .at(-1);
        return last !== undefined && toolNames(last).some((n) => n.startsWith('mcp__synapse__'));
      },
      60_000,
      'a model turn that offers the Synapse MCP tools',
    );

    const question = 'ping over MCP';
    const args = JSON.stringify({ target: receiver.agentId, message: question, response_mode: 'wait', force: true });
    const task = await send(sender, `ask the other agent [[mcp: send_message ${args}]]`);
    const done = await waitForState(sender, task.id, undefined, 90_000);
    expect(done.status).toBe('completed');

    // The model request that asked carried the Synapse tools (as Claude Code names MCP tools).
    const asking = modelTurns(mock).find((r) => turnOf('claude', r).userText.includes('[[mcp: send_message'));
    expect(asking, 'a model turn with the send_message directive').toBeTruthy();
    const offered = toolNames(asking!);
    for (const tool of TOOLS) expect(offered, `tools offered: ${offered.join(', ')}`).toContain(`mcp__synapse__${tool}`);

    // The receiver's CLI got the message framed with the sender's identity, and answered it.
    const asked = `A2A: [From: ${sender.agentId} (${sender.agentId})] [REPLY EXPECTED] ${question}`;
    expect(userTexts('claude', mock)).toContain(asked);
    const { body } = await getJson(`${receiver.endpoint}/tasks?limit=50`);
    const received = (body as any[]).find((t) => t.metadata?.sender?.sender_id === sender.agentId);
    expect(received?.status).toBe('completed');
    const reply = artifact(received);
    expect(reply).toBe(`MOCK: ${asked}`);

    // The tool result the sender's model got back holds the receiver's answer, and so does the sender's task.
    const toolTurn = modelTurns(mock).find((r) => (turnOf('claude', r).toolOutput ?? '').includes(reply));
    expect(toolTurn, "the sender model got the other agent's answer as the MCP tool's result").toBeTruthy();
    expect(JSON.parse(turnOf('claude', toolTurn!).toolOutput!)).toMatchObject({ target: receiver.agentId, status: 'completed', answer: reply });
    expect(artifact(done)).toContain('MOCK: tool said {"task_id"');
  }, 180_000);
});
