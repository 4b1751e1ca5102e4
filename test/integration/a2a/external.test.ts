import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addExternalAgent, externalAgentInfo, sendToExternalAgent } from '../../../src/cli/commands/external.js';
import { runCommand, runJson } from '../../support/cli-io.js';
import { cleanupAll, getJson, postJson, runCli, startHeadless, tempHome, type AgentHandle } from '../../support/synapse.js';

/**
 * External agents against two real Synapse echo agents (started once for the file): spawn smoke
 * tests of `synapse external` (argument parsing, exit codes through main), Synapse's own agent
 * as an external peer, and the `/external/*` routes. What the commands do against plain A2A SDK
 * servers (1.0 and 0.3) is tested in-process in test/integration/cli/external.test.ts.
 */
const t = tempHome();
let a: AgentHandle;
let b: AgentHandle;

beforeAll(async () => {
  [a, b] = await Promise.all([startHeadless('echo', { env: t.env }), startHeadless('echo', { env: t.env })]);
}, 30_000);
// Every test starts with no external agent (the CLI and agent a share this HOME's ~/.a2a/external).
afterEach(() => fs.rmSync(path.join(t.home, '.a2a', 'external'), { recursive: true, force: true }));
afterAll(async () => {
  await cleanupAll();
  t.cleanup();
});

const cli = (...args: string[]) => runCli(['external', ...args], { env: t.env, timeoutMs: 30_000 });
const io = () => ({ env: t.env, cwd: t.home });

describe('synapse external (spawned)', () => {
  it('parses add, send and remove, and exits with the documented codes', async () => {
    const added = await cli('add', b.endpoint, '--alias', 'peer', '--header', 'X-Team=blue', '--json');
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      alias: 'peer',
      protocol_version: '1.0',
      card_url: `${b.endpoint}/.well-known/agent-card.json`,
      header_names: ['X-Team'],
    });
    const waited = await cli('send', 'peer', 'hello from outside', '--wait');
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toMatch(/ECHO: .*hello from outside/);
    expect((await cli('remove', 'peer')).code).toBe(0);
    const gone = await cli('send', 'peer', 'anyone?');
    expect(gone.code).toBe(3);
    expect(gone.stderr).toMatch(/no external agent "peer"/);
  });

  it('refuses a URL that serves no A2A card', async () => {
    const url = `${b.endpoint}/status.json`;
    const res = await cli('add', url);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(`synapse: ${url} answered HTTP 404; is ${url} an A2A agent?\n`);
  });
});

describe("Synapse's own agent as an external peer", () => {
  it('shows every interface of its card, delivers a returned send, and streams to completion', async () => {
    await runJson((c) => addExternalAgent(b.endpoint, { alias: 'peer', json: true }, c), io());
    const info = await runCommand((c) => externalAgentInfo('peer', {}, c), io());
    expect(info.stdout).toContain('JSONRPC 1.0');
    expect(info.stdout).toContain('HTTP+JSON 1.0');
    const streamed = await runJson((c) => sendToExternalAgent('peer', 'stream from outside', { timeout: '30', stream: true, json: true }, c), io());
    expect(streamed).toMatchObject({ via: 'JSONRPC 1.0', state: 'completed' });
    expect(streamed.text).toContain('stream from outside');
    const returned = await runJson((c) => sendToExternalAgent('peer', 'fire and forget', { timeout: '30', json: true }, c), io());
    const onB = (await getJson(`${b.endpoint}/tasks/${returned.task_id}`)).body;
    expect(onB.message.parts[0].text).toBe('fire and forget');
  });
});

describe('/external routes', () => {
  it('discovers, lists, shows, sends to and forgets an external agent', async () => {
    const found = await postJson(`${a.endpoint}/external/discover`, { url: b.endpoint, alias: 'bee', headers: { authorization: 'Bearer x' } });
    expect(found.status).toBe(201);
    expect(found.body.agent).toMatchObject({ alias: 'bee', header_names: ['authorization'] });
    expect(found.body.agent.headers).toBeUndefined();
    expect((await getJson(`${a.endpoint}/external/agents`)).body.agents.map((x: any) => x.alias)).toEqual(['bee']);
    expect((await getJson(`${a.endpoint}/external/agents/bee`)).body.agent.card.supportedInterfaces.length).toBeGreaterThan(1);
    const sent = await postJson(`${a.endpoint}/external/agents/bee/send`, { message: 'over http', wait: true });
    expect(sent.status).toBe(200);
    expect(sent.body.result.text).toContain('over http');
    expect((await getJson(`${b.endpoint}/tasks/${sent.body.result.task_id}`)).body.status).toBe('completed');
    const bad = await postJson(`${a.endpoint}/external/discover`, { url: 'file:///etc/passwd' });
    expect(bad.status).toBe(400);
    const del = await fetch(`${a.endpoint}/external/agents/bee`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect((await getJson(`${a.endpoint}/external/agents/bee`)).status).toBe(404);
  });
});
