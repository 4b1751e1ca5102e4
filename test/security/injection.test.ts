import { TaskState } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, getJson, postJson, runCli, startHeadless, tempHome, waitFor, waitForTask, type AgentHandle } from '../support/synapse.js';
import { asTask, sdkClient, sendRequest, userMessage } from '../integration/a2a/sdk-client.js';
import { forbiddenInPaste, foreignKeys, logFile, readBytes, recordingEnv, splitInput } from './support/pty-bytes.js';

/**
 * Control sequences sent through every entry an agent has must never reach the wrapped CLI: the
 * echo agent behind the PTY records every byte it is handed (test/security/support), and the test
 * reads those bytes. Each entry carries its own tag, so a delivery that did not happen cannot pass
 * as a clean one.
 */

/** Paste end, ^C, ^D, ^Z, an arrow key, OSC 52 clipboard writes (BEL and ST), C1 controls, lone surrogates, NUL, CR/LF mixes, DEL. */
const PAYLOADS = [
  '\x1b[201~',
  '\x03',
  '\x04',
  '\x1a',
  '\x1b[A',
  '\x1b]52;c;cm0gLXJmIH4K\x07',
  '\x1b]52;c;cm0gLXJmIH4K\x1b\\',
  '\u009b201~',
  '\u009d52;c;cm0K\u009c',
  '\u0085\u008d',
  '\ud800',
  'x\udfffy',
  '\ud83d',
  '\x00',
  'a\r\nb\rc\n\rd\r\r\n',
  '\x7f',
  '\x1b\x1b[200~nested',
];
const evil = (tag: string) => `${tag} ${PAYLOADS.join(' | ')} END-${tag}`;
/** argv cannot carry NUL. */
const evilArgv = (tag: string) => evil(tag).replaceAll('\x00', '');

const t = tempHome();
let a: AgentHandle;
let b: AgentHandle;
const logA = logFile(t.home, 'a');
const logB = logFile(t.home, 'b');
const tags: string[] = [];

beforeAll(async () => {
  const env = { ...t.env, SYNAPSE_LONG_MESSAGE_THRESHOLD: '100000' };
  a = await startHeadless('echo', { env: recordingEnv(env, logA), args: ['--name', 'inject-a'] });
  // B never answers by itself: the answer it forwards to A is the one the test posts.
  b = await startHeadless('echo', { env: recordingEnv({ ...env, ECHO_AUTO_REPLY: '0', SYNAPSE_REPLY_GRACE: '60' }, logB), args: ['--name', 'inject-b'] });
  await waitFor(
    async () => (await getJson(`${a.endpoint}/.well-known/agent-card.json`)).body.supportedInterfaces.some((i: any) => i.protocolBinding === 'GRPC'),
    5000,
    'gRPC in the card',
  );
});
afterAll(async () => {
  await cleanupAll();
  t.cleanup();
});

async function done(endpoint: string, id: string): Promise<void> {
  const task = await waitForTask(endpoint, id, 15_000);
  expect(task.status, JSON.stringify(task)).toBe('completed');
}

const rpcMessage = (tag: string) => ({
  messageId: `m-${tag}`,
  role: 'ROLE_USER',
  parts: [{ text: evil(tag) }, { url: `file:///etc/${evil(tag)}`, filename: evil(`${tag}-file`), mediaType: 'text/plain' }],
  metadata: { synapse: { responseMode: 'silent', sender: { senderId: evil(`${tag}-id`), senderName: evil(`${tag}-name`) } } },
});

