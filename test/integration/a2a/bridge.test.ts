import { afterEach, describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import { parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { freePort, waitFor } from '../../support/synapse.js';
import { a2aApp, fakeRuntime, type FakeRuntime } from './fake-runtime.js';
import { artifactTextOf, asTask, collect, eventKinds, pushReceiver, rawRpc, sdkClient, sendRequest, userMessage, type Binding } from './sdk-client.js';

/**
 * The A2A bridge in one process: the real task manager, store and event journal with a
 * scripted agent (fake-runtime.ts), the real plugin on a loopback port, the official SDK client.
 */
const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function setup(opts: { grpc?: boolean } = {}): Promise<{ rt: FakeRuntime; base: string }> {
  const port = await freePort();
  const rt = fakeRuntime({ port });
  closers.push(() => rt.close());
  const { app, base, service } = await a2aApp(rt, { pushBackoffMs: [10, 10], ...(opts.grpc ? { grpcPort: await freePort() } : {}) });
  closers.push(() => app.close());
  if (opts.grpc) await waitFor(() => service.card().supportedInterfaces.some((i) => i.protocolBinding === 'GRPC'), 5000, 'gRPC to listen');
  return { rt, base };
}

describe('agent card', () => {
  it('lists every binding with its version, streaming and push, and the synapse extension', async () => {
    const { base } = await setup();
    const card: any = await (await fetch(`${base}/.well-known/agent-card.json`)).json();
    expect(card.supportedInterfaces.map((i: any) => `${i.protocolBinding} ${i.protocolVersion} ${i.url.replace(base, '')}`)).toEqual([
      'JSONRPC 1.0 /a2a/jsonrpc',
      'HTTP+JSON 1.0 /a2a/rest/v1',
      'JSONRPC 0.3 /a2a/v0.3/jsonrpc',
    ]);
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true });
    const ext = card.capabilities.extensions.find((e: any) => e.uri === 'urn:synapse-a2a:extension:agent:v1');
    expect(ext.params.agent.agentType).toBe('echo');
    expect(card.skills[0].id).toBe('chat');
  });

  it('serves a v0.3 card to a client that asks for 0.3, which the SDK can read', async () => {
    const { base } = await setup();
    const raw: any = await (await fetch(`${base}/.well-known/agent-card.json`, { headers: { 'a2a-version': '0.3' } })).json();
    expect(raw.url).toBe(`${base}/a2a/v0.3/jsonrpc`);
    const card = parseLegacyAgentCard(raw);
    expect(card.supportedInterfaces[0]).toMatchObject({ protocolBinding: 'JSONRPC', url: `${base}/a2a/v0.3/jsonrpc` });
    expect(card.supportedInterfaces[0]!.protocolVersion).toMatch(/^0\.3/);
  });
});

