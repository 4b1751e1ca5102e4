import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupAll,
  getJson,
  postJson,
  runCli,
  startHeadless,
  startNonReplying,
  tempHome,
  textMessage,
  waitFor,
  type AgentHandle,
} from '../support/synapse.js';

/**
 * Reply routing posts an answer to the sender's endpoint, and the endpoint comes from the
 * message: from a peer. An endpoint that is not a live registered agent's is never called (no
 * SSRF: a message cannot make an agent send requests to an internal service); the answer stays
 * on the task and the reply says the sender was not told.
 */
const t = tempHome();
let quiet: AgentHandle;
let asker: AgentHandle;
let hits: string[] = [];
let victim: http.Server;
let victimUrl: string;

beforeAll(async () => {
  victim = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((r) => victim.listen(0, '127.0.0.1', r));
  victimUrl = `http://127.0.0.1:${(victim.address() as AddressInfo).port}`;
  [quiet, asker] = await Promise.all([startNonReplying('quiet', { env: t.env }), startHeadless('echo', { env: t.env, args: ['--name', 'asker'] })]);
});
afterAll(async () => {
  await cleanupAll();
  await new Promise<void>((r) => victim.close(() => r()));
  t.cleanup();
});

async function askAndReply(sender: Record<string, string>, answer: string) {
  const asked = await postJson(`${quiet.endpoint}/tasks/send`, textMessage('what is 6 x 7?', { sender, response_mode: 'notify' }));
  expect(asked.status).toBe(202);
  await waitFor(async () => (await getJson(`${quiet.endpoint}/tasks/${asked.body.task.id}`)).body.receipt?.delivered_at, 10_000, 'delivery');
  const r = await runCli(['reply', answer, '--from', quiet.agentId, '--to', sender.sender_id!, '--json'], { env: t.env });
  expect(r.code, r.stderr).toBe(0);
  return { taskId: asked.body.task.id as string, reply: JSON.parse(r.stdout) };
}

describe('no SSRF through reply routing', () => {
  it.each([
    ['an internal service on loopback', () => `${victimUrl}`],
    ['a path on it', () => `${victimUrl}/admin/delete?all=1#`],
    ['another spelling of it', () => victimUrl.replace('127.0.0.1', 'localhost')],
  ])('a sender_endpoint that is %s is not called; the answer stays on the task', async (_what, endpoint) => {
    hits = [];
    const { taskId, reply } = await askAndReply({ sender_id: 'synapse-claude-8100', sender_name: 'mallory', sender_endpoint: endpoint() }, '42');
    expect(reply).toMatchObject({
      task_id: taskId,
      status: 'completed',
      notified: false,
      forward_error: expect.stringContaining('is not the endpoint of a registered agent'),
    });
    const task = (await getJson(`${quiet.endpoint}/tasks/${taskId}`)).body;
    expect(task.status).toBe('completed');
    expect(JSON.stringify(task.artifacts)).toContain('42');
    expect(hits).toEqual([]);
  });

  it("a registered agent's endpoint still gets its answer (the check lets real senders through)", async () => {
    const { reply } = await askAndReply({ sender_id: asker.agentId, sender_name: 'asker', sender_endpoint: asker.endpoint }, 'forty-two');
    expect(reply).toMatchObject({ notified: true });
    await waitFor(
      async () =>
        ((await getJson(`${asker.endpoint}/tasks?limit=50`)).body as Array<{ artifacts: unknown }>).some((x) => JSON.stringify(x).includes('forty-two')),
      10_000,
      'the answer on the asker',
    );
    expect(hits).toEqual([]);
  });
});
