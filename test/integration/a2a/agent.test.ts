import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import { artifactText, cleanupAll, getJson, startHeadless, tempHome, waitFor, type AgentHandle } from '../../support/synapse.js';
import { artifactTextOf, asTask, collect, eventKinds, pushReceiver, rawRpc, sdkClient, sendRequest, type Binding } from './sdk-client.js';

/** Standard A2A against real echo agents (a PTY-wrapped CLI behind the runtime). */
const t = tempHome();
const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  await cleanupAll();
});
afterAll(() => t.cleanup());

const RANK: Record<string, number> = { [TaskState.TASK_STATE_SUBMITTED]: 1, [TaskState.TASK_STATE_WORKING]: 2, [TaskState.TASK_STATE_COMPLETED]: 3 };

/** gRPC starts right after the HTTP server; the card lists it once it listens. */
async function agentWithGrpc(): Promise<AgentHandle> {
  const a = await startHeadless('echo', { env: t.env });
  await waitFor(
    async () => (await getJson(`${a.endpoint}/.well-known/agent-card.json`)).body.supportedInterfaces.some((i: any) => i.protocolBinding === 'GRPC'),
    5000,
    'gRPC in the card',
  );
  return a;
}

describe.each<Binding>(['JSONRPC', 'HTTP+JSON', 'GRPC'])('an echo agent over %s', (binding) => {
  it('sends, streams, reads, resubscribes and cancels; /tasks/:id sees the same tasks', async () => {
    const a = await agentWithGrpc();
    const client = await sdkClient(a.endpoint, binding);
    expect((await client.getAgentCard()).supportedInterfaces.find((i) => i.protocolBinding === binding)?.protocolVersion).toBe('1.0');

    // Blocking send: the reply is the artifact, under the id /tasks/:id knows.
    const done = asTask(await client.sendMessage(sendRequest('hello a2a')));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactTextOf(done)).toContain('ECHO: ');
    expect(artifactTextOf(done)).toContain('hello a2a');
    const ours = (await getJson(`${a.endpoint}/tasks/${done.id}`)).body;
    expect(ours.status).toBe('completed');
    expect(ours.context_id).toBe(done.contextId);
    expect(artifactText(ours)).toBe(artifactTextOf(done));
    expect(done.metadata?.synapse?.receipt?.state).toBe('answered');

    // Non-blocking send, then get with history length.
    const later = asTask(await client.sendMessage(sendRequest('non blocking', { returnImmediately: true })));
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(later.status?.state);
    const finished = await waitFor(
      async () => {
        const x = await client.getTask({ tenant: '', id: later.id });
        return x.status?.state === TaskState.TASK_STATE_COMPLETED ? x : null;
      },
      10_000,
      'the non-blocking task',
    );
    expect(finished.history).toHaveLength(1);
    expect((await client.getTask({ tenant: '', id: later.id, historyLength: 0 })).history).toHaveLength(0);

    // Streaming: task first, states only move forward, the artifact comes before the final status.
    const events = await collect(client.sendMessageStream(sendRequest('stream please')));
    const kinds = eventKinds(events).filter((k) => !k.endsWith(':output'));
    expect(kinds[0]).toMatch(/^task:/);
    expect(kinds.slice(-2)).toEqual(['artifact', `status:${TaskState.TASK_STATE_COMPLETED}`]);
    const ranks = events
      .map((e) =>
        e.payload?.$case === 'task' ? e.payload.value.status?.state : e.payload?.$case === 'statusUpdate' ? e.payload.value.status?.state : undefined,
      )
      .filter((s) => s !== undefined)
      .map((s) => RANK[s]!);
    expect(ranks).toEqual([...ranks].sort((x, y) => x - y));

    // Resubscribe to a task sent through Synapse's own route.
    const viaSynapse = (
      await fetch(`${a.endpoint}/tasks/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: { role: 'user', parts: [{ type: 'text', text: 'think [[wait: 1]]' }] }, metadata: { response_mode: 'wait' } }),
      }).then((r) => r.json() as Promise<any>)
    ).task;
    const resub = eventKinds(await collect(client.resubscribeTask({ tenant: '', id: viaSynapse.id }))).filter((k) => !k.endsWith(':output'));
    expect(resub[0]).toMatch(/^task:/);
    expect(resub.at(-1)).toBe(`status:${TaskState.TASK_STATE_COMPLETED}`);

    // Cancel a task that keeps working.
    const slow = asTask(await client.sendMessage(sendRequest('slow [[wait: 10]]', { returnImmediately: true })));
    const canceled = await client.cancelTask({ tenant: '', id: slow.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await getJson(`${a.endpoint}/tasks/${slow.id}`)).body.status).toBe('canceled');
  });
});

describe('push notifications on a real agent', () => {
  it('delivers artifact and status updates to the configured receiver until the task is done', async () => {
    const a = await startHeadless('echo', { env: t.env });
    const receiver = await pushReceiver();
    closers.push(() => receiver.close());
    const client = await sdkClient(a.endpoint, 'JSONRPC');
    const sent = asTask(
      await client.sendMessage(sendRequest('notify me [[wait: 1]]', { returnImmediately: true, push: { url: receiver.url, token: 'secret-token' } })),
    );
    const configs = await client.listTaskPushNotificationConfig({ tenant: '', taskId: sent.id, pageSize: 0, pageToken: '' });
    expect(configs.configs).toHaveLength(1);
    const extra = await client.createTaskPushNotificationConfig({
      tenant: '',
      id: 'second',
      taskId: sent.id,
      url: `${receiver.url}?n=2`,
      token: '',
      authentication: { scheme: 'Bearer', credentials: 'abc' },
    });
    expect((await client.getTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: extra.id })).url).toBe(`${receiver.url}?n=2`);
    await waitFor(
      () => receiver.received.filter((r) => r.body.statusUpdate?.status?.state === 'TASK_STATE_COMPLETED').length === 2,
      10_000,
      'both receivers told of completion',
    );
    expect(receiver.received.some((r) => r.headers.authorization === 'Bearer abc')).toBe(true);
    expect(receiver.received.some((r) => r.headers['x-a2a-notification-token'] === 'secret-token')).toBe(true);
    expect(receiver.received.find((r) => r.body.artifactUpdate)?.body.artifactUpdate.taskId).toBe(sent.id);
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: extra.id });
    expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId: sent.id, pageSize: 0, pageToken: '' })).configs.map((c) => c.id)).toEqual([
      configs.configs[0]!.id,
    ]);
  });
});

describe('JSON-RPC on a real agent', () => {
  it('answers a v0.3 client and every malformed request with its own error code', async () => {
    const a = await startHeadless('echo', { env: t.env });
    const url = `${a.endpoint}/a2a/jsonrpc`;
    const old = await rawRpc(
      `${a.endpoint}/a2a/v0.3/jsonrpc`,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'x',
        method: 'message/send',
        params: { message: { kind: 'message', messageId: 'legacy-1', role: 'user', parts: [{ kind: 'text', text: 'from 2025' }] } },
      }),
      {},
    );
    expect(old.body.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect((await getJson(`${a.endpoint}/tasks/${old.body.result.id}`)).body.status).toBe('completed');

    const codes: Array<[string, number]> = [
      ['{"jsonrpc":"2.0","id":1,', -32700],
      ['{"jsonrpc":"1.0","id":1,"method":"GetTask"}', -32600],
      ['{"jsonrpc":"2.0","id":1,"method":"NoSuchMethod","params":{}}', -32601],
      ['{"jsonrpc":"2.0","id":1,"method":"GetTask","params":"x"}', -32602],
      ['{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"missing"}}', -32001],
      [JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id: old.body.result.id } }), -32002],
      [JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: old.body.result.id } }), -32004],
    ];
    for (const [body, code] of codes) {
      const res = await rawRpc(url, body);
      expect({ body, code: res.body.error?.code }).toEqual({ body, code });
    }
    // A non-JSON content type is refused before the body is read (a web page sends text/plain
    // without a CORS preflight), as A2A's ContentTypeNotSupportedError, never as Fastify's 400.
    const text = await rawRpc(url, '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}', { 'a2a-version': '1.0', 'content-type': 'text/plain' });
    expect({ status: text.status, code: text.body.error.code }).toEqual({ status: 200, code: -32005 });
  });
});

describe('input-required on a real agent', () => {
  it('a blocking send stops at the approval dialog; a follow-up with the choice finishes the turn', async () => {
    const a = await startHeadless('echo', { env: t.env });
    const client = await sdkClient(a.endpoint, 'JSONRPC');
    const asked = asTask(await client.sendMessage(sendRequest('tidy up [[ask: rm -rf build]]')));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(asked.metadata?.synapse?.permission?.choices.map((c: any) => c.label)).toEqual(['Yes', 'Yes, and always allow it', 'No']);
    await expect(client.sendMessage(sendRequest('maybe', { message: { taskId: asked.id } }))).rejects.toThrow(/not one of the choices/);
    const done = asTask(await client.sendMessage(sendRequest('approve', { message: { taskId: asked.id, contextId: asked.contextId } })));
    expect(done.id).toBe(asked.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactTextOf(done)).toMatch(/allowed/);
    expect((await getJson(`${a.endpoint}/tasks/${asked.id}`)).body.status).toBe('completed');
  });

  it('a plan-approval screen: metadata.plan over A2A; a follow-up with other text rejects it and becomes the next message', async () => {
    const a = await startHeadless('echo', { env: t.env });
    const client = await sdkClient(a.endpoint, 'JSONRPC');
    const asked = asTask(await client.sendMessage(sendRequest('[[plan: drop the cache]]')));
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(asked.metadata?.synapse?.plan).toEqual({ text: 'drop the cache' });
    const done = asTask(await client.sendMessage(sendRequest('keep the cache, add a TTL', { message: { taskId: asked.id, contextId: asked.contextId } })));
    expect(done.id).toBe(asked.id);
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactTextOf(done)).toContain('plan rejected');
    const reason = await waitFor(
      async () => ((await getJson(`${a.endpoint}/tasks`)).body as any[]).find((x) => x.metadata.plan_rejected === asked.id && x.status === 'completed') ?? null,
      5000,
      'the reason delivered',
    );
    expect(artifactText(reason)).toContain('Your plan was rejected. Reason: keep the cache, add a TTL');

    const again = asTask(await client.sendMessage(sendRequest('[[plan: drop the cache]]')));
    const approved = asTask(await client.sendMessage(sendRequest('approve', { message: { taskId: again.id, contextId: again.contextId } })));
    expect(approved.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactTextOf(approved)).toContain('(plan approved)');
  });
});
