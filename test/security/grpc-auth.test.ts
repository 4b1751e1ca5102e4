import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { A2AService } from '@a2a-js/sdk/server/grpc';
import { ListTasksRequest, SendMessageRequest } from '@a2a-js/sdk';
import { cleanupAll, getJson, startHeadless, tempHome, waitFor, type AgentHandle } from '../support/synapse.js';
import { CERTS, httpsJson, startTlsAgent, type TlsAgent } from './support/tls-agent.js';

/**
 * API keys on the gRPC port (the agent's port + 1000, issue 15 §2), real agents: with auth on
 * and loopback not trusted, a call without a key or with a wrong one ends UNAUTHENTICATED before
 * the service sees it (no task is made), and a call with the key works, as `x-api-key` or
 * `authorization: Bearer`. While loopback is trusted (the default), and with auth off, a call
 * from loopback needs no key, as on HTTP.
 */
const KEY = 'synapse_grpc-auth-test-user-key';
const t = tempHome();
let strict: AgentHandle;
let trusting: AgentHandle;
let open: AgentHandle;
let tls: TlsAgent | undefined;
const clients: grpc.Client[] = [];

async function agent(name: string, extra: NodeJS.ProcessEnv): Promise<AgentHandle> {
  const a = await startHeadless('echo', {
    env: { ...t.env, ECHO_THINK_MS: '0', ...extra },
    args: ['--name', name],
    statusHeaders: () => ({ 'x-api-key': KEY }),
  });
  // gRPC listens right after HTTP; the card (public) lists it once it does.
  await waitFor(
    async () => (await getJson(`${a.endpoint}/.well-known/agent-card.json`)).body.supportedInterfaces.some((i: any) => i.protocolBinding === 'GRPC'),
    10_000,
    `gRPC in ${name}'s card`,
  );
  return a;
}

beforeAll(async () => {
  [strict, trusting, open] = await Promise.all([
    agent('strict', { SYNAPSE_AUTH_ENABLED: 'true', SYNAPSE_ALLOW_LOCALHOST: 'false', SYNAPSE_API_KEYS: KEY }),
    agent('trusting', { SYNAPSE_AUTH_ENABLED: 'true', SYNAPSE_API_KEYS: KEY }),
    agent('open', {}),
  ]);
}, 60_000);
afterAll(async () => {
  for (const c of clients) c.close();
  await tls?.stop();
  await cleanupAll();
  t.cleanup();
});

function client(a: { port: number }): grpc.Client {
  const c = new grpc.Client(
    `127.0.0.1:${a.port + 1000}`,
    a === tls ? grpc.credentials.createSsl(fs.readFileSync(CERTS.first.cert)) : grpc.credentials.createInsecure(),
  );
  clients.push(c);
  return c;
}

function metadata(entries: Record<string, string>): grpc.Metadata {
  const m = new grpc.Metadata();
  m.set('a2a-version', '1.0');
  for (const [k, v] of Object.entries(entries)) m.set(k, v);
  return m;
}

type Outcome = { code: number; details: string };

function unary(
  a: { port: number },
  def: { path: string; requestSerialize: (x: any) => Buffer; responseDeserialize: (b: Buffer) => any },
  request: unknown,
  meta: grpc.Metadata,
): Promise<Outcome & { response?: any }> {
  return new Promise((resolve) => {
    const deadline = new Date(Date.now() + 15_000);
    client(a).makeUnaryRequest(def.path, def.requestSerialize, def.responseDeserialize, request, meta, { deadline }, (err, response) =>
      resolve(err ? { code: err.code, details: err.details } : { code: grpc.status.OK, details: '', response }),
    );
  });
}

const send = (a: { port: number }, text: string, meta: grpc.Metadata) =>
  unary(
    a,
    A2AService.sendMessage,
    SendMessageRequest.fromJSON({ message: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] }, configuration: { returnImmediately: true } }),
    meta,
  );

/** The id of the task a SendMessage answer carries. */
const taskId = (o: { response?: any }): string | undefined => (o.response?.payload?.$case === 'task' ? o.response.payload.value.id : undefined);

/** How many tasks the agent holds, read over HTTP with the key. */
async function taskCount(a: AgentHandle): Promise<number> {
  const res = await fetch(`${a.endpoint}/tasks`, { headers: { 'x-api-key': KEY } });
  expect(res.status).toBe(200);
  return ((await res.json()) as unknown[]).length;
}

