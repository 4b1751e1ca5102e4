// The stand-in for the original Python Synapse answers as the real one does: checked against what
// the real original 0.35 wrote and answered (test/fixtures/original-synapse/, recorded beside ours;
// CI cannot install the original).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOriginalSynapse, type OriginalSynapse } from './original-synapse.mjs';
import { freePort, ROOT } from './synapse.js';

/** A recording of the real original, its port 8191 made this stand-in's. */
function recorded(file: string, port: number): any {
  const text = fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'original-synapse', file), 'utf8');
  return file.endsWith('.json') ? JSON.parse(text.replaceAll('8191', String(port))) : text;
}

const typeOf = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v]));

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'original-synapse-'));
const env = { ...process.env, HOME: home, SYNAPSE_REGISTRY_DIR: path.join(home, 'registry') };
let py: OriginalSynapse;

beforeAll(async () => {
  py = await startOriginalSynapse({ env, agentType: 'dummy', port: await freePort(), workingDir: home, submitSequence: '\n' });
});
afterAll(async () => {
  await py.stop();
  fs.rmSync(home, { recursive: true, force: true });
});

async function call(method: string, url: string, body?: string) {
  const res = await fetch(`http://127.0.0.1:${py.port}${url}`, {
    method,
    ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

const send = (text: string, path = '/tasks/send') => call('POST', path, JSON.stringify({ message: { role: 'user', parts: [{ type: 'text', text }] } }));

describe('the original Synapse stand-in', () => {
  it('registers as the original does: its keys in its order, epoch-second floats, Python json.dump', () => {
    const text = fs.readFileSync(py.file, 'utf8');
    const entry = JSON.parse(text);
    const real = recorded('registry-entry.json', py.port);
    expect(Object.keys(entry)).toEqual(Object.keys(real));
    expect(typeOf(entry)).toEqual(typeOf(real));
    expect(entry).toMatchObject({
      ...real,
      pid: py.pid,
      working_dir: home,
      status_updated_at: expect.any(Number),
      last_status_change_at: expect.any(Number),
      registered_at: expect.any(Number),
    });
    expect(Number.isInteger(entry.registered_at)).toBe(false);
    expect(text).toContain(`{\n  "agent_id": "synapse-dummy-${py.port}",\n  "agent_type": "dummy",`);
    expect((fs.statSync(py.file).mode & 0o777).toString(8)).toBe('600');
  });

  it('serves its agent card', async () => {
    expect((await call('GET', '/.well-known/agent.json')).text).toBe(JSON.stringify(recorded('agent-card.json', py.port)));
  });

  it('answers its errors as FastAPI does', async () => {
    expect((await call('GET', '/tasks/nope')).text).toBe('{"detail":"Task not found"}');
    expect((await call('GET', '/tasks/send')).text).toBe('{"detail":"Task not found"}');
    expect((await call('GET', '/nope')).text).toBe('{"detail":"Not Found"}');
    const missing = await call('POST', '/tasks/send', '{}');
    expect([missing.status, missing.json().detail[0]]).toEqual([422, { type: 'missing', loc: ['body', 'message'], msg: 'Field required', input: {} }]);
    expect((await call('POST', '/tasks/send', '{"message":{"parts":[]}}')).text).toBe('{"detail":"No text content in message"}');
    const broken = await call('POST', '/tasks/send', '{bad');
    expect([broken.status, broken.json().detail[0].type]).toEqual([422, 'json_invalid']);
    const reply = await call('POST', '/tasks/send', JSON.stringify({ message: { parts: [{ type: 'text', text: 'x' }] }, metadata: { in_reply_to: 'zzzz' } }));
    expect([reply.status, reply.text]).toEqual([404, '{"detail":"Task not found"}']);
  });

  it('takes a message as a working task, refuses another while it works, and streams its end', async () => {
    const sent = await send('hello there from curl', '/tasks/send-priority?priority=3');
    expect(sent.status).toBe(200);
    const { task } = sent.json();
    const real = recorded('send-response.json', py.port).task;
    expect(Object.keys(task)).toEqual(Object.keys(real));
    expect(typeOf(task)).toEqual(typeOf(real));
    expect(Object.keys(task.metadata)).toEqual(Object.keys(real.metadata).filter((k) => k !== 'response_mode'));
    expect(task).toMatchObject({
      status: 'working',
      message: { role: 'user', parts: [{ type: 'text', text: 'hello there from curl' }] },
      artifacts: [],
      error: null,
      context_id: null,
      metadata: { _context_start: expect.any(Number), _sent_message: 'hello there from curl' },
    });
    expect(task.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const entry = JSON.parse(fs.readFileSync(py.file, 'utf8'));
    expect([entry.current_task_preview, typeof entry.task_received_at]).toEqual(['hello there from curl', 'number']);

    const busy = await send('busy?');
    expect([busy.status, busy.headers.get('retry-after'), busy.text]).toEqual([
      409,
      '2',
      `{"detail":"Agent already has a working task (${task.id.slice(0, 8)}). Retry after it completes."}`,
    ]);

    const stream = call('GET', `/tasks/${task.id}/subscribe`);
    await py.waitForRequest((r) => r.path === `/tasks/${task.id}/subscribe`);
    expect(await py.complete(task.id, 'the answer', 'content')).toBe(true);
    const sse = await stream;
    expect(sse.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(sse.text).toContain(
      'data: {"type": "status", "status": "completed"}\n\ndata: {"type": "done", "status": "completed", "artifacts": [{"type": "text", "data": {"content": "the answer"}}]}\n\n',
    );
    expect(recorded('subscribe.sse', py.port)).toContain(
      '\n\ndata: {"type": "done", "status": "completed", "artifacts": [{"type": "text", "data": {"content": "',
    );
    const done = (await call('GET', `/tasks/${task.id}`)).json();
    expect([done.status, done.artifacts]).toEqual(['completed', [{ type: 'text', data: { content: 'the answer' } }]]);
    expect(typeOf(done)).toEqual(typeOf(recorded('task-completed.json', py.port)));
    expect(JSON.parse(fs.readFileSync(py.file, 'utf8'))).not.toHaveProperty('current_task_preview');
  });

  it('says its status on GET /status as the original does, and has no POST /shutdown (SIGTERM stops it)', async () => {
    for (const [status, file] of [
      ['PROCESSING', 'status-processing.json'],
      ['READY', 'status-ready.json'],
    ] as const) {
      expect(await py.setStatus(status)).toBe(true);
      const got = (await call('GET', '/status')).json();
      const real = recorded(file, py.port);
      expect(Object.keys(got)).toEqual(Object.keys(real));
      expect({ ...got, context: typeof got.context }).toEqual({ ...real, context: 'string' });
    }
    const shutdown = await call('POST', '/shutdown', '{}');
    expect([shutdown.status, shutdown.text]).toEqual([404, '{"detail":"Not Found"}']);
  });
});
