import http from 'node:http';
import http2 from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, getJson, startHeadless, tempHome, waitFor, type AgentHandle } from '../../support/synapse.js';
import { asTask, pushReceiver, sdkClient, sendRequest } from './sdk-client.js';

/**
 * What the official A2A TCK checks beyond the protocol flows, against a real echo agent: the
 * agent cards' HTTP caching, camelCase keys on every A2A surface (Synapse's own data included),
 * and a gRPC port that takes nothing but gRPC.
 */
const t = tempHome();
let agent: AgentHandle;
let grpcPort: number;
const closers: Array<() => unknown> = [];

beforeAll(async () => {
  agent = await startHeadless('echo', { env: t.env });
  const grpc = await waitFor(
    async () => (await getJson(`${agent.endpoint}/.well-known/agent-card.json`)).body.supportedInterfaces.find((i: any) => i.protocolBinding === 'GRPC'),
    5000,
    'gRPC in the card',
  );
  grpcPort = Number(String(grpc.url).split(':').pop());
});
afterAll(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  await cleanupAll();
  t.cleanup();
});

const V1 = { 'a2a-version': '1.0' };
const JSON_V1 = { 'content-type': 'application/json', ...V1 };

/** Every key of a JSON value with its path (`result.task.metadata.synapse.receipt.queuedAt`). */
function keyPaths(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => keyPaths(v, `${path}[]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => [`${path}${path ? '.' : ''}${k}`, ...keyPaths(v, `${path}${path ? '.' : ''}${k}`)]);
}

/** Keys with an underscore, except in the client's own metadata (free-form: shown back as sent). */
function snakeKeys(value: unknown): string[] {
  return keyPaths(value).filter((p) => p.split('.').pop()!.includes('_') && !/(^|\.)metadata\.client_/.test(p));
}

/** The JSON objects of an SSE body (`data:` lines). */
function sseData(text: string): unknown[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as unknown);
}

async function post(path: string, body: unknown, headers: Record<string, string> = JSON_V1): Promise<{ status: number; text: string; json: any }> {
  const res = await fetch(`${agent.endpoint}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // an SSE body: read with sseData
  }
  return { status: res.status, text, json };
}

/** Synapse options as an A2A client sends them: camelCase, with a client key of its own beside them. */
const synapseOptions = (extra: Record<string, unknown> = {}) => ({
  client_trace: 'kept as sent',
  synapse: { priority: 4, responseMode: 'wait', sender: { senderId: 'synapse-tck-9999', senderName: 'tck', senderType: 'test' }, ...extra },
});

describe('agent cards: HTTP caching', () => {
  const routes: Array<{ name: string; path: string; headers: Record<string, string> }> = [
    { name: 'A2A 1.0 card', path: '/.well-known/agent-card.json', headers: {} },
    { name: 'A2A 0.3 card', path: '/.well-known/agent-card.json', headers: { 'a2a-version': '0.3' } },
    { name: "Synapse's own card", path: '/.well-known/agent.json', headers: {} },
  ];

  it.each(routes)('$name: Cache-Control max-age, a strong ETag of the body, Last-Modified, and 304 for both validators', async ({ path, headers }) => {
    const url = `${agent.endpoint}${path}`;
    const first = await fetch(url, { headers });
    const body = await first.text();
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(Number.isNaN(Date.parse(first.headers.get('last-modified')!))).toBe(false);
    expect(Date.parse(first.headers.get('last-modified')!)).toBeLessThanOrEqual(Date.parse(first.headers.get('date')!));
    expect(JSON.parse(body).name).toEqual(expect.any(String));

    // The card carries the agent's status, so it may change between two reads: wait until one is
    // answered 304, by its ETag and by its date.
    const revalidated = await waitFor(
      async () => {
        const res = await fetch(url, { headers });
        const tag = res.headers.get('etag')!;
        await res.text();
        const byTag = await fetch(url, { headers: { ...headers, 'if-none-match': tag } });
        const byDate = await fetch(url, { headers: { ...headers, 'if-modified-since': res.headers.get('last-modified')! } });
        if (byTag.status !== 304 || byDate.status !== 304) return null;
        return { byTag, tag, body: await byTag.text(), byDateBody: await byDate.text() };
      },
      10_000,
      `a 304 from ${path}`,
    );
    expect(revalidated.body).toBe('');
    expect(revalidated.byDateBody).toBe('');
    expect(revalidated.byTag.headers.get('etag')).toBe(revalidated.tag);
    expect(revalidated.byTag.headers.get('cache-control')).toMatch(/max-age=\d+/);
    expect((await fetch(url, { headers: { ...headers, 'if-none-match': '"not-this-one"' } })).status).toBe(200);
  });

  it('the two shapes of the A2A card have their own ETags and vary by A2A-Version', async () => {
    const v1 = await fetch(`${agent.endpoint}/.well-known/agent-card.json`);
    const v03 = await fetch(`${agent.endpoint}/.well-known/agent-card.json`, { headers: { 'a2a-version': '0.3' } });
    expect(v1.headers.get('etag')).not.toBe(v03.headers.get('etag'));
    expect(v1.headers.get('vary')).toMatch(/A2A-Version/i);
    // The 0.3 card's tag does not validate the 1.0 card.
    expect((await fetch(`${agent.endpoint}/.well-known/agent-card.json`, { headers: { 'if-none-match': v03.headers.get('etag')! } })).status).toBe(200);
  });
});

