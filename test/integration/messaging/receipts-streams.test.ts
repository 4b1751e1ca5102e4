import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createParser } from 'eventsource-parser';
import { artifactText, cleanupAll, freePort, getJson, postJson, startHeadless, tempHome, textMessage, waitFor, waitForTask } from '../../support/synapse.js';

interface Ev {
  id: number;
  event: string;
  data: any;
}

/**
 * Collects SSE events until `stopAfter` says so (or the stream ends). `opened` settles once the
 * server has answered with the stream's headers, i.e. once the subscription exists.
 */
function open(url: string, lastEventId?: number, stopAfter?: (e: Ev) => boolean): { opened: Promise<void>; events: Promise<Ev[]> } {
  let opened!: () => void;
  const openedP = new Promise<void>((r) => (opened = r));
  const events = new Promise<Ev[]>((resolve, reject) => {
    const events: Ev[] = [];
    const req = http.get(url, { headers: lastEventId ? { 'last-event-id': String(lastEventId) } : {} }, (res) => {
      opened();
      const parser = createParser({
        onEvent: (m) => {
          const e = { id: Number(m.id), event: m.event ?? 'message', data: JSON.parse(m.data) };
          events.push(e);
          if (stopAfter?.(e)) {
            req.destroy();
            resolve(events);
          }
        },
      });
      res.setEncoding('utf8');
      res.on('data', (c: string) => parser.feed(c));
      res.on('end', () => resolve(events));
    });
    req.on('error', (err) => (events.length ? resolve(events) : reject(err)));
  });
  return { opened: openedP, events };
}

function collect(url: string, lastEventId?: number): Promise<Ev[]> {
  return open(url, lastEventId).events;
}