describe.each<Binding>(['JSONRPC', 'HTTP+JSON', 'GRPC'])('one task, two views over %s', (binding) => {
  const grpc = binding === 'GRPC';

  it('blocking send returns the completed task under the id the runtime has', async () => {
    const { rt, base } = await setup({ grpc });
    const client = await sdkClient(base, binding);
    const task = asTask(await client.sendMessage(sendRequest('hello')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactTextOf(task)).toBe('ECHO: hello');
    const ours = rt.api.getTask(task.id);
    expect(ours.status.state).toBe('completed');
    expect(ours.context_id).toBe(task.contextId);
    expect(ours.artifacts[0]!.artifact_id).toBe(task.artifacts[0]!.artifactId);
    expect(task.metadata?.synapse).toMatchObject({ priority: 3, responseMode: 'wait', receipt: { state: 'answered' } });
  });

  it('non-blocking send returns at once; get reads it to completion with history length', async () => {
    const { base } = await setup({ grpc });
    const client = await sdkClient(base, binding);
    const first = asTask(await client.sendMessage(sendRequest('later', { returnImmediately: true })));
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(first.status?.state);
    const done = await waitFor(
      async () => {
        const t = await client.getTask({ tenant: '', id: first.id });
        return t.status?.state === TaskState.TASK_STATE_COMPLETED ? t : null;
      },
      5000,
      'completion',
    );
    expect(done.history).toHaveLength(1);
    expect((await client.getTask({ tenant: '', id: first.id, historyLength: 0 })).history).toHaveLength(0);
  });

  it('streams task, status and artifact events in order', async () => {
    const { base } = await setup({ grpc });
    const client = await sdkClient(base, binding);
    const events = await collect(client.sendMessageStream(sendRequest('stream me')));
    const kinds = eventKinds(events).filter((k) => !k.endsWith(':output'));
    expect(kinds).toEqual([
      `task:${TaskState.TASK_STATE_SUBMITTED}`,
      `status:${TaskState.TASK_STATE_WORKING}`,
      'artifact',
      `status:${TaskState.TASK_STATE_COMPLETED}`,
    ]);
  });

  it('cancels a working task; both views say canceled', async () => {
    const { rt, base } = await setup({ grpc });
    const client = await sdkClient(base, binding);
    const t = asTask(await client.sendMessage(sendRequest('slow [[wait: 10]]', { returnImmediately: true })));
    const canceled = await client.cancelTask({ tenant: '', id: t.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(rt.api.getTask(t.id).status.state).toBe('canceled');
  });

  it('resubscribes to a task that came in through the runtime (as /tasks/send does)', async () => {
    const { rt, base } = await setup({ grpc });
    const client = await sdkClient(base, binding);
    const ours = rt.api.submit({
      message: { role: 'user', parts: [{ type: 'text', text: 'from synapse [[wait: 0.3]]' }] },
      metadata: { response_mode: 'wait' },
    });
    const events = await collect(client.resubscribeTask({ tenant: '', id: ours.id }));
    const kinds = eventKinds(events).filter((k) => !k.endsWith(':output'));
    expect(kinds[0]).toBe(`task:${TaskState.TASK_STATE_SUBMITTED}`);
    expect(kinds.slice(-2)).toEqual(['artifact', `status:${TaskState.TASK_STATE_COMPLETED}`]);
  });
});

describe('input-required', () => {
  it('a follow-up to a task that waits for something other than an approval dialog is refused as unsupported', async () => {
    const { base } = await setup();
    const client = await sdkClient(base, 'JSONRPC');
    const asked = asTask(await client.sendMessage(sendRequest('edit it [[ask]]')));
    await expect(client.sendMessage(sendRequest('src/app.ts', { message: { taskId: asked.id } }))).rejects.toThrow(/cannot take over A2A/);
  });

  it('answers an approval dialog with one of its choices; another answer is invalid params', async () => {
    const { rt, base } = await setup();
    const client = await sdkClient(base, 'HTTP+JSON');
    const asked = asTask(await client.sendMessage(sendRequest('run it [[permit]]')));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(asked.metadata?.synapse?.permission?.choices).toHaveLength(2);
    await expect(client.sendMessage(sendRequest('maybe', { message: { taskId: asked.id } }))).rejects.toThrow(/not one of the choices/);
    const events = await collect(client.sendMessageStream(sendRequest('yes', { message: { taskId: asked.id } })));
    expect(eventKinds(events).filter((k) => !k.endsWith(':output'))).toEqual([
      `task:${TaskState.TASK_STATE_INPUT_REQUIRED}`,
      `status:${TaskState.TASK_STATE_WORKING}`,
      'artifact',
      `status:${TaskState.TASK_STATE_COMPLETED}`,
    ]);
    expect(rt.api.getTask(asked.id).artifacts[0]!.parts[0]).toEqual({ type: 'text', text: 'ECHO: ran after Yes' });
  });
});

describe('start-up and shutdown', () => {
  const send = (base: string, id: number) =>
    rawRpc(
      `${base}/a2a/jsonrpc`,
      JSON.stringify({ jsonrpc: '2.0', id, method: 'SendMessage', params: { message: { messageId: `m${id}`, role: 'ROLE_USER', parts: [{ text: 'hi' }] } } }),
    );
  const sendRest = (base: string) =>
    fetch(`${base}/a2a/rest/v1/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ message: { messageId: 'r', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }),
    });

  it('takes a message while the agent starts (the runtime queues it behind the start-up instruction): no error, no retry', async () => {
    const { rt, base } = await setup();
    rt.setPhase('starting');
    const rpc = await send(base, 1);
    expect(rpc.body.error).toBeUndefined();
    expect(rpc.body.result.task.id).toBeTruthy();
    const rest = await sendRest(base);
    expect(rest.status).toBe(200);
    expect(rest.headers.get('retry-after')).toBeNull();
  });

  it('refuses a message once the agent shuts down: JSON-RPC error, REST 503 (no Retry-After: it is not coming back)', async () => {
    const { rt, base } = await setup();
    rt.setPhase('stopping');
    const rpc = await send(base, 2);
    expect(rpc.body.error.code).toBe(-32603);
    expect(rpc.body.error.message).toMatch(/shutting down/);
    expect(rpc.body.error.data[0].metadata).toEqual({ synapseCode: 'agent_not_ready' });
    const rest = await sendRest(base);
    expect(rest.status).toBe(503);
    expect(rest.headers.get('retry-after')).toBeNull();
  });
});

describe.each<Binding>(['JSONRPC', 'HTTP+JSON'])('push notifications over %s', (binding) => {
  it('set, get, list and delete a config; the receiver gets the artifact and the final status', async () => {
    const { base } = await setup();
    const receiver = await pushReceiver();
    closers.push(() => receiver.close());
    const client = await sdkClient(base, binding);
    const t = asTask(await client.sendMessage(sendRequest('push me [[wait: 0.5]]', { returnImmediately: true })));
    const created = await client.createTaskPushNotificationConfig({
      tenant: '',
      id: '',
      taskId: t.id,
      url: receiver.url,
      token: 'tok-1',
      authentication: undefined,
    });
    expect(created.id).not.toBe('');
    expect((await client.getTaskPushNotificationConfig({ tenant: '', taskId: t.id, id: created.id })).url).toBe(receiver.url);
    expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId: t.id, pageSize: 0, pageToken: '' })).configs.map((c) => c.id)).toEqual([
      created.id,
    ]);
    await waitFor(() => receiver.received.some((r) => r.body.statusUpdate?.status?.state === 'TASK_STATE_COMPLETED'), 5000, 'the completed push');
    const bodies = receiver.received.map((r) => Object.keys(r.body)[0]);
    expect(bodies.slice(-2)).toEqual(['artifactUpdate', 'statusUpdate']);
    expect(receiver.received[0]!.headers['x-a2a-notification-token']).toBe('tok-1');
    expect(receiver.received[0]!.headers['content-type']).toMatch(/application\/a2a\+json/);
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: t.id, id: created.id });
    expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId: t.id, pageSize: 0, pageToken: '' })).configs).toEqual([]);
  });
});

describe('JSON-RPC errors', () => {
  const cases: Array<[string, string, number]> = [
    ['malformed JSON', '{"jsonrpc": "2.0", "id": 1, "method": ', -32700],
    ['an empty body', '', -32700],
    ['a batch', '[{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}]', -32600],
    ['a missing jsonrpc member', '{"id":1,"method":"GetTask","params":{"id":"x"}}', -32600],
    ['a missing method', '{"jsonrpc":"2.0","id":1}', -32600],
    ['a non-scalar id', '{"jsonrpc":"2.0","id":{"a":1},"method":"GetTask"}', -32600],
    ['an unknown method', '{"jsonrpc":"2.0","id":1,"method":"DoMagic","params":{}}', -32601],
    ['params that are not an object', '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":[1]}', -32602],
    ['a get without id', '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{}}', -32602],
    ['a send without a message', '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}', -32602],
    ['an unknown task', '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"nope"}}', -32001],
  ];
  it.each(cases)('answers %s with %i', async (_what, body, code) => {
    const { base } = await setup();
    const res = await rawRpc(`${base}/a2a/jsonrpc`, body);
    expect(res.status).toBe(200);
    expect(res.body.jsonrpc).toBe('2.0');
    expect(res.body.error.code).toBe(code);
  });

  it('task not cancelable (-32002), unsupported operation (-32004), version not supported (-32009)', async () => {
    const { base } = await setup();
    const client = await sdkClient(base, 'JSONRPC');
    const done = asTask(await client.sendMessage(sendRequest('quick')));
    const rpc = (method: string, params: unknown, headers?: Record<string, string>) =>
      rawRpc(`${base}/a2a/jsonrpc`, JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }), headers);
    expect((await rpc('CancelTask', { id: done.id })).body.error.code).toBe(-32002);
    expect((await rpc('SubscribeToTask', { id: done.id })).body.error.code).toBe(-32004);
    expect((await rpc('SendMessage', { message: { messageId: 'x', role: 'ROLE_USER', taskId: done.id, parts: [{ text: 'more' }] } })).body.error.code).toBe(
      -32004,
    );
    expect((await rpc('GetTask', { id: done.id }, { 'a2a-version': '2.0' })).body.error.code).toBe(-32009);
    // A 1.0 method without the header: the answer says which header to send.
    const bare = await rpc('GetTask', { id: done.id }, {});
    expect(bare.body.error.code).toBe(-32009);
    expect(bare.body.error.message).toMatch(/A2A-Version: 1\.0/);
  });
});

describe('A2A 0.3 JSON-RPC', () => {
  it('message/send and tasks/get on the 0.3 endpoint and, without a version header, on the main one', async () => {
    const { rt, base } = await setup();
    for (const url of [`${base}/a2a/v0.3/jsonrpc`, `${base}/a2a/jsonrpc`]) {
      const sent = await rawRpc(
        url,
        JSON.stringify({
          jsonrpc: '2.0',
          id: 'a',
          method: 'message/send',
          params: { message: { kind: 'message', messageId: `m-${url.length}`, role: 'user', parts: [{ kind: 'text', text: 'old client' }] } },
        }),
        {},
      );
      expect(sent.body.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
      expect(sent.body.result.artifacts[0].parts[0]).toEqual({ kind: 'text', text: 'ECHO: old client' });
      const got = await rawRpc(url, JSON.stringify({ jsonrpc: '2.0', id: 'b', method: 'tasks/get', params: { id: sent.body.result.id } }), {});
      expect(got.body.result.id).toBe(sent.body.result.id);
      expect(rt.api.getTask(sent.body.result.id).status.state).toBe('completed');
    }
    const parse = await rawRpc(`${base}/a2a/v0.3/jsonrpc`, '{oops', {});
    expect(parse.body.error.code).toBe(-32700);
    const unknown = await rawRpc(`${base}/a2a/v0.3/jsonrpc`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/nothing', params: {} }), {});
    expect(unknown.body.error.code).toBe(-32601);
  });
});

describe('HTTP+JSON details', () => {
  it('serves trailing-slash variants and refuses a request without A2A-Version', async () => {
    const { base } = await setup();
    const client = await sdkClient(base, 'HTTP+JSON');
    const t = asTask(await client.sendMessage(sendRequest('hello')));
    const slash = await fetch(`${base}/a2a/rest/v1/tasks/${t.id}/`, { headers: { 'a2a-version': '1.0' } });
    expect(slash.status).toBe(200);
    expect(((await slash.json()) as any).id).toBe(t.id);
    const bare = await fetch(`${base}/a2a/rest/v1/tasks/${t.id}`);
    expect(bare.status).toBe(400);
    expect(((await bare.json()) as any).error.details[0].reason).toBe('VERSION_NOT_SUPPORTED');
    const missing = await fetch(`${base}/a2a/rest/v1/tasks/nope`, { headers: { 'a2a-version': '1.0' } });
    expect(missing.status).toBe(404);
    const badJson = await fetch(`${base}/a2a/rest/v1/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: '{nope',
    });
    expect(badJson.status).toBe(400);
    const list = await fetch(`${base}/a2a/rest/v1/tasks?pageSize=10`, { headers: { 'a2a-version': '1.0' } });
    expect(((await list.json()) as any).tasks.map((x: any) => x.id)).toContain(t.id);
    const unknown = await fetch(`${base}/a2a/rest/v1/nothing/here`, { headers: { 'a2a-version': '1.0' } });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.message).toMatch(/no A2A HTTP\+JSON resource/);
  });

  it("answers a body over the limit in the binding's own shape", async () => {
    const { base } = await setup();
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x'.repeat(2 * 1024 * 1024) } });
    const rpc = await fetch(`${base}/a2a/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: big });
    expect(rpc.status).toBe(413);
    expect(((await rpc.json()) as any).error.code).toBe(-32600);
    const rest = await fetch(`${base}/a2a/rest/v1/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: big,
    });
    expect(rest.status).toBe(413);
    expect(((await rest.json()) as any).error.code).toBe(413);
  });
});