describe('camelCase on every A2A surface', () => {
  it('JSON-RPC 1.0: SendMessage, GetTask, ListTasks and the SendStreamingMessage stream', async () => {
    const message = (id: string) => ({ messageId: id, role: 'ROLE_USER', parts: [{ text: `camel ${id}` }], metadata: synapseOptions() });
    const sent = await post('/a2a/jsonrpc', { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: message('rpc-1') } });
    const task = sent.json.result.task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    // Synapse's data is there, in camelCase: what the runtime recorded about the delivery too.
    expect(task.metadata.synapse).toMatchObject({
      priority: 4,
      responseMode: 'wait',
      sender: { senderId: 'synapse-tck-9999', senderName: 'tck', senderType: 'test' },
      ptyWrittenAt: expect.any(String),
      deliveryEvidence: expect.any(String),
      replySource: expect.any(String),
      receipt: { state: 'answered', queuedAt: expect.any(String), deliveredAt: expect.any(String), answeredAt: expect.any(String) },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(task.metadata.client_trace).toBe('kept as sent');
    expect(snakeKeys(sent.json)).toEqual([]);

    const got = await post('/a2a/jsonrpc', { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: task.id } });
    expect(got.json.result.id).toBe(task.id);
    expect(snakeKeys(got.json)).toEqual([]);
    const listed = await post('/a2a/jsonrpc', { jsonrpc: '2.0', id: 3, method: 'ListTasks', params: { includeArtifacts: true } });
    expect(listed.json.result.tasks.length).toBeGreaterThan(0);
    expect(snakeKeys(listed.json)).toEqual([]);

    const streamed = await post('/a2a/jsonrpc', { jsonrpc: '2.0', id: 4, method: 'SendStreamingMessage', params: { message: message('rpc-2') } });
    const events = sseData(streamed.text);
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(snakeKeys(events)).toEqual([]);
  });

  it('JSON-RPC 0.3: message/send, tasks/get and the message/stream stream', async () => {
    const message = (id: string) => ({
      kind: 'message',
      messageId: id,
      role: 'user',
      parts: [{ kind: 'text', text: `camel ${id}` }],
      metadata: synapseOptions(),
    });
    const plain = { 'content-type': 'application/json' };
    const sent = await post('/a2a/v0.3/jsonrpc', { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: message('v03-1') } }, plain);
    expect(sent.json.result.status.state).toBe('completed');
    expect(sent.json.result.metadata.synapse.receipt.answeredAt).toEqual(expect.any(String));
    expect(snakeKeys(sent.json)).toEqual([]);
    const got = await post('/a2a/v0.3/jsonrpc', { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: sent.json.result.id } }, plain);
    expect(snakeKeys(got.json)).toEqual([]);
    const streamed = await post('/a2a/v0.3/jsonrpc', { jsonrpc: '2.0', id: 3, method: 'message/stream', params: { message: message('v03-2') } }, plain);
    expect(sseData(streamed.text).length).toBeGreaterThanOrEqual(2);
    expect(snakeKeys(sseData(streamed.text))).toEqual([]);
  });

  it('HTTP+JSON: message:send, tasks/{id}, tasks and the message:stream stream', async () => {
    const message = (id: string) => ({ message: { messageId: id, role: 'ROLE_USER', parts: [{ text: `camel ${id}` }], metadata: synapseOptions() } });
    const sent = await post('/a2a/rest/v1/message:send', message('rest-1'));
    expect(sent.json.task.metadata.synapse.responseMode).toBe('wait');
    expect(snakeKeys(sent.json)).toEqual([]);
    const got = await fetch(`${agent.endpoint}/a2a/rest/v1/tasks/${sent.json.task.id}`, { headers: V1 }).then((r) => r.json());
    expect(snakeKeys(got)).toEqual([]);
    const listed = await fetch(`${agent.endpoint}/a2a/rest/v1/tasks?includeArtifacts=true`, { headers: V1 }).then((r) => r.json());
    expect(snakeKeys(listed)).toEqual([]);
    const streamed = await post('/a2a/rest/v1/message:stream', message('rest-2'));
    expect(sseData(streamed.text).length).toBeGreaterThanOrEqual(2);
    expect(snakeKeys(sseData(streamed.text))).toEqual([]);
  });

  it('gRPC: the task metadata keys', async () => {
    const client = await sdkClient(agent.endpoint, 'GRPC');
    const task = asTask(await client.sendMessage(sendRequest('camel over grpc', { message: { metadata: synapseOptions() } })));
    expect(task.metadata?.synapse).toMatchObject({ responseMode: 'wait', receipt: { state: 'answered' } });
    expect(snakeKeys({ metadata: task.metadata })).toEqual([]);
  });

  it('push notifications: every body posted to the receiver', async () => {
    const receiver = await pushReceiver();
    closers.push(() => receiver.close());
    const client = await sdkClient(agent.endpoint, 'JSONRPC');
    await client.sendMessage(sendRequest('camel push', { returnImmediately: true, push: { url: receiver.url, token: 't' } }));
    await waitFor(() => receiver.received.some((r) => r.body.statusUpdate?.status?.state === 'TASK_STATE_COMPLETED'), 10_000, 'the completed push');
    expect(snakeKeys(receiver.received.map((r) => r.body))).toEqual([]);
  });

  it('the A2A cards, in both shapes', async () => {
    const v1 = (await getJson(`${agent.endpoint}/.well-known/agent-card.json`)).body;
    expect(v1.capabilities.extensions[0].params.agent).toMatchObject({ agentId: agent.agentId, agentType: 'echo', ptyWrapped: true });
    expect(snakeKeys(v1)).toEqual([]);
    const v03 = await fetch(`${agent.endpoint}/.well-known/agent-card.json`, { headers: { 'a2a-version': '0.3' } }).then((r) => r.json());
    expect(snakeKeys(v03)).toEqual([]);
  });

  it('understands camelCase Synapse options from an A2A client: sender, responseMode, inReplyTo', async () => {
    const screen = async () => ((await getJson(`${agent.endpoint}/screen`)).body.lines as string[]).join('\n');
    const first = await post('/a2a/rest/v1/message:send', {
      message: {
        messageId: 'opts-1',
        role: 'ROLE_USER',
        parts: [{ text: 'options one' }],
        metadata: { synapse: { responseMode: 'silent', sender: { senderId: 'synapse-tck-9999', senderName: 'tck' } } },
      },
      configuration: { returnImmediately: true },
    });
    expect(first.json.task.metadata.synapse).toMatchObject({ responseMode: 'silent', sender: { senderId: 'synapse-tck-9999', senderName: 'tck' } });
    // The runtime read the sender: the framed message names it, and asks for no reply (silent).
    await waitFor(async () => (await screen()).includes('[From: tck (synapse-tck-9999)] options one'), 10_000, 'the framed message');
    expect(await screen()).not.toContain('[REPLY EXPECTED] options one');

    const answer = await post('/a2a/rest/v1/message:send', {
      message: { messageId: 'opts-2', role: 'ROLE_USER', parts: [{ text: 'options two' }], metadata: { synapse: { inReplyTo: first.json.task.id } } },
      configuration: { returnImmediately: true },
    });
    expect(answer.json.task.metadata.synapse.inReplyTo).toBe(first.json.task.id);
    await waitFor(async () => (await screen()).includes(`[ANSWER to ${String(first.json.task.id).slice(0, 8)}]`), 10_000, 'the framed answer');
  });
});

