import { once } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, getJson, postJson, runCli, startHeadless, tempHome, textMessage, waitFor, waitForTask, type AgentHandle } from '../support/synapse.js';

/**
 * The limits of one agent (issue 15 §5; guides/http-api.md, "Limits"): each one crossed, the
 * refusal in the shape of the route that refused it, and the agent still working afterwards.
 * `plain` runs with the defaults (body 1 MiB, 200,000 characters, 32 parts); `tight` with small
 * limits set through the environment (3 queued per sender, 2 streams, 2 webhooks).
 */
const t = tempHome();
let plain: AgentHandle;
let tight: AgentHandle;

beforeAll(async () => {
  [plain, tight] = await Promise.all([
    startHeadless('echo', { env: t.env, args: ['--name', 'plain'] }),
    startHeadless('echo', {
      env: { ...t.env, SYNAPSE_MAX_QUEUED_PER_SENDER: '3', SYNAPSE_MAX_SSE_STREAMS: '2', SYNAPSE_MAX_WEBHOOKS: '2' },
      args: ['--name', 'tight'],
    }),
  ]);
});
afterAll(async () => {
  await cleanupAll();
  t.cleanup();
});

const MiB = 1024 * 1024;

/** One whole HTTP/1.1 answer at the start of `raw` (a Content-Length body), or null until it is all there. */
function answerOf(raw: string): { status: number; headers: Record<string, string>; length: number } | null {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  const length = end + 4 + Number(headers['content-length'] ?? 0);
  return raw.length >= length ? { status: Number(statusLine!.split(' ')[1]), headers, length } : null;
}

async function rpc(endpoint: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${endpoint}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as any };
}

const v03Send = (text: string, sender?: string, parts?: unknown[]) => ({
  jsonrpc: '2.0',
  id: 'lim-1',
  method: 'message/send',
  params: {
    message: {
      kind: 'message',
      messageId: `m-${Math.random()}`,
      role: 'user',
      parts: parts ?? [{ kind: 'text', text }],
      ...(sender ? { metadata: { synapse: { sender: { sender_id: sender } } } } : {}),
    },
    configuration: { blocking: false },
  },
});

async function stillWorks(a: AgentHandle, what: string): Promise<void> {
  const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage(`after ${what}`));
  expect(sent.status).toBe(202);
  const done = await waitForTask(a.endpoint, sent.body.task.id, 20_000);
  expect(done.status).toBe('completed');
  expect(JSON.stringify(done.artifacts)).toContain(`after ${what}`);
}

