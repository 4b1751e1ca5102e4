import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, getJson, runCli, startHeadless, tempHome, waitFor, waitForTask, type AgentHandle } from '../../support/synapse.js';

/**
 * Retries never duplicate work (issue 21 §3): a send carries an idempotency key (the
 * `Idempotency-Key` header on Synapse's routes, the messageId on A2A), and the same key within
 * 24 h answers with the first task (200), never a second task and never 409. Connections are
 * cut by hand with raw sockets, after the agent took the request.
 */

const t = tempHome();
let a: AgentHandle;

beforeAll(async () => {
  a = await startHeadless('echo', { env: { ...t.env, ECHO_THINK_MS: '0' }, args: ['--name', 'idem'] });
}, 30_000);

afterAll(async () => {
  await cleanupAll();
  t.cleanup();
});

function sendBody(text: string): string {
  return JSON.stringify({ message: { role: 'user', parts: [{ type: 'text', text }] }, metadata: { response_mode: 'silent' } });
}

function rawRequest(pathname: string, body: string, headers: Record<string, string>): string {
  const lines = [
    `POST ${pathname} HTTP/1.1`,
    `Host: 127.0.0.1:${a.port}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    'Connection: close',
  ];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/**
 * Sends the request on a raw socket and destroys the socket: once the first byte of the answer
 * arrived (the agent took the request and answered; the client never reads the answer), or
 * right after writing (`afterWrite`).
 */
function sendAndCut(request: string, when: 'first-byte' | 'after-write'): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(a.port, '127.0.0.1', () => {
      socket.write(request, () => {
        if (when === 'after-write') {
          socket.destroy();
          resolve();
        }
      });
    });
    socket.once('data', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

async function post(pathname: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${a.endpoint}${pathname}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: res.status, body: await res.json() };
}

/** The agent's tasks whose message says `marker`. */
async function tasksSaying(marker: string): Promise<any[]> {
  const { body } = await getJson(`${a.endpoint}/tasks?limit=1000`);
  return (body as any[]).filter((task) => JSON.stringify(task.message).includes(marker));
}

/** How many times the echo CLI answered `marker` on its screen: once per delivery. */
async function echoesOf(marker: string): Promise<number> {
  const { body } = await getJson(`${a.endpoint}/screen`);
  return (body.lines as string[]).filter((l) => l.startsWith('ECHO:') && l.includes(marker)).length;
}

/**
 * The same, once the answer is on the screen. A task answered through the reply route can be
 * completed before the agent has read (and its emulator rendered) the answer the CLI printed just
 * before it replied: the two reach the agent by different ways, in either order.
 */
async function deliveriesOnScreen(marker: string): Promise<number> {
  await waitFor(async () => (await echoesOf(marker)) > 0, 5_000, `the echo of ${marker} on the screen`);
  return echoesOf(marker);
}

describe('POST /tasks/send with Idempotency-Key', () => {
  it('a retry after the connection was cut past acceptance gets the first task (200): one task, one delivery', async () => {
    const marker = `cut-after-accept-${randomUUID().slice(0, 8)}`;
    const key = randomUUID();
    await sendAndCut(rawRequest('/tasks/send', sendBody(marker), { 'Idempotency-Key': key }), 'first-byte');
    const [first] = await waitFor(async () => {
      const found = await tasksSaying(marker);
      return found.length > 0 ? found : null;
    });

    const retry = await post('/tasks/send', sendBody(marker), { 'Idempotency-Key': key });
    expect(retry.status).toBe(200);
    expect(retry.body.task.id).toBe(first.id);
    // And once more, after the task has finished: still the same task, now completed.
    await waitForTask(a.endpoint, first.id);
    const late = await post('/tasks/send-priority?priority=4', sendBody(marker), { 'Idempotency-Key': key });
    expect(late.status).toBe(200);
    expect(late.body.task).toMatchObject({ id: first.id, status: 'completed' });

    expect((await tasksSaying(marker)).map((task) => task.id)).toEqual([first.id]);
    expect(await deliveriesOnScreen(marker)).toBe(1);
  });

  it('a retry of a request whose socket closed right after writing makes exactly one task either way', async () => {
    const marker = `cut-after-write-${randomUUID().slice(0, 8)}`;
    const key = randomUUID();
    await sendAndCut(rawRequest('/tasks/send-priority?priority=3', sendBody(marker), { 'Idempotency-Key': key }), 'after-write');
    const retry = await post('/tasks/send-priority?priority=3', sendBody(marker), { 'Idempotency-Key': key });
    // 202 if the cut request never made it into the agent, 200 if it did: one task in both cases.
    expect([200, 202]).toContain(retry.status);
    await waitForTask(a.endpoint, retry.body.task.id);
    // The cut request, if the agent reads it only now, finds the key too: still one task.
    expect((await tasksSaying(marker)).map((task) => task.id)).toEqual([retry.body.task.id]);
    expect(await deliveriesOnScreen(marker)).toBe(1);
  });

  it('a key reused for a different message is refused with 422 idempotency_key_reused; nothing is typed', async () => {
    const key = randomUUID();
    const marker = `reused-${randomUUID().slice(0, 8)}`;
    const first = await post('/tasks/send', sendBody(`${marker} one`), { 'Idempotency-Key': key });
    expect(first.status).toBe(202);
    const other = await post('/tasks/send', sendBody(`${marker} two`), { 'Idempotency-Key': key });
    expect(other.status).toBe(422);
    expect(other.body.error).toMatchObject({ code: 'idempotency_key_reused', details: { task_id: first.body.task.id } });
    await waitForTask(a.endpoint, first.body.task.id);
    expect((await tasksSaying(marker)).map((task) => task.id)).toEqual([first.body.task.id]);
  });

  it('without a key, two sends are two tasks (as before)', async () => {
    const marker = `no-key-${randomUUID().slice(0, 8)}`;
    const one = await post('/tasks/send', sendBody(marker), {});
    const two = await post('/tasks/send', sendBody(marker), {});
    expect([one.status, two.status]).toEqual([202, 202]);
    expect(one.body.task.id).not.toBe(two.body.task.id);
  });
});

describe('A2A sends: the messageId is the key', () => {
  const rpc = async (message: Record<string, unknown>, configuration?: Record<string, unknown>) => {
    const res = await fetch(`${a.endpoint}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message, ...(configuration ? { configuration } : {}) } }),
    });
    return (await res.json()) as any;
  };

  it('SendMessage retried with the same messageId returns the first task; a cut HTTP+JSON send retried too', async () => {
    const marker = `a2a-${randomUUID().slice(0, 8)}`;
    const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: marker }] };
    const first = await rpc(message, { returnImmediately: true });
    const again = await rpc(message);
    expect(again.result.task.id).toBe(first.result.task.id);
    // A blocking retry waits for the task like the first send would have.
    expect(again.result.task.status.state).toBe('TASK_STATE_COMPLETED');

    const cutMarker = `a2a-cut-${randomUUID().slice(0, 8)}`;
    const cutMessage = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: cutMarker }] };
    const body = JSON.stringify({ message: cutMessage });
    await sendAndCut(rawRequest('/a2a/rest/v1/message:send', body, { 'A2A-Version': '1.0' }), 'after-write');
    const retry = await post('/a2a/rest/v1/message:send', body, { 'a2a-version': '1.0' });
    expect(retry.status).toBe(200);
    expect(retry.body.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await tasksSaying(cutMarker)).map((task) => task.id)).toEqual([retry.body.task.id]);
    expect(await deliveriesOnScreen(cutMarker)).toBe(1);
    expect((await tasksSaying(marker)).length).toBe(1);
  });

  it('a streaming retry follows the first task to its end (running), or answers with it (finished)', async () => {
    const stream = async (message: Record<string, unknown>) => {
      const res = await fetch(`${a.endpoint}/a2a/rest/v1/message:stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ message }),
      });
      return (await res.text())
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => JSON.parse(l.slice(6)));
    };
    const marker = `a2a-stream-${randomUUID().slice(0, 8)}`;
    const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: `${marker} [[wait: 1]]` }] };
    const first = await rpc(message, { returnImmediately: true });
    const running = await stream(message);
    expect(running[0].task.id).toBe(first.result.task.id);
    expect(running.at(-1).statusUpdate?.status.state ?? running.at(-1).task?.status.state).toBe('TASK_STATE_COMPLETED');
    const finished = await stream(message);
    expect(finished).toHaveLength(1);
    expect(finished[0].task).toMatchObject({ id: first.result.task.id, status: { state: 'TASK_STATE_COMPLETED' } });
    expect((await tasksSaying(marker)).length).toBe(1);
  });

  it('a messageId reused for another message is an invalid request, and makes no task', async () => {
    const messageId = randomUUID();
    const marker = `a2a-reused-${randomUUID().slice(0, 8)}`;
    await rpc({ messageId, role: 'ROLE_USER', parts: [{ text: `${marker} one` }] });
    const other = await rpc({ messageId, role: 'ROLE_USER', parts: [{ text: `${marker} two` }] });
    expect(other.error.code).toBe(-32602); // InvalidParams
    expect(other.error.message).toContain('different message');
    expect((await tasksSaying(marker)).length).toBe(1);
  });
});

describe('synapse send', () => {
  it('sends again with the same key when the connection breaks after the agent took the message: one task, one delivery', async () => {
    // A proxy in front of the agent that cuts the first connection as soon as the agent answers.
    let connections = 0;
    const proxy = net.createServer((client) => {
      const n = ++connections;
      const upstream = net.connect(a.port, '127.0.0.1');
      client.pipe(upstream);
      upstream.on('data', (chunk) => {
        if (n === 1) {
          client.destroy();
          upstream.destroy();
        } else client.write(chunk);
      });
      upstream.on('end', () => client.end());
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const proxyPort = (proxy.address() as net.AddressInfo).port;
    const registry = t.env.SYNAPSE_REGISTRY_DIR!;
    const entry = JSON.parse(fs.readFileSync(path.join(registry, `${a.agentId}.json`), 'utf8'));
    const flakyId = `synapse-echo-${proxyPort}`;
    const file = path.join(registry, `${flakyId}.json`);
    // An agent "flaky" reached through the proxy; a sleeping process stands in for its pid (not the
    // test's own: the command would take an ancestor for the sender, and refuse to send to itself).
    const standIn = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    fs.writeFileSync(
      file,
      JSON.stringify({
        ...entry,
        agent_id: flakyId,
        name: 'flaky',
        port: proxyPort,
        endpoint: `http://127.0.0.1:${proxyPort}`,
        pid: standIn.pid,
        pid_starttime: null,
        heartbeat_at: new Date().toISOString(),
      }),
    );
    try {
      const marker = `cli-retry-${randomUUID().slice(0, 8)}`;
      const r = await runCli(['send', 'flaky', marker, '--silent', '--json'], { env: t.env, cwd: entry.working_dir });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('sending again with the same idempotency key');
      expect(connections).toBe(2);
      const sent = JSON.parse(r.stdout);
      await waitForTask(a.endpoint, sent.task_id);
      expect((await tasksSaying(marker)).map((task) => task.id)).toEqual([sent.task_id]);
      expect(await deliveriesOnScreen(marker)).toBe(1);
    } finally {
      standIn.kill();
      fs.rmSync(file, { force: true });
      await new Promise((r) => proxy.close(r));
    }
  });
});