describe('gRPC with auth on and loopback not trusted', () => {
  it('ends a call without a key, or with a wrong one, UNAUTHENTICATED before the service sees it', async () => {
    const before = await taskCount(strict);
    const bare = await send(strict, 'no key', metadata({}));
    const wrong = await send(strict, 'wrong key', metadata({ 'x-api-key': 'synapse_not-the-key' }));
    const wrongBearer = await send(strict, 'wrong bearer', metadata({ authorization: 'Bearer synapse_not-the-key' }));
    const notBearer = await send(strict, 'basic', metadata({ authorization: `Basic ${KEY}` }));
    expect([bare.code, wrong.code, wrongBearer.code, notBearer.code]).toEqual(Array(4).fill(grpc.status.UNAUTHENTICATED));
    expect(bare.details).toContain('this agent needs an API key');
    expect(wrong.details).toContain('the API key is not one this agent accepts');
    expect(wrong.details).not.toContain('synapse_not-the-key');
    expect(await taskCount(strict)).toBe(before);
  });

  it('ends a streaming call without a key UNAUTHENTICATED too', async () => {
    const code = await new Promise<number>((resolve) => {
      const request = SendMessageRequest.fromJSON({ message: { messageId: 'm-stream', role: 'ROLE_USER', parts: [{ text: 'stream' }] } });
      const stream = client(strict).makeServerStreamRequest(
        A2AService.sendStreamingMessage.path,
        A2AService.sendStreamingMessage.requestSerialize,
        A2AService.sendStreamingMessage.responseDeserialize,
        request,
        metadata({}),
        { deadline: new Date(Date.now() + 15_000) },
      );
      stream.on('data', () => undefined);
      stream.on('error', (err: grpc.ServiceError) => resolve(err.code));
      stream.on('end', () => resolve(grpc.status.OK));
    });
    expect(code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it('lets a call with the key through, as x-api-key or authorization: Bearer', async () => {
    const viaHeader = await send(strict, 'keyed call', metadata({ 'x-api-key': KEY }));
    const viaBearer = await unary(strict, A2AService.listTasks, ListTasksRequest.fromJSON({}), metadata({ authorization: `Bearer ${KEY}` }));
    expect([viaHeader.code, viaBearer.code], `${viaHeader.details} ${viaBearer.details}`).toEqual([grpc.status.OK, grpc.status.OK]);
    expect(taskId(viaHeader)).toMatch(/\S/);
    expect(viaBearer.response.tasks.map((task: { id: string }) => task.id)).toContain(taskId(viaHeader));
  });
});

describe('gRPC from loopback needs no key while loopback is trusted, or with auth off', () => {
  it('lets a call without a key through (auth on with SYNAPSE_ALLOW_LOCALHOST=true; auth off)', async () => {
    const [trusted, off] = await Promise.all([send(trusting, 'trusted loopback', metadata({})), send(open, 'auth off', metadata({}))]);
    expect([trusted.code, off.code], `${trusted.details} ${off.details}`).toEqual([grpc.status.OK, grpc.status.OK]);
    expect([taskId(trusted), taskId(off)]).toEqual([expect.stringMatching(/\S/), expect.stringMatching(/\S/)]);
  });

  it('treats a trusted loopback caller with a wrong key as HTTP does: it passes (loopback is trusted before any key is read)', async () => {
    const wrong = await send(trusting, 'wrong key on loopback', metadata({ 'x-api-key': 'synapse_not-the-key' }));
    const http = await fetch(`${trusting.endpoint}/status`, { headers: { 'x-api-key': 'synapse_not-the-key' } });
    expect([wrong.code, http.status]).toEqual([grpc.status.OK, 200]);
  });
});

describe('gRPC over TLS (SYNAPSE_USE_HTTPS) with auth on', () => {
  it('sees the caller’s loopback address through TLS: a call without a key passes while loopback is trusted', async () => {
    tls = await startTlsAgent('tls', CERTS.first, { ...t.env, SYNAPSE_AUTH_ENABLED: 'true', SYNAPSE_API_KEYS: KEY });
    const agent = tls;
    await waitFor(
      async () =>
        (await httpsJson(`${agent.endpoint}/.well-known/agent-card.json`, { ca: CERTS.first.cert })).body.supportedInterfaces.some(
          (i: any) => i.protocolBinding === 'GRPC',
        ),
      10_000,
      'gRPC in the TLS agent’s card',
    );
    const trusted = await send(agent, 'tls loopback', metadata({}));
    expect(trusted.code, trusted.details).toBe(grpc.status.OK);
    expect(taskId(trusted)).toMatch(/\S/);
  }, 30_000);
});