describe('control sequences through every entry reach the PTY as plain text', () => {
  it('Synapse routes: /tasks/send (text, file names, data, sender id and name) and /tasks/send-priority', async () => {
    for (const [route, tag] of [
      ['/tasks/send', 'ENTRY-send'],
      ['/tasks/send-priority?priority=4', 'ENTRY-priority'],
    ] as const) {
      tags.push(tag, `${tag}-file`, `${tag}-mime`, `${tag}-data`, `${tag}-name`, `${tag}-id`);
      const sent = await postJson(`${a.endpoint}${route}`, {
        message: {
          role: 'user',
          parts: [
            { type: 'text', text: evil(tag) },
            { type: 'file', file: { name: evil(`${tag}-file`), mimeType: evil(`${tag}-mime`), uri: 'file:///etc/passwd' } },
            { type: 'data', data: { note: evil(`${tag}-data`) } },
          ],
        },
        metadata: { sender: { sender_id: evil(`${tag}-id`), sender_name: evil(`${tag}-name`) }, response_mode: 'silent' },
      });
      expect(sent.status, JSON.stringify(sent.body)).toBe(202);
      await done(a.endpoint, sent.body.task.id);
    }
  });

  it('an answer with control sequences in in_reply_to and its text (the [ANSWER to …] frame)', async () => {
    const tag = 'ENTRY-answer';
    tags.push(tag);
    const sent = await postJson(`${a.endpoint}/tasks/send`, {
      message: { role: 'agent', parts: [{ type: 'text', text: evil(tag) }] },
      metadata: { in_reply_to: evil('ENTRY-inreply'), reply_status: 'failed', response_mode: 'silent' },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    await done(a.endpoint, sent.body.task.id);
  });

  it('A2A JSON-RPC 1.0, JSON-RPC 0.3 and HTTP+JSON', async () => {
    const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' };
    const post = async (path: string, body: unknown, h: Record<string, string> = headers) =>
      (await fetch(`${a.endpoint}${path}`, { method: 'POST', headers: h, body: JSON.stringify(body) })).json() as Promise<any>;
    tags.push('ENTRY-rpc', 'ENTRY-rpc-file', 'ENTRY-rpc-name', 'ENTRY-rpc-id');
    const rpc = await post('/a2a/jsonrpc', { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: rpcMessage('ENTRY-rpc') } });
    expect(rpc.result?.task?.status?.state, JSON.stringify(rpc)).toBe('TASK_STATE_COMPLETED');

    tags.push('ENTRY-v03', 'ENTRY-v03-file');
    const v03message = {
      kind: 'message',
      messageId: 'm-v03',
      role: 'user',
      parts: [
        { kind: 'text', text: evil('ENTRY-v03') },
        { kind: 'file', file: { name: evil('ENTRY-v03-file'), mimeType: 'text/plain', uri: 'file:///etc/passwd' } },
      ],
      metadata: { synapse: { responseMode: 'silent' } },
    };
    const v03 = await post(
      '/a2a/v0.3/jsonrpc',
      { jsonrpc: '2.0', id: 2, method: 'message/send', params: { message: v03message } },
      { 'content-type': 'application/json' },
    );
    expect(v03.result?.status?.state, JSON.stringify(v03)).toBe('completed');

    tags.push('ENTRY-rest', 'ENTRY-rest-file', 'ENTRY-rest-name', 'ENTRY-rest-id');
    const rest = await post('/a2a/rest/v1/message:send', { message: rpcMessage('ENTRY-rest') });
    expect(rest.task?.status?.state, JSON.stringify(rest)).toBe('TASK_STATE_COMPLETED');
  });

  it('gRPC', async () => {
    tags.push('ENTRY-grpc', 'ENTRY-grpc-file');
    const client = await sdkClient(a.endpoint, 'GRPC');
    const message = userMessage(evil('ENTRY-grpc'));
    message.parts.push({
      content: { $case: 'url', value: 'file:///etc/passwd' },
      mediaType: 'text/plain',
      filename: evil('ENTRY-grpc-file'),
      metadata: undefined,
    });
    const task = asTask(await client.sendMessage(sendRequest('', { message })));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('`synapse send` with control sequences in its argument', async () => {
    tags.push('ENTRY-cli');
    const r = await runCli(['send', 'inject-a', evilArgv('ENTRY-cli'), '--silent', '--json'], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    await done(a.endpoint, JSON.parse(r.stdout).task_id);
  });

  it("an agent's answer (POST /reply) forwarded into the sender's terminal", async () => {
    tags.push('ENTRY-reply');
    const asked = await postJson(`${b.endpoint}/tasks/send`, {
      message: { role: 'user', parts: [{ type: 'text', text: 'please answer' }] },
      metadata: { sender: { sender_id: a.agentId, sender_name: 'inject-a', sender_endpoint: a.endpoint }, response_mode: 'notify' },
    });
    expect(asked.status).toBe(202);
    await waitFor(async () => (await getJson(`${b.endpoint}/tasks/${asked.body.task.id}`)).body.receipt?.delivered_at, 10_000, 'delivery to B');
    const replied = await postJson(`${b.endpoint}/reply`, { text: evil('ENTRY-reply'), task_id: asked.body.task.id });
    expect(replied.status, JSON.stringify(replied.body)).toBe(200);
    await waitFor(() => splitInput(readBytes(logA)).pastes.some((p) => p.toString('utf8').includes('END-ENTRY-reply')), 15_000, 'the answer in A');
  });

  it('no control byte reached either PTY, every entry was delivered, and one submit key per message', async () => {
    for (const [name, file] of [
      ['A', logA],
      ['B', logB],
    ] as const) {
      // The submit key follows its paste after the profile's delay: wait for the last one.
      const count = (x: ReturnType<typeof splitInput>) => [...x.keys].filter((k) => k === 0x0d).length;
      await waitFor(
        () => {
          const x = splitInput(readBytes(file));
          return count(x) >= x.pastes.length;
        },
        5000,
        `the last submit key in ${name}`,
      ).catch(() => undefined);
      const input = splitInput(readBytes(file));
      expect(input.pastes.length, `pastes into ${name}`).toBeGreaterThan(0);
      for (const paste of input.pastes) expect(forbiddenInPaste(paste), `${name}: ${JSON.stringify(paste.toString('utf8'))}`).toEqual([]);
      expect(foreignKeys(input.keys), `keys pressed in ${name}`).toEqual([]);
      expect(count(input), `submits in ${name}`).toBe(input.pastes.length);
    }
    const all = splitInput(readBytes(logA))
      .pastes.map((p) => p.toString('utf8'))
      .join('\n');
    const missing = tags.filter((tag) => !all.includes(tag));
    expect(missing).toEqual([]);
  });
});