describe('receipts, streams and durability', () => {
  const t = tempHome();
  afterEach(cleanupAll);
  afterAll(() => t.cleanup());

  it('marks a message delivered only once its text is seen on the screen', async () => {
    const a = await startHeadless('echo', { env: t.env });
    const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage('show me'));
    const task = await waitForTask(a.endpoint, sent.body.task.id);
    expect(task.metadata.delivery_evidence).toBe('echo');
    expect(Date.parse(task.receipt.delivered_at)).toBeGreaterThanOrEqual(Date.parse(task.receipt.queued_at));
    expect(Date.parse(task.receipt.answered_at)).toBeGreaterThanOrEqual(Date.parse(task.receipt.delivered_at));
  });

  it('says delivery_unconfirmed when the CLI swallows the message, after one resubmit', async () => {
    // --resume skips the start-up instruction, which this CLI would swallow too.
    const a = await startHeadless('echo', { env: { ...t.env, ECHO_SWALLOW: '1' }, args: ['--', '--resume'] });
    const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage('into the void'));
    const task = await waitForTask(a.endpoint, sent.body.task.id, 10_000);
    expect(task.status).toBe('failed');
    expect(task.receipt.state).toBe('delivery_unconfirmed');
    expect(task.status_message).toMatch(/never showed on the CLI screen/);
    expect(task.error).toEqual({ code: 'DELIVERY_UNCONFIRMED', message: task.status_message, data: null });
    // The inbox moves on: the next message is attempted too.
    const next = await postJson(`${a.endpoint}/tasks/send`, textMessage('next'));
    expect((await waitForTask(a.endpoint, next.body.task.id, 10_000)).receipt.state).toBe('delivery_unconfirmed');
  });

  it('keeps queued messages across a stop and start with the same id, and delivers them', async () => {
    const port = await freePort();
    const a = await startHeadless('echo', { env: t.env, port });
    const slow = await postJson(`${a.endpoint}/tasks/send`, textMessage('long job [[wait: 30]]'));
    await waitFor(async () => (await getJson(`${a.endpoint}/tasks/${slow.body.task.id}`)).body.status === 'working');
    const queued = await postJson(`${a.endpoint}/tasks/send`, textMessage('do this after the restart'));
    expect(queued.body.task.status).toBe('submitted');
    await a.stop();
    const b = await startHeadless('echo', { env: t.env, port });
    const done = await waitForTask(b.endpoint, queued.body.task.id);
    expect(artifactText(done)).toBe('ECHO: A2A: do this after the restart');
    const interrupted = (await getJson(`${b.endpoint}/tasks/${slow.body.task.id}`)).body;
    expect(interrupted.status).toBe('failed');
    expect(interrupted.status_message).toMatch(/agent was stopped during the task/);
    expect(interrupted.error.code).toBe('AGENT_STOPPED');
  });

  it("streams status, output and done in order over SSE in the original's shape, and replays after Last-Event-ID", async () => {
    const a = await startHeadless('echo', { env: t.env });
    const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage('line one\nline two [[wait: 1]]'));
    const id = sent.body.task.id;
    const events = await collect(`${a.endpoint}/tasks/${id}/subscribe`);
    // As the original: no event names (EventSource.onmessage sees every one); the JSON `type` says what it is.
    expect(new Set(events.map((e) => e.event))).toEqual(new Set(['message']));
    // Every status change in order and one done at the end: none may go missing.
    const kinds = events.map((e) => (e.data.type === 'status' ? `status:${e.data.status}` : e.data.type));
    expect(kinds.filter((k) => k !== 'output')).toEqual(['status:submitted', 'status:working', 'status:completed', 'done']);
    // Output lines (if the turn drew any before it ended) come only while the task is working.
    const working = kinds.indexOf('status:working');
    const completed = kinds.indexOf('status:completed');
    for (const [i, k] of kinds.entries()) if (k === 'output') expect(i > working && i < completed, `output at ${i} in ${kinds.join(' ')}`).toBe(true);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]!.data).toMatchObject({ type: 'status', status: 'submitted', task_id: id });
    const done = events.at(-1)!.data;
    expect(done).toMatchObject({ type: 'done', status: 'completed', artifacts: [{ type: 'text', data: 'ECHO: A2A: line one\nline two [[wait: 1]]' }] });
    expect(done).not.toHaveProperty('error');
    expect(done.task).toMatchObject({ id, status: 'completed', error: null });
    // Reconnecting after event 2 gets exactly the rest.
    const replay = await collect(`${a.endpoint}/tasks/${id}/subscribe`, 2);
    expect(replay.map((e) => e.id)).toEqual(events.slice(2).map((e) => e.id));
  });

  it('emits live output lines of a running task before it is done', async () => {
    const a = await startHeadless('echo', { env: t.env });
    const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage('first\nsecond\nthird [[wait: 1.5]]'));
    const events = await collect(`${a.endpoint}/tasks/${sent.body.task.id}/subscribe`);
    const output = events.filter((e) => e.data.type === 'output');
    const doneIndex = events.findIndex((e) => e.data.type === 'done');
    expect(output.length).toBeGreaterThan(0);
    expect(events.indexOf(output[0]!)).toBeLessThan(doneIndex);
    // `data` is the new text, as the original sends it; `lines` the same lines.
    for (const o of output) expect(o.data.data).toBe(o.data.lines.map((l: string) => `${l}\n`).join(''));
  });

  it('the done event of a failed task carries its error', async () => {
    const a = await startHeadless('echo', { env: { ...t.env, ECHO_AUTO_REPLY: '0', SYNAPSE_REPLY_GRACE: '0.2' } });
    const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage('[[quiet]]', { response_mode: 'wait' }));
    const events = await collect(`${a.endpoint}/tasks/${sent.body.task.id}/subscribe`);
    expect(events.at(-1)!.data).toMatchObject({ type: 'done', status: 'failed', artifacts: [], error: { code: 'MISSING_REPLY' } });
  });

  it('the /events feed shows status changes and task events', async () => {
    const a = await startHeadless('echo', { env: t.env });
    const id = randomUUID();
    const feed = open(`${a.endpoint}/events`, undefined, (e) => e.event === 'task' && e.data.task_id === id && e.data.state === 'completed');
    await feed.opened;
    await postJson(`${a.endpoint}/tasks/send`, { ...textMessage('watch me'), task_id: id });
    const events = await feed.events;
    // The feed replays what came before (the start-up instruction's turn): look after our task.
    const ours = (e: Ev) => e.event === 'task' && e.data.task_id === id;
    expect(events.filter(ours).map((e) => `${e.data.previous} -> ${e.data.state}`)).toEqual([
      'null -> submitted',
      'submitted -> working',
      'working -> completed',
    ]);
    const submitted = events.findIndex(ours);
    const busy = events.findIndex((e, i) => i > submitted && e.event === 'status' && e.data.status === 'PROCESSING');
    expect(busy).toBeGreaterThan(submitted);
    expect(busy).toBeLessThan(events.length - 1);
  });

  it('answers 404 for a stream of an unknown task', async () => {
    const a = await startHeadless('echo', { env: t.env });
    const r = await getJson(`${a.endpoint}/tasks/nope-nope/subscribe`);
    expect(r.status).toBe(404);
  });
});
