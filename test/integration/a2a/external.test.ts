import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanupAll, getJson, postJson, runCli, startHeadless, tempHome } from '../../support/synapse.js';
import { plainSdkServer } from './plain-sdk-server.js';

/** `synapse external …` and `/external/*` against a second echo agent and SDK-only servers. */
const t = tempHome();
const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  await cleanupAll();
  fs.rmSync(path.join(t.home, '.a2a', 'external'), { recursive: true, force: true });
});
afterAll(() => t.cleanup());

const cli = (...args: string[]) => runCli(['external', ...args], { env: t.env, timeoutMs: 30_000 });

describe('synapse external', () => {
  it('adds an echo agent by URL, lists, shows, sends (return, wait, stream) and removes it', async () => {
    const b = await startHeadless('echo', { env: t.env });
    const added = await cli('add', b.endpoint, '--alias', 'peer', '--header', 'X-Team=blue', '--json');
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      alias: 'peer',
      protocol_version: '1.0',
      card_url: `${b.endpoint}/.well-known/agent-card.json`,
      header_names: ['X-Team'],
    });
    const file = path.join(t.home, '.a2a', 'external', 'peer.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const list = JSON.parse((await cli('list', '--json')).stdout);
    expect(list.map((a: any) => a.alias)).toEqual(['peer']);
    const info = await cli('info', 'peer');
    expect(info.stdout).toContain('JSONRPC 1.0');
    expect(info.stdout).toContain('HTTP+JSON 1.0');

    const waited = await cli('send', 'peer', 'hello from outside', '--wait');
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toMatch(/ECHO: .*hello from outside/);
    const streamed = await cli('send', 'peer', 'stream from outside', '--stream', '--json');
    expect(JSON.parse(streamed.stdout)).toMatchObject({ via: 'JSONRPC 1.0', state: 'completed' });
    expect(JSON.parse(streamed.stdout).text).toContain('stream from outside');
    const returned = JSON.parse((await cli('send', 'peer', 'fire and forget', '--json')).stdout);
    const onB = (await getJson(`${b.endpoint}/tasks/${returned.task_id}`)).body.task;
    expect(onB.message.parts[0].text).toBe('fire and forget');

    expect((await cli('remove', 'peer')).code).toBe(0);
    const gone = await cli('send', 'peer', 'anyone?');
    expect(gone.code).toBe(3);
    expect(gone.stderr).toMatch(/no external agent "peer"/);
  });

  it('talks to plain SDK servers, A2A 1.0 and 0.3', async () => {
    for (const version of ['1.0', '0.3'] as const) {
      const plain = await plainSdkServer(version);
      closers.push(plain.close);
      const added = JSON.parse((await cli('add', plain.base, '--json')).stdout);
      expect(added.protocol_version).toBe(version);
      const alias = version === '1.0' ? 'plain-agent' : 'plain-legacy-agent';
      expect(added.alias).toBe(alias);
      const sent = await cli('send', alias, 'hi plain', '--wait', '--json');
      expect(sent.code, sent.stderr).toBe(0);
      expect(JSON.parse(sent.stdout)).toMatchObject({ text: 'plain: hi plain', state: 'completed', via: `JSONRPC ${version}` });
    }
  });

  it('refuses a URL that serves no A2A card', async () => {
    const b = await startHeadless('echo', { env: t.env });
    const url = `${b.endpoint}/status.json`;
    const res = await cli('add', url);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(`synapse: ${url} answered HTTP 404; is ${url} an A2A agent?\n`);
  });
});

describe('/external routes', () => {
  it('discovers, lists, shows, sends to and forgets an external agent', async () => {
    const a = await startHeadless('echo', { env: t.env });
    const b = await startHeadless('echo', { env: t.env });
    const found = await postJson(`${a.endpoint}/external/discover`, { url: b.endpoint, alias: 'bee', headers: { authorization: 'Bearer x' } });
    expect(found.status).toBe(201);
    expect(found.body.agent).toMatchObject({ alias: 'bee', header_names: ['authorization'] });
    expect(found.body.agent.headers).toBeUndefined();
    expect((await getJson(`${a.endpoint}/external/agents`)).body.agents.map((x: any) => x.alias)).toEqual(['bee']);
    expect((await getJson(`${a.endpoint}/external/agents/bee`)).body.agent.card.supportedInterfaces.length).toBeGreaterThan(1);
    const sent = await postJson(`${a.endpoint}/external/agents/bee/send`, { message: 'over http', wait: true });
    expect(sent.status).toBe(200);
    expect(sent.body.result.text).toContain('over http');
    expect((await getJson(`${b.endpoint}/tasks/${sent.body.result.task_id}`)).body.task.status.state).toBe('completed');
    const bad = await postJson(`${a.endpoint}/external/discover`, { url: 'file:///etc/passwd' });
    expect(bad.status).toBe(400);
    const del = await fetch(`${a.endpoint}/external/agents/bee`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect((await getJson(`${a.endpoint}/external/agents/bee`)).status).toBe(404);
  });
});