/** A2A's gRPC service name and the path of its SendMessage call. */
const SEND_MESSAGE_PATH = '/lf.a2a.v1.A2AService/SendMessage';
const MARK = 'GRPC-DRIVE-BY-51d2';

async function a2aTasks(): Promise<{ totalSize: number; tasks: Array<{ status: { state: string } }> }> {
  const res = await fetch(`${agent.endpoint}/a2a/rest/v1/tasks?pageSize=100`, { headers: V1 });
  return (await res.json()) as { totalSize: number; tasks: Array<{ status: { state: string } }> };
}
const a2aTaskCount = async () => (await a2aTasks()).totalSize;
const FINISHED = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED']);

/** An HTTP/1.1 POST, as a browser or curl sends it: what the gRPC port does with it. */
function http1Post(port: number, path: string, contentType: string, body: string): Promise<string> {
  return new Promise((resolve) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': contentType, origin: 'http://evil.example' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(`HTTP ${res.statusCode}`));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => resolve(`refused: ${err.code ?? err.message}`));
    req.setTimeout(5000, () => req.destroy(new Error('timeout')));
    req.end(body);
  });
}

/** An HTTP/2 (cleartext, prior knowledge) POST: the status the gRPC server answers. */
function http2Post(port: number, path: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on('error', reject);
    const req = session.request({ ':method': 'POST', ':path': path, ...headers });
    req.on('response', (h) => {
      resolve(Number(h[':status']));
      session.close();
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the gRPC port takes only gRPC', () => {
  it('refuses HTTP/1.1 and non-gRPC content types; nothing is created, nothing reaches the PTY', async () => {
    // Earlier tests' tasks are done, so the screen only changes if something gets in.
    await waitFor(async () => (await a2aTasks()).tasks.every((x) => FINISHED.has(x.status.state)), 10_000, 'earlier tasks to finish');
    const before = await a2aTaskCount();
    const screenBefore = (await getJson(`${agent.endpoint}/screen`)).body.lines as string[];
    const rpc = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: { message: { kind: 'message', messageId: 'g', role: 'user', parts: [{ kind: 'text', text: MARK }] } },
    });
    const rest = JSON.stringify({ message: { messageId: 'g', role: 'ROLE_USER', parts: [{ text: MARK }] } });

    // HTTP/1.1 (all a web page can send to a plain http:// port): the HTTP/2-only server drops it.
    const http1: string[] = [];
    for (const [path, body] of [
      ['/a2a/jsonrpc', rpc],
      ['/a2a/rest/v1/message:send', rest],
      [SEND_MESSAGE_PATH, rest],
    ] as const)
      for (const type of ['text/plain', 'application/json', 'application/grpc']) http1.push(`${path} ${type} → ${await http1Post(grpcPort, path, type, body)}`);
    for (const line of http1) expect(line).toMatch(/→ refused: /);

    // HTTP/2 that is not gRPC: 415 before any handler runs.
    const statuses: string[] = [];
    for (const type of ['text/plain', 'application/json', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', null]) {
      const headers: Record<string, string> = type ? { 'content-type': type } : {};
      statuses.push(`${type ?? 'no type'} → ${await http2Post(grpcPort, SEND_MESSAGE_PATH, headers, rest)}`);
    }
    expect(statuses).toEqual([
      'text/plain → 415',
      'application/json → 415',
      'application/x-www-form-urlencoded → 415',
      'multipart/form-data; boundary=x → 415',
      'no type → 415',
    ]);

    expect(await a2aTaskCount()).toBe(before);
    const screenAfter = (await getJson(`${agent.endpoint}/screen`)).body.lines as string[];
    expect(screenAfter.join('\n')).not.toContain(MARK);
    expect(screenAfter).toEqual(screenBefore);

    // The port is live and takes real gRPC: the refusals above were not a closed port.
    const client = await sdkClient(agent.endpoint, 'GRPC');
    const task = asTask(await client.sendMessage(sendRequest('real grpc after the drive-by')));
    expect(task.artifacts.length).toBeGreaterThan(0);
    expect(await a2aTaskCount()).toBe(before + 1);
  });
});