describe('limits', () => {
  it('a body over 1 MiB (the default) is 413 on every face, each in its own shape; just under it is read', async () => {
    const big = JSON.stringify(textMessage('x'.repeat(MiB + 10)));
    const synapse = await fetch(`${plain.endpoint}/tasks/send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(synapse.status).toBe(413);
    expect(((await synapse.json()) as any).error.code).toBe('body_too_large');

    const rpcRes = await fetch(`${plain.endpoint}/a2a/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(rpcRes.status).toBe(413);
    expect(await rpcRes.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });

    const rest = await fetch(`${plain.endpoint}/a2a/rest/v1/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: big,
    });
    expect(rest.status).toBe(413);
    expect(((await rest.json()) as any).error).toMatchObject({ code: 413 });

    // Under the body limit (and the text limit): read and validated as usual.
    const under = await postJson(`${plain.endpoint}/tasks/send`, { task_id: 'not-a-uuid', ...textMessage('y'.repeat(150_000)) });
    expect(under.status).toBe(400);
    expect(under.body.error.code).toBe('invalid_input');
    await stillWorks(plain, 'the big bodies');
  });

  it('a client still sending a body over the limit reads the whole 413, and its connection stays usable', async () => {
    // The agent answers from Content-Length before the body arrives; this client reads that answer
    // first, then sends the rest of the body, then a second request on the same connection. Cut
    // off after its answer, the connection made the rest an EPIPE and the second request unanswered.
    for (const route of ['/tasks/send', '/a2a/jsonrpc', '/a2a/rest/v1/message:send']) {
      const socket = net.connect(plain.port, '127.0.0.1');
      await once(socket, 'connect');
      let received = '';
      socket.setEncoding('latin1');
      socket.on('data', (d: string) => (received += d));
      const errors: string[] = [];
      socket.on('error', (err) => errors.push(err.message));
      const length = MiB + 100_000;
      socket.write(
        `POST ${route} HTTP/1.1\r\nHost: 127.0.0.1:${plain.port}\r\nContent-Type: application/json\r\na2a-version: 1.0\r\nContent-Length: ${length}\r\n\r\n{"x":"`,
      );
      const first = await waitFor(() => answerOf(received), 10_000, `the 413 of ${route}`);
      expect({ route, status: first.status, connection: first.headers.connection ?? null }).toEqual({ route, status: 413, connection: null });
      received = received.slice(first.length);
      socket.write('y'.repeat(length - 6));
      socket.write(`GET /status HTTP/1.1\r\nHost: 127.0.0.1:${plain.port}\r\n\r\n`);
      const second = await waitFor(() => answerOf(received), 10_000, `the status after the 413 of ${route}`);
      expect({ route, status: second.status, errors }).toEqual({ route, status: 200, errors: [] });
      socket.destroy();
    }
  });

  it('a body declared more than 16 MiB over the limit is still cut off after its 413', async () => {
    // The agent reads and drops at most 16 MiB past its limit (lingerOverLimit): a client cannot
    // make it read an arbitrary amount.
    const socket = net.connect(plain.port, '127.0.0.1');
    await once(socket, 'connect');
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (received += d));
    socket.on('error', () => undefined);
    const closed = once(socket, 'close');
    socket.write(`POST /tasks/send HTTP/1.1\r\nHost: 127.0.0.1:${plain.port}\r\nContent-Type: application/json\r\nContent-Length: ${18 * MiB}\r\n\r\n{"x":"`);
    const first = await waitFor(() => answerOf(received), 10_000, 'the 413');
    expect({ status: first.status, connection: first.headers.connection ?? null }).toEqual({ status: 413, connection: 'close' });
    await closed;
  });

  it('message text over 200,000 characters and more than 32 parts are 413 message_too_large, nothing is queued', async () => {
    const before = (await getJson(`${plain.endpoint}/tasks?limit=1000`)).body.length;
    const long = await postJson(`${plain.endpoint}/tasks/send`, textMessage('z'.repeat(200_001)));
    expect(long.status).toBe(413);
    expect(long.body.error).toMatchObject({ code: 'message_too_large', details: { characters: 200_001, limit: 200_000 } });
    expect(long.body.error.message).toContain('SYNAPSE_MAX_MESSAGE_CHARS');

    const parts = Array.from({ length: 33 }, (_, i) => ({ type: 'text', text: `part ${i}` }));
    const many = await postJson(`${plain.endpoint}/tasks/send`, { message: { role: 'user', parts } });
    expect(many.status).toBe(413);
    expect(many.body.error).toMatchObject({ code: 'message_too_large', details: { parts: 33, limit: 32 } });

    // JSON-RPC: its own envelope, invalid params, the limit in `data`; HTTP 413 for plain clients.
    const rpcLong = await rpc(plain.endpoint, v03Send('z'.repeat(200_001)));
    expect(rpcLong.status).toBe(413);
    expect(rpcLong.body).toMatchObject({ jsonrpc: '2.0', id: 'lim-1', error: { code: -32602, data: { synapse_code: 'message_too_large', limit: 200_000 } } });
    const rpcParts = await rpc(
      plain.endpoint,
      v03Send(
        '',
        undefined,
        parts.map((p) => ({ kind: 'text', text: p.text })),
      ),
    );
    expect(rpcParts.body.error).toMatchObject({ code: -32602, data: { synapse_code: 'message_too_large', parts: 33 } });

    // HTTP+JSON: google.rpc.Status.
    const rest = await fetch(`${plain.endpoint}/a2a/rest/v1/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ message: { messageId: 'r-1', role: 'ROLE_USER', parts: [{ text: 'z'.repeat(200_001) }] } }),
    });
    expect(rest.status).toBe(413);
    expect(((await rest.json()) as any).error).toMatchObject({ code: 413, status: 'INVALID_ARGUMENT' });

    expect((await getJson(`${plain.endpoint}/tasks?limit=1000`)).body.length).toBe(before);
    await stillWorks(plain, 'the long messages');
  });

  it('a sender with 3 messages waiting gets 429 with Retry-After and its queue depth; other senders are not held up; it may send again once they are delivered', async () => {
    const asX = { sender: { sender_id: 'synapse-echo-1', sender_name: 'x' }, response_mode: 'silent' };
    const blocker = await postJson(`${tight.endpoint}/tasks/send`, textMessage('hold the inbox [[wait: 60]]'));
    await waitFor(async () => (await getJson(`${tight.endpoint}/tasks/${blocker.body.task.id}`)).body.status === 'working', 10_000, 'the blocker to work');
    const queued: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await postJson(`${tight.endpoint}/tasks/send`, textMessage(`from x ${i}`, asX));
      expect(r.status).toBe(202);
      queued.push(r.body.task.id);
    }
    const refused = await postJson(`${tight.endpoint}/tasks/send`, textMessage('from x, one too many', asX));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.body.error).toMatchObject({ code: 'queue_full', details: { sender_id: 'synapse-echo-1', queued: 3, limit: 3, retry_after: 5 } });

    // The same over JSON-RPC: its own envelope, HTTP 429 and Retry-After.
    const rpcRefused = await rpc(tight.endpoint, v03Send('x again', 'synapse-echo-1'));
    expect({ status: rpcRefused.status, retryAfter: rpcRefused.retryAfter }).toEqual({ status: 429, retryAfter: '5' });
    expect(rpcRefused.body).toMatchObject({ jsonrpc: '2.0', id: 'lim-1', error: { code: -32090, data: { synapse_code: 'queue_full', queued: 3, limit: 3 } } });

    // The CLI prints the refusal as a receipt (--json) and exits 4.
    const cli = await runCli(['send', 'tight', 'from the cli', '--silent', '--json', '--from', 'synapse-echo-1', '--force'], { env: t.env });
    expect(cli.code, cli.stderr).toBe(4);
    expect(JSON.parse(cli.stdout)).toMatchObject({ status: 'refused', receipt: 'queue_full', queued: 3, limit: 3, retry_after: 5 });
    expect(cli.stderr).toMatch(/3 of your messages are waiting in its inbox \(limit 3\); send it again in 5 s/);

    // Someone else is not held up by x.
    const other = await postJson(`${tight.endpoint}/tasks/send`, textMessage('from y', { sender: { sender_id: 'synapse-echo-2' }, response_mode: 'silent' }));
    expect(other.status).toBe(202);

    // Nothing accepted is lost: once the inbox moves, all of x's messages are delivered, and x may send again.
    await postJson(`${tight.endpoint}/tasks/${blocker.body.task.id}/cancel`, {});
    for (const id of [...queued, other.body.task.id]) expect((await waitForTask(tight.endpoint, id, 20_000)).status).toBe('completed');
    const again = await postJson(`${tight.endpoint}/tasks/send`, textMessage('from x, later', asX));
    expect(again.status).toBe(202);
    expect((await waitForTask(tight.endpoint, again.body.task.id, 20_000)).status).toBe('completed');
  }, 60_000);

  it('a third event stream is 429 too_many_streams (Synapse and A2A alike); closing one makes room', async () => {
    const open: AbortController[] = [];
    const openEvents = async () => {
      const ctl = new AbortController();
      const res = await fetch(`${tight.endpoint}/events`, { signal: ctl.signal });
      open.push(ctl);
      return res;
    };
    try {
      expect((await openEvents()).status).toBe(200);
      expect((await openEvents()).status).toBe(200);
      const third = await fetch(`${tight.endpoint}/events`);
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).toBe('10');
      expect(((await third.json()) as any).error).toMatchObject({ code: 'too_many_streams', details: { open: 2, limit: 2 } });

      // A2A streaming is refused the same way, before a task is made.
      const before = (await getJson(`${tight.endpoint}/tasks?limit=1000`)).body.length;
      const stream = await rpc(tight.endpoint, { ...v03Send('stream me'), method: 'message/stream' });
      expect(stream.status).toBe(429);
      expect(stream.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32090, data: { synapse_code: 'too_many_streams' } } });
      expect((await getJson(`${tight.endpoint}/tasks?limit=1000`)).body.length).toBe(before);

      open.shift()!.abort();
      const again = await waitFor(
        async () => {
          const ctl = new AbortController();
          const res = await fetch(`${tight.endpoint}/events`, { signal: ctl.signal });
          if (res.status === 200) return open.push(ctl);
          await res.body?.cancel();
          return null;
        },
        10_000,
        'a slot to free up',
      );
      expect(again).toBeGreaterThan(0);
    } finally {
      for (const ctl of open) ctl.abort();
    }
    await stillWorks(tight, 'the streams');
  });

  it('a third webhook is 409 too_many_webhooks; re-registering a URL it has and deleting one still work', async () => {
    const add = (url: string) => postJson(`${tight.endpoint}/webhooks`, { url });
    expect((await add('http://127.0.0.1:9/one')).status).toBe(201);
    const two = await add('http://127.0.0.1:9/two');
    expect(two.status).toBe(201);
    const three = await add('http://127.0.0.1:9/three');
    expect(three.status).toBe(409);
    expect(three.body.error).toMatchObject({ code: 'too_many_webhooks', details: { count: 2, limit: 2 } });
    expect((await add('http://127.0.0.1:9/one')).status).toBe(200);
    expect((await fetch(`${tight.endpoint}/webhooks/${two.body.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await add('http://127.0.0.1:9/three')).status).toBe(201);
    expect((await getJson(`${tight.endpoint}/webhooks`)).body).toHaveLength(2);
    await stillWorks(tight, 'the webhooks');
  });

  it('a limit that does not parse stops the start with an error naming the variable', async () => {
    const r = await runCli(['start', 'echo', '--name', 'badlimit'], { env: { ...t.env, SYNAPSE_MAX_BODY_BYTES: '1mb' } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('SYNAPSE_MAX_BODY_BYTES must be a whole number of bytes');
  });
});