describe('message parts', () => {
  it('keeps file and data parts through both views', async () => {
    const { rt, base } = await setup();
    const client = await sdkClient(base, 'JSONRPC');
    const message = userMessage('see attached');
    message.parts.push(
      { content: { $case: 'raw', value: Buffer.from('hello file') }, filename: 'a.txt', mediaType: 'text/plain', metadata: undefined },
      { content: { $case: 'url', value: 'https://example.com/b.png' }, filename: 'b.png', mediaType: 'image/png', metadata: undefined },
      { content: { $case: 'data', value: { k: 1 } }, filename: '', mediaType: 'application/json', metadata: undefined },
    );
    const t = asTask(await client.sendMessage({ ...sendRequest('x'), message }));
    expect(rt.api.getTask(t.id).message.parts).toEqual([
      { type: 'text', text: 'see attached' },
      { type: 'file', file: { name: 'a.txt', mimeType: 'text/plain', bytes: Buffer.from('hello file').toString('base64') } },
      { type: 'file', file: { name: 'b.png', mimeType: 'image/png', uri: 'https://example.com/b.png' } },
      { type: 'data', data: { k: 1 } },
    ]);
    const read = await client.getTask({ tenant: '', id: t.id });
    expect(read.history[0]!.parts.map((p) => p.content?.$case)).toEqual(['text', 'raw', 'url', 'data']);
  });
});
