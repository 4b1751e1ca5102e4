import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  artifactText,
  BIN,
  cleanupAll,
  postJson,
  startHeadless,
  tempHome,
  textMessage,
  waitFor,
  waitForTask,
  type AgentHandle,
} from '../../support/synapse.js';

/**
 * `synapse mcp serve` through the MCP SDK's own stdio client, against a real registry with real
 * echo agents: the server runs as the agent "quiet" (SYNAPSE_AGENT_ID), which never answers by
 * itself, so messages wait for the `reply` tool; "bob" answers everything.
 */

const t = tempHome();
const project = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-mcp-project-')));
let bob: AgentHandle;
let quiet: AgentHandle;
let client: Client;

beforeAll(async () => {
  [bob, quiet] = await Promise.all([
    startHeadless('echo', { env: t.env, args: ['--name', 'bob'], cwd: project }),
    startHeadless('echo', { env: { ...t.env, ECHO_AUTO_REPLY: '0', SYNAPSE_REPLY_GRACE: '60' }, args: ['--name', 'quiet'], cwd: project }),
  ]);
  client = new Client({ name: 'synapse-test', version: '1.0.0' });
  const env = Object.fromEntries(Object.entries({ ...t.env, SYNAPSE_AGENT_ID: quiet.agentId }).filter((e): e is [string, string] => e[1] !== undefined));
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', 'serve'], env, cwd: project, stderr: 'pipe' }));
}, 30_000);

afterAll(async () => {
  await client?.close();
  await cleanupAll();
  t.cleanup();
  fs.rmSync(project, { recursive: true, force: true });
});

/** Calls a tool; returns its text and whether it is an error. */
async function call(name: string, args: Record<string, unknown> = {}): Promise<{ text: string; isError: boolean }> {
  const res = (await client.callTool({ name, arguments: args })) as { content: { type: string; text: string }[]; isError?: boolean };
  return { text: res.content.map((c) => c.text).join('\n'), isError: res.isError === true };
}
async function callJson(name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await call(name, args);
  expect(r.isError, r.text).toBe(false);
  return JSON.parse(r.text);
}

