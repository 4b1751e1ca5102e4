import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupAll,
  getJson,
  ROOT,
  postJson,
  startHeadless,
  startNonReplying,
  tempHome,
  textMessage,
  waitFor,
  waitForTask,
  type AgentHandle,
} from '../../support/synapse.js';
import { originalEntry, pythonJson } from '../../support/original-synapse.mjs';

/**
 * Synapse's own routes answer in the original Python Synapse's wire shapes (synapse/a2a_models.py,
 * a2a_compat.py of Synapse 0.35), so that its clients, scripts and skills work against ours: each
 * route here is called as the original's clients call it and its answer checked field by field.
 */

const t = tempHome();
/** Answers every [REPLY EXPECTED] message itself (synapse reply), as a good agent does. */
let bob: AgentHandle;
/** Never replies: its messages wait on its reply stack. */
let quiet: AgentHandle;

/** The original's Task fields, then ours. */
const TASK_KEYS = [
  'id',
  'status',
  'message',
  'artifacts',
  'error',
  'created_at',
  'updated_at',
  'context_id',
  'metadata',
  'priority',
  'receipt',
  'status_message',
  'status_timestamp',
];
const STATES = ['submitted', 'working', 'input_required', 'completed', 'failed', 'canceled'];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** A Task as the original's pydantic model has it: `status` a string, artifacts `{type, data}`, `error` an object or null. */
function expectWireTask(task: any): void {
  expect(Object.keys(task)).toEqual(TASK_KEYS);
  expect(typeof task.id).toBe('string');
  expect(STATES).toContain(task.status);
  expect(task.message).toEqual({ role: expect.stringMatching(/^(user|agent)$/), parts: expect.any(Array) });
  for (const a of task.artifacts) expect(Object.keys(a)).toEqual(['type', 'data']);
  if (task.error !== null) expect(task.error).toEqual({ code: expect.any(String), message: expect.any(String), data: task.error.data });
  expect(task.created_at).toMatch(ISO);
  expect(task.updated_at).toMatch(ISO);
  expect(typeof task.context_id).toBe('string');
  expect(typeof task.metadata).toBe('object');
  expect(typeof task.priority).toBe('number');
  expect(task.receipt).toMatchObject({ state: expect.any(String), queued_at: expect.stringMatching(ISO) });
  expect(task.status_timestamp).toMatch(ISO);
}

