import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, getJson, postJson, startHeadless, tempHome, textMessage, waitForTask, type AgentHandle } from '../support/synapse.js';
import { sendRaw } from './support/raw-http.js';

/** What the fuzz run found, each pinned by the request that showed it. */
const t = tempHome();
let a: AgentHandle;
beforeAll(async () => {
  a = await startHeadless('echo', { env: { ...t.env, ECHO_THINK_MS: '0' } });
});
afterAll(async () => {
  await cleanupAll();
  t.cleanup();
});

function head(url: string): Promise<{ status: number; type: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'HEAD', timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']) }));
    });
    req.on('timeout', () => req.destroy(new Error(`HEAD ${url} got no answer`)));
    req.on('error', reject);
    req.end();
  });
}

describe('fuzz findings', () => {
  it('a task canceled while it is being typed in does not stop the inbox (the next message is delivered)', async () => {
    for (let i = 0; i < 3; i++) {
      const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage(`cancel me ${i}`));
      const canceled = await postJson(`${a.endpoint}/tasks/${sent.body.task.id}/cancel`, {});
      expect(canceled.body.status).toBe('canceled');
      const next = await postJson(`${a.endpoint}/tasks/send`, textMessage(`after cancel ${i}`));
      const done = await waitForTask(a.endpoint, next.body.task.id, 10_000);
      expect(done.status).toBe('completed');
    }
  });

  it('HEAD of an SSE stream answers with its headers instead of hanging', async () => {
    const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage('for a stream'));
    expect(await head(`${a.endpoint}/events`)).toEqual({ status: 200, type: 'text/event-stream; charset=utf-8' });
    expect((await head(`${a.endpoint}/tasks/${sent.body.task.id}/subscribe`)).status).toBe(200);
    expect((await head(`${a.endpoint}/tasks/no-such-task/subscribe`)).status).toBe(404);
  });

  it('a path parameter over the length limit is invalid_input (414), without echoing the path', async () => {
    const res = await fetch(`${a.endpoint}/tasks/${'a'.repeat(150)}%1B%5B201~`);
    expect(res.status).toBe(414);
    const body = await res.text();
    expect(JSON.parse(body)).toEqual({ error: { code: 'invalid_input', message: expect.any(String) } });
    expect(body).not.toContain('aaaa');
  });

  it('a malformed percent-encoding is invalid_input (400)', async () => {
    const got = await sendRaw(a.port, Buffer.from(`GET /tasks/%E0%A4%A HTTP/1.1\r\nHost: 127.0.0.1:${a.port}\r\nConnection: close\r\n\r\n`), 5000);
    expect(got.data).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(got.data.slice(got.data.indexOf('\r\n\r\n') + 4)).error.code).toBe('invalid_input');
  });

  it('bytes that are not HTTP get an error in the documented shape, then the connection closes', async () => {
    const got = await sendRaw(a.port, Buffer.from(`FOO /status HTTP/1.1\r\nHost: 127.0.0.1:${a.port}\r\n\r\n`), 5000);
    expect(got.closed).toBe(true);
    expect(got.data).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(got.data.slice(got.data.indexOf('\r\n\r\n') + 4))).toEqual({ error: { code: 'invalid_input', message: expect.any(String) } });
  });

  it.each([
    ['tasks/resubscribe', { id: { constructor: [] } }, 'params.id must be a string'],
    ['tasks/get', { id: 7 }, 'params.id must be a string'],
    ['message/send', { message: { kind: 'message', messageId: 'm', role: 'user', parts: [], taskId: {} } }, 'params.message.taskId must be a string'],
    ['tasks/pushNotificationConfig/set', { taskId: 'x' }, 'params.pushNotificationConfig must be an object'],
  ])('JSON-RPC 0.3 %s with params of the wrong type is invalid params (-32602), not an internal error', async (method, params, message) => {
    const res = await fetch(`${a.endpoint}/a2a/v0.3/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: `Invalid params: ${message}` } });
  });

  it.each([
    ['/a2a/jsonrpc', { 'a2a-version': '1.0' }],
    ['/a2a/v0.3/jsonrpc', {}],
  ])('a JSON-RPC method named __proto__ or constructor on %s is an error answer, not an internal error (500)', async (route, headers) => {
    for (const method of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const res = await fetch(`${a.endpoint}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method, params: { message: { messageId: 'm', role: 'ROLE_USER', parts: '${7*7}' } } }),
      });
      expect(res.status, method).toBeLessThan(500);
      const body = (await res.json()) as { error?: { code: number } };
      expect(body.error?.code, method).not.toBe(-32603);
    }
  });

  it('an unknown A2A HTTP+JSON resource is NOT_FOUND, not UNKNOWN / INTERNAL_ERROR', async () => {
    const res = await fetch(`${a.endpoint}/a2a/rest/v1/extendedAgentCard`, { method: 'OPTIONS' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    expect((await getJson(`${a.endpoint}/status`)).status).toBe(200);
  });
});