describe('synapse mcp serve', () => {
  it('lists every tool with an input schema, and the three resources', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name).sort()).toEqual(
      [
        'analyze_task',
        'board_claim',
        'board_complete',
        'board_create',
        'board_list',
        'bootstrap_agent',
        'list_agents',
        'lock_file',
        'memory_save',
        'memory_search',
        'reply',
        'send_message',
        'unlock_file',
      ].sort(),
    );
    for (const tool of tools) expect(tool.inputSchema.type, tool.name).toBe('object');
    expect(tools.find((x) => x.name === 'send_message')!.inputSchema.required).toEqual(['target', 'message']);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(['synapse://agent-card', 'synapse://instructions', 'synapse://settings']);
  });

  it('bootstrap_agent says who the agent is (from SYNAPSE_AGENT_ID), its instructions and its peers', async () => {
    const boot = await callJson('bootstrap_agent');
    expect(boot.agent).toMatchObject({ agent_id: quiet.agentId, name: 'quiet', port: quiet.port, working_dir: project });
    expect(boot.instructions).toContain(quiet.agentId);
    expect(boot.peers.map((p: { agent_id: string }) => p.agent_id)).toEqual([bob.agentId]);
    const agents = await callJson('list_agents');
    expect(agents.map((a: { name: string }) => a.name).sort()).toEqual(['bob', 'quiet']);
  });

  it('the resources are the instructions, the merged settings and the agent card', async () => {
    const read = async (uri: string) => ((await client.readResource({ uri })).contents[0] as { text: string }).text;
    expect(await read('synapse://instructions')).toContain(`${quiet.port}`);
    fs.mkdirSync(path.join(project, '.synapse'), { recursive: true });
    fs.writeFileSync(path.join(project, '.synapse', 'settings.local.json'), JSON.stringify({ a2a: { flow: 'roundtrip' } }));
    expect(JSON.parse(await read('synapse://settings'))).toMatchObject({ a2a: { flow: 'roundtrip' } });
    fs.rmSync(path.join(project, '.synapse', 'settings.local.json'));
    const card = JSON.parse(await read('synapse://agent-card'));
    expect(card).toMatchObject({ name: 'quiet', url: quiet.endpoint });
  });

  it('send_message reaches the target framed with this agent as sender; "wait" returns the answer', async () => {
    const sent = await callJson('send_message', { target: 'bob', message: 'hello over MCP', response_mode: 'wait' });
    expect(sent.status).toBe('completed');
    expect(sent.answer).toContain(`[From: quiet (${quiet.agentId})]`);
    expect(sent.answer).toContain('hello over MCP');
    const bad = await call('send_message', { target: 'nobody', message: 'hi' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/nobody/);
  });

  it('reply answers the message waiting for this agent', async () => {
    const posted = await postJson(
      `${quiet.endpoint}/tasks/send`,
      textMessage('please answer', { response_mode: 'wait', sender: { sender_id: bob.agentId, sender_name: 'bob' } }),
    );
    expect(posted.status).toBeLessThan(300);
    const taskId: string = posted.body.task.id;
    // The message must be on quiet's reply stack before there is something to answer.
    const replied = await waitFor(
      async () => {
        const r = await call('reply', { text: 'answered via MCP' });
        if (r.isError) expect(r.text).toMatch(/nobody is waiting/);
        return !r.isError && JSON.parse(r.text);
      },
      10_000,
      'the message on the reply stack',
    );
    expect(replied).toMatchObject({ task_id: taskId, status: 'completed', to: bob.agentId });
    expect(artifactText(await waitForTask(quiet.endpoint, taskId))).toBe('answered via MCP');
  });

  it('board tools create, list, claim and complete a task as this agent', async () => {
    const created = await callJson('board_create', { subject: 'write the parser', priority: 4 });
    expect(created).toMatchObject({ subject: 'write the parser', priority: 4, created_by: quiet.agentId, status: 'pending' });
    const listed = await callJson('board_list', { status: 'pending' });
    expect(listed.map((x: { id: string }) => x.id)).toContain(created.id);
    expect(await callJson('board_claim', { id: created.id.slice(0, 8) })).toMatchObject({ status: 'in_progress', claimed_by: quiet.agentId });
    expect((await callJson('board_complete', { id: created.id })).task).toMatchObject({ status: 'completed' });
    const again = await call('board_claim', { id: created.id });
    expect(again.isError).toBe(true);
  });

  it('lock_file and unlock_file lock for this agent; memory_save and memory_search share notes', async () => {
    const locked = await callJson('lock_file', { path: 'src/app.ts', intent: 'refactor' });
    expect(locked.lock).toMatchObject({ agent_id: quiet.agentId, intent: 'refactor' });
    expect(await callJson('unlock_file', { path: 'src/app.ts' })).toMatchObject({ released: true });
    const saved = await callJson('memory_save', { key: 'db-url', content: 'postgres on port 5433', tags: ['infra'] });
    expect(saved.memory).toMatchObject({ key: 'db-url', author: quiet.agentId, tags: ['infra'] });
    const hits = await callJson('memory_search', { query: 'postgres' });
    expect(hits.map((h: { key: string }) => h.key)).toEqual(['db-url']);
  });

  it('analyze_task suggests a team from suggest.yaml, and names the file and key of a bad one', async () => {
    const files = ['src/a.ts', 'src/b.ts', 'server/api.ts', 'web/app.tsx'];
    const plan = await callJson('analyze_task', { prompt: 'refactor the API across client and server', files });
    expect(plan.split).toBe(true);
    expect(plan.fired.map((f: { trigger: string }) => f.trigger).sort()).toEqual(['directories', 'keywords', 'missing_tests']);
    expect(plan.team.map((a: { name: string }) => a.name)).toEqual(['architect', 'developer-src', 'developer-server', 'developer-web', 'tester', 'reviewer']);
    expect(plan.config).toMatch(/templates[/\\]synapse[/\\]suggest\.yaml$/);
    fs.mkdirSync(path.join(project, '.synapse'), { recursive: true });
    fs.writeFileSync(path.join(project, '.synapse', 'suggest.yaml'), 'triggers:\n  file_count: many\nteam: []\n');
    const bad = await call('analyze_task', { prompt: 'x', files });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain(path.join(project, '.synapse', 'suggest.yaml'));
    expect(bad.text).toContain('triggers.file_count');
    fs.rmSync(path.join(project, '.synapse', 'suggest.yaml'));
  });
});
