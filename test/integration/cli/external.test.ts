import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  addExternalAgent,
  externalAgentInfo,
  listExternalAgents,
  removeExternalAgent,
  sendToExternalAgent,
  type ExternalSendFlags,
} from '../../../src/cli/commands/external.js';
import type { CommandIo } from '../../../src/cli/io.js';
import { runCommand, runJson } from '../../support/cli-io.js';
import { tempHome } from '../../support/synapse.js';
import { plainSdkServer } from '../a2a/plain-sdk-server.js';

/**
 * `synapse external …` in-process, against plain A2A SDK servers, with a temp HOME. The spawn
 * smoke tests, and Synapse's own agent as an external peer, are in
 * test/integration/a2a/external.test.ts.
 */

let t: ReturnType<typeof tempHome>;
const closers: Array<() => Promise<void>> = [];

beforeEach(() => {
  t = tempHome();
  delete t.env.SYNAPSE_EXTERNAL_DIR;
});

afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  t.cleanup();
});

const io = () => ({ env: t.env, cwd: t.home });
const run = (command: (io: CommandIo) => Promise<void>) => runCommand(command, io());
const json = <T = any>(command: (io: CommandIo) => Promise<void>) => runJson<T>(command, io());
const send =
  (alias: string, text: string, flags: Partial<ExternalSendFlags> = {}) =>
  (c: CommandIo) =>
    sendToExternalAgent(alias, text, { timeout: '30', ...flags }, c);

async function server(version: '1.0' | '0.3'): Promise<string> {
  const plain = await plainSdkServer(version);
  closers.push(plain.close);
  return plain.base;
}

describe('synapse external', () => {
  it('adds by URL, lists, shows, sends (return, wait, stream) and removes', async () => {
    const base = await server('1.0');
    expect((await run((c) => listExternalAgents({}, c))).stdout).toBe('no external agents; add one with `synapse external add <url>`\n');
    const added = await json((c) => addExternalAgent(base, { alias: 'peer', header: ['X-Team=blue'], json: true }, c));
    expect(added).toMatchObject({
      alias: 'peer',
      name: 'Plain Agent',
      protocol_version: '1.0',
      card_url: `${base}/.well-known/agent-card.json`,
      header_names: ['X-Team'],
    });
    expect(added.headers).toBeUndefined();
    expect(fs.statSync(path.join(t.home, '.a2a', 'external', 'peer.json')).mode & 0o777).toBe(0o600);
    expect((await run((c) => addExternalAgent(base, {}, c))).stdout).toBe(
      `added plain-agent: Plain Agent (A2A 1.0) from ${base}/.well-known/agent-card.json\n`,
    );

    expect((await json((c) => listExternalAgents({ json: true }, c))).map((a: { alias: string }) => a.alias)).toEqual(['peer', 'plain-agent']);
    expect((await run((c) => listExternalAgents({}, c))).stdout).toMatch(/ALIAS\s+NAME\s+A2A\s+URL\s+DESCRIPTION\npeer\s+Plain Agent\s+1\.0/);
    const info = await run((c) => externalAgentInfo('peer', {}, c));
    expect(info.stdout).toContain('peer: Plain Agent (A2A 1.0)\nSDK-only test agent.\n');
    expect(info.stdout).toContain(`JSONRPC 1.0  ${base}/rpc`);
    expect(info.stdout).toContain('streaming: yes, push notifications: no');
    expect(info.stdout).toContain('skills:\n  (none)\nheaders: X-Team (values hidden)\n');
    expect((await json((c) => externalAgentInfo('peer', { json: true }, c))).card).toMatchObject({ name: 'Plain Agent' });

    const returned = await run(send('peer', 'fire and forget'));
    expect(returned.stdout).toMatch(/^sent to peer via JSONRPC 1\.0: task \S+/);
    const waited = await run(send('peer', 'hello from outside', { wait: true }));
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toBe('plain: hello from outside\n');
    const streamed = await run(send('peer', 'stream from outside', { stream: true }));
    expect(streamed.stdout).toBe('plain: stream from outside\n');
    expect(streamed.stderr).toContain('[artifact]');
    expect(streamed.stderr).toContain('[status completed]');
    expect(await json(send('plain-agent', 'hi plain', { wait: true, json: true }))).toMatchObject({
      text: 'plain: hi plain',
      state: 'completed',
      via: 'JSONRPC 1.0',
    });
    const streamedJson = await json(send('peer', 'stream as json', { stream: true, json: true }));
    expect(streamedJson).toMatchObject({ via: 'JSONRPC 1.0', state: 'completed', text: 'plain: stream as json' });

    expect((await run((c) => removeExternalAgent('peer', {}, c))).stdout).toBe('removed peer\n');
    const gone = await run(send('peer', 'anyone?'));
    expect(gone.code).toBe(3);
    expect(gone.stderr).toMatch(/no external agent "peer"/);
  });

  it('talks to an A2A 0.3 server too', async () => {
    const base = await server('0.3');
    const added = await json((c) => addExternalAgent(base, { json: true }, c));
    expect(added).toMatchObject({ alias: 'plain-legacy-agent', protocol_version: '0.3' });
    expect(await json(send('plain-legacy-agent', 'hi plain', { wait: true, json: true }))).toMatchObject({
      text: 'plain: hi plain',
      state: 'completed',
      via: 'JSONRPC 0.3',
    });
  });

  it('refuses bad input: a header without =, a timeout that is not positive, a URL with no card', async () => {
    const base = await server('1.0');
    const header = await run((c) => addExternalAgent(base, { header: ['X-Team'] }, c));
    expect(header.code).toBe(1);
    expect(header.stderr).toBe('synapse: --header wants K=V, got "X-Team"\n');
    await run((c) => addExternalAgent(base, { alias: 'peer' }, c));
    const timeout = await run(send('peer', 'x', { wait: true, timeout: '0' }));
    expect(timeout.code).toBe(1);
    expect(timeout.stderr).toContain('--timeout wants seconds > 0, got "0"');
    const noCard = await run((c) => addExternalAgent(`${base}/status.json`, {}, c));
    expect(noCard.code).toBe(1);
    expect(noCard.stderr).toMatch(/(no name|neither A2A|HTTP 404)/);
  });
});