/** A stand-in for an original Synapse agent that sent a message: records what is posted to it. */
async function originalSender(knownTaskIds: string[]): Promise<{ endpoint: string; bodies: any[]; close: () => Promise<void> }> {
  const bodies: any[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : null;
      bodies.push({ path: req.url, body });
      // As the original: an answer whose in_reply_to names no task of its own is 404.
      const inReplyTo = body?.metadata?.in_reply_to;
      const known = inReplyTo === undefined || knownTaskIds.includes(inReplyTo);
      res
        .writeHead(known ? 200 : 404, { 'content-type': 'application/json' })
        .end(JSON.stringify(known ? { task: { id: 'x', status: 'completed' } } : { detail: 'Task not found' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  // Registered as the original registers itself: an answer goes only to an agent the registry knows.
  const entry = path.join(t.env.SYNAPSE_REGISTRY_DIR!, `synapse-claude-${port}.json`);
  fs.mkdirSync(path.dirname(entry), { recursive: true });
  fs.writeFileSync(entry, pythonJson(originalEntry({ agentType: 'claude', port, pid: process.pid, workingDir: ROOT })));
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bodies,
    close: () =>
      new Promise((r) =>
        server.close(() => {
          fs.rmSync(entry, { force: true });
          r();
        }),
      ),
  };
}

beforeAll(async () => {
  [bob, quiet] = await Promise.all([startHeadless('echo', { env: t.env, args: ['--name', 'bob'] }), startNonReplying('quiet', { env: t.env })]);
}, 30_000);

afterAll(async () => {
  await cleanupAll();
  t.cleanup();
});

describe("the task routes answer in the original's shapes", () => {
  it('POST /tasks/send and /tasks/send-priority: {task}; GET /tasks/{id}: the task itself; GET /tasks: an array', async () => {
    const sent = await postJson(`${bob.endpoint}/tasks/send`, { ...textMessage('shape check', { response_mode: 'wait' }), context_id: 'ctx-shape' });
    expect(sent.status).toBe(202);
    expect(Object.keys(sent.body)).toEqual(['task']);
    expectWireTask(sent.body.task);
    // Queued, or already typed in when the agent was idle.
    expect(['submitted', 'working']).toContain(sent.body.task.status);
    expect(sent.body.task).toMatchObject({ artifacts: [], error: null, context_id: 'ctx-shape', priority: 3 });
    expect(sent.body.task.message).toEqual({ role: 'user', parts: [{ type: 'text', text: 'shape check' }] });

    const done = await waitForTask(bob.endpoint, sent.body.task.id);
    expectWireTask(done);
    expect(done).toMatchObject({
      status: 'completed',
      artifacts: [{ type: 'text', data: 'ECHO: A2A: [REPLY EXPECTED] shape check' }],
      error: null,
      status_message: null,
      receipt: { state: 'answered' },
      metadata: { kind: 'message', response_mode: 'wait', reply_source: 'reply' },
    });

    const urgent = await postJson(`${bob.endpoint}/tasks/send-priority?priority=2`, textMessage('low priority'));
    expect(Object.keys(urgent.body)).toEqual(['task']);
    expect(urgent.body.task.priority).toBe(2);
    expect((await waitForTask(bob.endpoint, urgent.body.task.id)).priority).toBe(2);

    const list = await getJson(`${bob.endpoint}/tasks`);
    expect(Array.isArray(list.body)).toBe(true);
    for (const task of list.body) expectWireTask(task);
    expect((await getJson(`${bob.endpoint}/tasks?context_id=ctx-shape`)).body.map((x: any) => x.id)).toEqual([sent.body.task.id]);
    expect((await getJson(`${bob.endpoint}/tasks?context_id=ctx-shape&state=failed`)).body).toEqual([]);
    expect((await getJson(`${bob.endpoint}/tasks?context_id=nope`)).body).toEqual([]);
    const completed = (await getJson(`${bob.endpoint}/tasks?state=completed&limit=500`)).body;
    expect(completed.map((x: any) => x.id)).toContain(sent.body.task.id);
    expect(completed.every((x: any) => x.status === 'completed')).toBe(true);
    expect((await getJson(`${bob.endpoint}/tasks?state=input_required`)).body).toEqual([]);
    // A unique prefix finds the task, as before.
    expect((await getJson(`${bob.endpoint}/tasks/${sent.body.task.id.slice(0, 8)}`)).body.id).toBe(sent.body.task.id);
  });

  it('POST /tasks/{id}/cancel: {status: "canceled", task_id} (and the task); a finished task is 409', async () => {
    const running = await postJson(`${quiet.endpoint}/tasks/send`, textMessage('think long [[wait: 30]]'));
    // Typed in and being worked on, so the interrupt lands on a running turn.
    await waitFor(async () => (await getJson(`${quiet.endpoint}/status`)).body.status === 'PROCESSING', 10_000, 'PROCESSING');
    const canceled = await postJson(`${quiet.endpoint}/tasks/${running.body.task.id}/cancel`, {});
    expect(canceled.status).toBe(200);
    expect(Object.keys(canceled.body)).toEqual(['status', 'task_id', 'task']);
    expect(canceled.body).toMatchObject({ status: 'canceled', task_id: running.body.task.id, task: { status: 'canceled', error: null } });
    expectWireTask(canceled.body.task);
    expect((await postJson(`${quiet.endpoint}/tasks/${running.body.task.id}/cancel`, {})).status).toBe(409);
    const screen = async () => ((await getJson(`${quiet.endpoint}/screen`)).body.lines as string[]).join('\n');
    await waitFor(async () => (await screen()).includes('Interrupted.'), 10_000, 'the interrupt on screen');
  });
});

describe("GET /status answers the original's fields, then ours", () => {
  it('{status, lifecycle, ready, readiness_reason, context} as the real original 0.35 answered (test/fixtures/original-synapse/)', async () => {
    const fixture = (f: string) => JSON.parse(fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'original-synapse', f), 'utf8'));
    const pick = (o: any) => ({ status: o.status, lifecycle: o.lifecycle, ready: o.ready, readiness_reason: o.readiness_reason, context: typeof o.context });
    // An agent that nothing else uses: its screen and status are this test's.
    const rep = await startHeadless('echo', { env: t.env });
    // READY after its start-up instruction (the first READY comes before the instruction is typed).
    await waitFor(
      async () => {
        const body = (await getJson(`${rep.endpoint}/status`)).body;
        return body.status === 'READY' && body.ready_for_messages === true;
      },
      10_000,
      'READY with the start-up instruction done',
    );
    const idle = (await getJson(`${rep.endpoint}/status`)).body;
    expect(pick(idle)).toEqual({ ...pick(fixture('status-ready.json')), context: 'string' });
    expect(idle.context.split('\n').at(-1)).toBe('echo>');
    expect(idle).toMatchObject({ agent_id: rep.agentId, queued: 0, ready_for_messages: true });

    await postJson(`${rep.endpoint}/tasks/send`, textMessage('think long [[wait: 30]]'));
    const busy = await waitFor(
      async () => {
        const body = (await getJson(`${rep.endpoint}/status`)).body;
        // PROCESSING comes as the message is taken; the screen shows it a moment later.
        return body.status === 'PROCESSING' && String(body.context).includes('echo> A2A: think long') ? body : null;
      },
      10_000,
      'PROCESSING with the message on screen',
    );
    expect(pick(busy)).toEqual({ ...pick(fixture('status-processing.json')), context: 'string' });
    expect(busy.context).toContain('echo> A2A: think long [[wait: 30]]');
    await rep.stop();
  });
});

describe("the original's routes for replies, outgoing tasks and history", () => {
  it('POST /tasks/create: a working task that is never typed into the CLI; an answer in_reply_to it completes it', async () => {
    const created = await postJson(`${bob.endpoint}/tasks/create`, {
      message: { role: 'user', parts: [{ type: 'text', text: 'CREATED-NOT-TYPED' }] },
      metadata: { response_mode: 'wait', direction: 'outgoing', target_endpoint: quiet.endpoint },
    });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body)).toEqual(['task']);
    expectWireTask(created.body.task);
    const id = created.body.task.id;
    expect(created.body.task).toMatchObject({ status: 'working', metadata: { kind: 'outgoing', direction: 'outgoing', target_endpoint: quiet.endpoint } });
    // The agent does not work on it: nothing in flight, not busy.
    const status = (await getJson(`${bob.endpoint}/status`)).body;
    expect([status.current_task, ['READY', 'DONE'].includes(status.status)]).toEqual([null, true]);

    // The answer as the original's `synapse reply` posts it: artifacts in {type, data: {content}}.
    const answer = await postJson(`${bob.endpoint}/tasks/send`, {
      message: { role: 'agent', parts: [{ type: 'text', text: 'the answer' }] },
      metadata: {
        in_reply_to: id,
        response_mode: 'silent',
        sender: { sender_id: 'synapse-claude-8100' },
        reply_status: 'completed',
        reply_artifacts: [{ type: 'text', data: { content: 'the answer, structured' } }],
      },
    });
    expect(answer.status).toBe(202);
    const done = await waitForTask(bob.endpoint, id);
    expect(done).toMatchObject({ status: 'completed', artifacts: [{ type: 'text', data: 'the answer, structured' }], error: null });
    const screen = ((await getJson(`${bob.endpoint}/screen`)).body.lines as string[]).join('\n');
    expect(screen).not.toContain('CREATED-NOT-TYPED');

    // A failed answer fails the created task with the error it carries.
    const second = (await postJson(`${bob.endpoint}/tasks/create`, { message: textMessage('x').message })).body.task.id;
    await postJson(`${bob.endpoint}/tasks/send`, {
      message: { role: 'agent', parts: [{ type: 'text', text: 'cannot' }] },
      metadata: { in_reply_to: second, response_mode: 'silent', reply_status: 'failed', reply_error: { code: 'REPLY_FAILED', message: 'cannot' } },
    });
    expect(await waitForTask(bob.endpoint, second)).toMatchObject({ status: 'failed', error: { code: 'REPLY_FAILED', message: 'cannot', data: null } });
  });

  it("POST /history/update: the original's completion callback finishes a created task; anything else is 404", async () => {
    const id = (await postJson(`${bob.endpoint}/tasks/create`, { message: textMessage('silent job').message })).body.task.id;
    const updated = await postJson(`${bob.endpoint}/history/update`, { task_id: id, status: 'completed', output_summary: 'did it' });
    expect(updated).toMatchObject({ status: 200, body: { updated: true, task_id: id, status: 'completed' } });
    expect(await getJson(`${bob.endpoint}/tasks/${id}`)).toMatchObject({
      body: { status: 'completed', artifacts: [{ type: 'text', data: 'did it' }], metadata: { completion_callback: true } },
    });
    expect((await postJson(`${bob.endpoint}/history/update`, { task_id: id, status: 'failed' })).status).toBe(409);
    const failing = (await postJson(`${bob.endpoint}/tasks/create`, { message: textMessage('another').message })).body.task.id;
    await postJson(`${bob.endpoint}/history/update`, { task_id: failing, status: 'failed', output_summary: null });
    expect((await getJson(`${bob.endpoint}/tasks/${failing}`)).body).toMatchObject({ status: 'failed', error: { code: 'TASK_FAILED' } });
    // This agent's own work is never rewritten from outside.
    const own = await postJson(`${bob.endpoint}/tasks/send`, textMessage('my own work'));
    const refused = await postJson(`${bob.endpoint}/history/update`, { task_id: own.body.task.id, status: 'failed' });
    expect([refused.status, refused.body.error.code]).toEqual([404, 'task_not_found']);
    expect((await postJson(`${bob.endpoint}/history/update`, { task_id: 'no-such-task', status: 'completed' })).status).toBe(404);
  });

  it('the reply stack: /list {sender_ids, targets}, /get and /pop the target itself, 404 when empty', async () => {
    const sender = { sender_id: 'synapse-claude-8100', sender_name: 'alice', sender_endpoint: 'http://127.0.0.1:9' };
    const sent = await postJson(`${quiet.endpoint}/tasks/send`, textMessage('who waits?', { response_mode: 'wait', sender, sender_task_id: 'alice-task-1' }));
    await waitFor(async () => (await getJson(`${quiet.endpoint}/reply-stack/list`)).body.targets.length === 1, 10_000, 'the stack entry');
    const target = {
      sender_endpoint: 'http://127.0.0.1:9',
      sender_uds_path: null,
      sender_task_id: 'alice-task-1',
      receiver_task_id: sent.body.task.id,
      message_preview: 'who waits?',
      received_at: expect.stringMatching(ISO),
      sender_id: 'synapse-claude-8100',
      sender_name: 'alice',
    };
    expect((await getJson(`${quiet.endpoint}/reply-stack/list`)).body).toEqual({ sender_ids: ['synapse-claude-8100'], targets: [target] });
    expect((await getJson(`${quiet.endpoint}/reply-stack/get`)).body).toEqual(target);
    expect((await getJson(`${quiet.endpoint}/reply-stack/get?sender_id=synapse-claude-8100`)).body).toEqual(target);
    expect((await getJson(`${quiet.endpoint}/reply-stack/get?sender_id=nobody`)).status).toBe(404);
    expect((await getJson(`${quiet.endpoint}/reply-stack/pop`)).body).toEqual(target);
    expect((await getJson(`${quiet.endpoint}/reply-stack/get`)).status).toBe(404);
    expect((await getJson(`${quiet.endpoint}/reply-stack/list`)).body).toEqual({ sender_ids: [], targets: [] });
  });

  it('POST /tasks/{id}/reply records the reply on the task only: completed, or failed with REPLY_FAILED or its own error', async () => {
    const sender = await originalSender([]);
    try {
      const ask = (text: string) =>
        postJson(
          `${quiet.endpoint}/tasks/send`,
          textMessage(text, { response_mode: 'notify', sender: { sender_id: 'synapse-codex-8120', sender_endpoint: sender.endpoint } }),
        );
      const [a, b, c] = [await ask('first'), await ask('second'), await ask('third')];
      await waitFor(async () => (await getJson(`${quiet.endpoint}/reply-stack/list`)).body.targets.length === 3, 15_000, 'three waiting');

      const ok = await postJson(`${quiet.endpoint}/tasks/${a.body.task.id}/reply`, { message: 'done' });
      expect(ok.status).toBe(200);
      expectWireTask(ok.body);
      expect(ok.body).toMatchObject({ id: a.body.task.id, status: 'completed', artifacts: [{ type: 'text', data: 'done' }], error: null });

      const failed = await postJson(`${quiet.endpoint}/tasks/${b.body.task.id}/reply`, { message: 'no disk space', status: 'failed' });
      expect(failed.body).toMatchObject({ status: 'failed', artifacts: [], error: { code: 'REPLY_FAILED', message: 'no disk space', data: null } });

      const error = { code: 'QUOTA_EXCEEDED', message: 'out of tokens', data: { retry_after: 60 } };
      const own = await postJson(`${quiet.endpoint}/tasks/${c.body.task.id}/reply`, { message: 'out of tokens', status: 'failed', error });
      expect(own.body).toMatchObject({ status: 'failed', error });

      // Recorded only: nothing was posted to the sender, and nobody waits any more.
      expect(sender.bodies).toEqual([]);
      expect((await getJson(`${quiet.endpoint}/reply-stack/list`)).body.targets).toEqual([]);
      expect((await postJson(`${quiet.endpoint}/tasks/${b.body.task.id}/reply`, { message: 'again' })).status).toBe(409);
      expect((await postJson(`${quiet.endpoint}/tasks/nope-nope/reply`, { message: 'x' })).status).toBe(404);
    } finally {
      await sender.close();
    }
  });

  it('an answer to an original agent carries reply_status and reply_artifacts, and names its own task when ours is unknown to it', async () => {
    const sender = await originalSender(['orig-outgoing-7']);
    try {
      const sent = await postJson(
        `${bob.endpoint}/tasks/send`,
        textMessage('from the original', {
          response_mode: 'notify',
          sender_task_id: 'orig-outgoing-7',
          sender: { sender_id: 'synapse-claude-8100', sender_endpoint: sender.endpoint },
        }),
      );
      await waitFor(() => sender.bodies.length === 2, 10_000, 'the answer, posted twice');
      // First with our task id (as to our own agents), which the original does not know: 404.
      expect(sender.bodies[0].body.metadata.in_reply_to).toBe(sent.body.task.id);
      const answer = sender.bodies[1];
      expect(answer.path).toBe('/tasks/send');
      expect(answer.body).toMatchObject({
        message: {
          role: 'agent',
          parts: [{ type: 'text', text: 'ECHO: A2A: [From: synapse-claude-8100 (synapse-claude-8100)] [REPLY EXPECTED] from the original' }],
        },
        metadata: {
          in_reply_to: 'orig-outgoing-7',
          response_mode: 'silent',
          reply_status: 'completed',
          reply_artifacts: [{ type: 'text', data: 'ECHO: A2A: [From: synapse-claude-8100 (synapse-claude-8100)] [REPLY EXPECTED] from the original' }],
          sender: { sender_id: bob.agentId, sender_endpoint: bob.endpoint },
        },
      });
      expect(answer.body.metadata).not.toHaveProperty('reply_error');
    } finally {
      await sender.close();
    }
  });
});

describe('hostile input on the new routes', () => {
  it('refuses malformed bodies with 400 and changes nothing', async () => {
    const before = (await getJson(`${quiet.endpoint}/tasks?limit=1000`)).body.length;
    const long = 'x'.repeat(129);
    const cases: Array<[string, unknown]> = [
      ['/tasks/create', {}],
      ['/tasks/create', { message: { role: 'user', parts: [] } }],
      ['/tasks/create', { message: { role: 'admin', parts: [{ type: 'text', text: 'x' }] } }],
      ['/tasks/create', { message: { role: 'user', parts: [{ type: 'text', text: 'x' }] }, metadata: ['not', 'an', 'object'] }],
      ['/tasks/create', { message: { role: 'user', parts: [{ type: 'exec', cmd: 'rm -rf /' }] } }],
      ['/tasks/x/reply', {}],
      ['/tasks/x/reply', { message: '' }],
      ['/tasks/x/reply', { message: 'x', status: 'canceled' }],
      ['/tasks/x/reply', { message: 'x', status: 'failed', error: { message: 'no code' } }],
      ['/history/update', {}],
      ['/history/update', { task_id: 'x', status: 'working' }],
      ['/history/update', { task_id: '', status: 'completed' }],
      ['/history/update', { task_id: long, status: 'completed' }],
      ['/reply', { text: 'x', status: 'maybe' }],
      ['/reply', { text: 'x', status: 'failed', error: { code: '', message: 'x' } }],
    ];
    for (const [url, body] of cases) {
      const r = await postJson(`${quiet.endpoint}${url}`, body);
      expect({ url, body, status: r.status, code: r.body?.error?.code }).toEqual({ url, body, status: 400, code: 'invalid_input' });
    }
    // An id longer than any task id: refused before the route (URI too long).
    expect((await postJson(`${quiet.endpoint}/tasks/${long}/reply`, { message: 'x' })).status).toBe(414);
    // A prototype-polluting key is refused by the JSON parser itself.
    const proto = await fetch(`${quiet.endpoint}/tasks/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"message":{"role":"user","parts":[{"type":"text","text":"x"}]},"metadata":{"__proto__":{"polluted":true}}}',
    });
    expect(proto.status).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await getJson(`${quiet.endpoint}/tasks?limit=1000`)).body.length).toBe(before);
  });
});
