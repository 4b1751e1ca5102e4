import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  BIN,
  ROOT,
  cleanupAll,
  freePort,
  getJson,
  postJson,
  runCli,
  startHeadless,
  startNonReplying,
  tempHome,
  textMessage,
  waitFor,
  waitForTask,
} from '../support/synapse.js';
import { fillDisk, mountTmpfs, tmpfsRefusal, unmount } from './support/tmpfs.js';
import { signatureValid, webhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

/**
 * Faults: what the user sees when a process dies or a file goes bad, and that no message is
 * lost. Each test starts its own agents in one throw-away HOME.
 */
const t = tempHome();
const started: ChildProcess[] = [];
const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  for (const c of started.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await cleanupAll();
  for (const r of receivers.splice(0)) await r.close();
});
afterAll(() => t.cleanup());

function killGroup(pid: number): Promise<void> {
  return new Promise((resolve) => {
    process.kill(-pid, 'SIGKILL');
    const check = () => {
      try {
        process.kill(pid, 0);
        setTimeout(check, 20);
      } catch {
        resolve();
      }
    };
    check();
  });
}

/** `synapse <args>` as a child the test can kill, with its output so far. */
function spawnCli(args: string[]): { child: ChildProcess; out: () => string; closed: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, ...args], { env: t.env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const closed = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  return { child, out: () => out, closed };
}

const HOOK_SECRET = 'fault-test-secret';
/** Why the full-disk test cannot mount its tmpfs here, or null. */
const noTmpfs = tmpfsRefusal();

/** The agent's pino lines (headless agents log JSON to stdout). */
function logLines(output: string): Array<{ level: string; msg: string }> {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: string; msg: string });
}

/** Registers `url` for task.completed on the agent, signed with HOOK_SECRET. */
async function registerHook(endpoint: string, url: string): Promise<void> {
  const r = await postJson(`${endpoint}/webhooks`, { url, events: ['task.completed'], secret: HOOK_SECRET });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
}

/** The delivery log of one task, oldest attempt first. */
async function deliveriesOf(endpoint: string, taskId: string): Promise<Array<{ event_id: string; attempts: number; success: boolean; error: string | null }>> {
  return (
    (await getJson(`${endpoint}/webhooks/deliveries?task_id=${taskId}`)).body as Array<{
      event_id: string;
      attempts: number;
      success: boolean;
      error: string | null;
    }>
  ).reverse();
}

describe('faults', () => {
  it('target SIGKILLed mid-webhook (the request on the wire): after a restart the event arrives once more with the same id, body and a valid signature, and the log says why', async () => {
    const receiver = await webhookReceiver({ mode: 'hold' });
    receivers.push(receiver);
    const a = await startHeadless('echo', { env: t.env, args: ['--name', 'hooked'] });
    await registerHook(a.endpoint, receiver.url);
    const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage('finish and tell the hook'));
    const taskId: string = sent.body.task.id;
    expect((await waitForTask(a.endpoint, taskId, 15_000)).status).toBe('completed');
    const cut = await waitFor(() => receiver.received[0], 10_000, 'the held webhook request');
    expect(cut.answered).toBeNull();

    await killGroup(a.child.pid!);
    receiver.mode = 'ok';
    const again = await startHeadless('echo', { env: t.env, args: ['--name', 'hooked'], port: a.port });
    const eventId = String(cut.headers['x-synapse-event-id']);
    const [resent] = await waitFor(() => (receiver.acknowledged(eventId).length > 0 ? receiver.acknowledged(eventId) : null), 15_000, 'the resent webhook');
    expect(resent!.raw.equals(cut.raw)).toBe(true);
    expect(resent!.headers['x-synapse-attempt']).toBe('2');
    expect(signatureValid(resent!, HOOK_SECRET)).toBe(true);
    expect(JSON.parse(resent!.raw.toString('utf8'))).toMatchObject({ event: 'task.completed', event_id: eventId, data: { task_id: taskId } });
    // What the user sees: the cut-off attempt and the one that got through, and a log line.
    const log = await waitFor(
      async () => {
        const l = await deliveriesOf(again.endpoint, taskId);
        return l.length === 2 ? l : null;
      },
      5_000,
      'two logged attempts',
    );
    expect(log.map((d) => [d.event_id, d.attempts, d.success, d.error])).toEqual([
      [eventId, 1, false, 'interrupted: the agent stopped during this attempt'],
      [eventId, 2, true, null],
    ]);
    expect(again.output()).toContain('resuming 1 delivery(ies) left in the outbox by the previous run');

    // Exactly once: a clean restart sends nothing again, and the next task's event comes alone.
    await again.stop();
    const third = await startHeadless('echo', { env: t.env, args: ['--name', 'hooked'], port: a.port });
    const next = await postJson(`${third.endpoint}/tasks/send`, textMessage('one more'));
    await waitFor(() => receiver.received.some((h) => JSON.parse(h.raw.toString('utf8')).data.task_id === next.body.task.id), 15_000, 'the next event');
    expect(receiver.received.filter((h) => h.headers['x-synapse-event-id'] === eventId)).toHaveLength(2);
    expect(receiver.acknowledged(eventId)).toHaveLength(1);
    expect(third.output()).not.toContain('resuming');
  }, 60_000);

  it('target SIGKILLed while a webhook waits to be retried (receiver down): after a restart it is delivered once, signed, with the attempts logged', async () => {
    const receiver = await webhookReceiver({ port: await freePort(), listen: false });
    receivers.push(receiver);
    const a = await startHeadless('echo', { env: t.env, args: ['--name', 'retrying'] });
    await registerHook(a.endpoint, receiver.url);
    const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage('nobody listens yet'));
    const taskId: string = sent.body.task.id;
    const failed = await waitFor(async () => (await deliveriesOf(a.endpoint, taskId))[0], 15_000, 'the refused first attempt');
    expect(failed.success).toBe(false);
    expect(failed.error).toMatch(/ECONNREFUSED/);

    await killGroup(a.child.pid!);
    await receiver.open();
    const again = await startHeadless('echo', { env: t.env, args: ['--name', 'retrying'], port: a.port });
    const [got] = await waitFor(
      () => (receiver.acknowledged(failed.event_id).length > 0 ? receiver.acknowledged(failed.event_id) : null),
      15_000,
      'the resumed webhook',
    );
    expect(signatureValid(got!, HOOK_SECRET)).toBe(true);
    expect(JSON.parse(got!.raw.toString('utf8')).data.task_id).toBe(taskId);
    expect(receiver.received).toHaveLength(1);
    const log = await waitFor(
      async () => {
        const l = await deliveriesOf(again.endpoint, taskId);
        return l.at(-1)?.success ? l : null;
      },
      5_000,
      'the logged success',
    );
    expect(log.every((d) => d.event_id === failed.event_id)).toBe(true);
    expect(log.slice(0, -1).every((d) => !d.success)).toBe(true);
    expect(log.at(-1)!.attempts).toBe(log.length);
  }, 60_000);

  it('target SIGKILLed mid-delivery: the waiting sender gets a clear error; after a restart the cut-off task is failed and the queued one delivered', async () => {
    const b = await startHeadless('echo', { env: t.env, args: ['--name', 'victim'] });
    const waiting = spawnCli(['send', 'victim', 'long job [[wait: 30]]', '--wait', '--json', '--timeout', '60']);
    const first = await waitFor(
      async () => ((await getJson(`${b.endpoint}/tasks?state=working`)).body as Array<{ id: string }>)[0],
      10_000,
      'the first message to be working',
    );
    const queued = await postJson(`${b.endpoint}/tasks/send`, textMessage('queued behind it'));
    expect(queued.status).toBe(202);

    await killGroup(b.child.pid!);
    const code = await waiting.closed;
    expect(code, waiting.out()).not.toBe(0);
    expect(waiting.out()).toMatch(/stopped answering/);

    // Same port, same HOME: the agent's task store survived the kill.
    const again = await startHeadless('echo', { env: t.env, args: ['--name', 'victim'], port: b.port });
    const cut = (await getJson(`${again.endpoint}/tasks/${first.id}`)).body;
    expect(cut.status).toBe('failed');
    expect(cut.status_message).toMatch(/restarted while this task was running/);
    const delivered = await waitForTask(again.endpoint, queued.body.task.id, 15_000);
    expect(delivered.status).toBe('completed');
    expect(JSON.stringify(delivered.artifacts)).toContain('queued behind it');
  });

  it('the receiver of an answer SIGKILLed mid-reply: the answer stays on the task and `synapse reply` says the sender was not told', async () => {
    const asker = await startHeadless('echo', { env: t.env, args: ['--name', 'asker'] });
    const answerer = await startNonReplying('answerer', { env: t.env });
    const asked = await postJson(`${answerer.endpoint}/tasks/send`, {
      ...textMessage('what is 6 x 7?'),
      metadata: { sender: { sender_id: asker.agentId, sender_name: 'asker', sender_endpoint: asker.endpoint }, response_mode: 'notify' },
    });
    await waitFor(async () => (await getJson(`${answerer.endpoint}/tasks/${asked.body.task.id}`)).body.receipt?.delivered_at, 10_000, 'delivery');
    await killGroup(asker.child.pid!);

    const r = await runCli(['reply', '42', '--from', answerer.agentId, '--json'], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      task_id: asked.body.task.id,
      status: 'completed',
      to: asker.agentId,
      notified: false,
      forward_error: expect.any(String),
    });
    const human = await runCli(['reply', '--list', '--from', answerer.agentId], { env: t.env });
    expect(human.stdout).not.toContain(asked.body.task.id.slice(0, 8)); // answered: nobody waits on it any more
    const task = (await getJson(`${answerer.endpoint}/tasks/${asked.body.task.id}`)).body;
    expect(task.status).toBe('completed');
    expect(JSON.stringify(task.artifacts)).toContain('42');
  });

  it('sender SIGKILLed while waiting: the message is still delivered and answered', async () => {
    const b = await startHeadless('echo', { env: t.env, args: ['--name', 'patient'] });
    const waiting = spawnCli(['send', 'patient', 'answer me later [[wait: 1]]', '--wait', '--json']);
    const task = await waitFor(async () => ((await getJson(`${b.endpoint}/tasks?state=working`)).body as Array<{ id: string }>)[0], 10_000, 'working');
    waiting.child.kill('SIGKILL');
    await waiting.closed;
    const done = await waitForTask(b.endpoint, task.id, 15_000);
    expect(done.status).toBe('completed');
    expect(JSON.stringify(done.artifacts)).toContain('answer me later');
    // The agent takes the next message as usual.
    const next = await postJson(`${b.endpoint}/tasks/send`, textMessage('next one'));
    expect((await waitForTask(b.endpoint, next.body.task.id)).status).toBe('completed');
  });

  it('a registry with a truncated and a garbage file: list names both and still shows the live agent, send still works, nothing is deleted', async () => {
    const a = await startHeadless('echo', { env: t.env, args: ['--name', 'survivor'] });
    const dir = t.env.SYNAPSE_REGISTRY_DIR!;
    const own = fs.readFileSync(path.join(dir, `${a.agentId}.json`), 'utf8');
    const truncated = path.join(dir, 'synapse-echo-1.json');
    const garbage = path.join(dir, 'synapse-echo-2.json');
    fs.writeFileSync(truncated, own.slice(0, Math.floor(own.length / 2)));
    fs.writeFileSync(garbage, Buffer.from([0x00, 0xff, 0x1b, 0x5b, 0x32, 0x4a, 0x7b]));

    const list = await runCli(['list', '--json'], { env: t.env });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(list.stdout))).toContain('survivor');
    expect(list.stderr).toContain('synapse-echo-1.json');
    expect(list.stderr).toContain('synapse-echo-2.json');
    // The garbage's escape bytes are not echoed to the user's terminal.
    expect(list.stderr).not.toContain('\x1b');

    const sent = await runCli(['send', 'survivor', 'still reachable', '--wait', '--json'], { env: t.env });
    expect(sent.code, sent.stderr).toBe(0);
    expect(fs.existsSync(truncated) && fs.existsSync(garbage)).toBe(true);
  });

  it("the agent's task database locked by another process for 10 s: sends wait or fail clearly, and every accepted message is delivered", async () => {
    const a = await startHeadless('echo', { env: t.env, args: ['--name', 'locked'] });
    const db = path.join(t.env.SYNAPSE_HOME!, 'agents', `${a.agentId}.db`);
    const locker = spawn(
      process.execPath,
      [
        '-e',
        `const D = require('better-sqlite3'); const db = new D(${JSON.stringify(db)}); db.exec('BEGIN EXCLUSIVE');
         process.stdout.write('locked\\n'); setTimeout(() => { db.exec('COMMIT'); db.close(); }, 10000);`,
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    started.push(locker);
    await new Promise<void>((r) => locker.stdout.once('data', () => r()));
    const during = await postJson(`${a.endpoint}/tasks/send`, textMessage('sent while locked'));
    // Either it waited for the lock and was accepted, or it was refused with a code that says why.
    if (during.status !== 202) {
      expect(during.status, JSON.stringify(during.body)).toBe(503);
      expect(during.body.error.code).toBe('database_busy');
    }
    await new Promise<void>((r) => locker.once('close', () => r()));
    const after = await postJson(`${a.endpoint}/tasks/send`, textMessage('sent after the lock'));
    expect(after.status).toBe(202);
    expect((await waitForTask(a.endpoint, after.body.task.id, 15_000)).status).toBe('completed');
    if (during.status === 202) expect((await waitForTask(a.endpoint, during.body.task.id, 15_000)).status).toBe('completed');
  }, 45_000);
  it.skipIf(noTmpfs !== null)(
    `the history database on a full disk (a small tmpfs, filled): tasks still complete, one warning and GET /status say so, and the waiting entries are written once space frees${noTmpfs ? ` [skipped: ${noTmpfs}]` : ''}`,
    async () => {
      const h = tempHome();
      const env = { ...h.env, SYNAPSE_HISTORY_ENABLED: 'true' };
      const historyDir = path.join(h.home, '.synapse', 'history');
      mountTmpfs(historyDir, '1m');
      const a = await startHeadless('echo', { env, args: ['--name', 'fullness'] }).catch((err: unknown) => {
        unmount(historyDir);
        throw err;
      });
      try {
        const first = await postJson(`${a.endpoint}/tasks/send`, textMessage('recorded before the disk fills'));
        expect((await waitForTask(a.endpoint, first.body.task.id, 15_000)).status).toBe('completed');
        await waitFor(
          async () => (await runCli(['history', 'list', '--json'], { env })).stdout.includes('recorded before the disk fills'),
          10_000,
          'the first entry',
        );

        const filler = path.join(historyDir, 'filler');
        expect(fillDisk(filler)).toBeGreaterThan(0);
        const ids: string[] = [];
        for (const n of [1, 2, 3]) {
          const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage(`finished while full ${n}`));
          expect(sent.status).toBe(202);
          ids.push(sent.body.task.id);
          // The task itself is not touched: it completes with its answer.
          const done = await waitForTask(a.endpoint, sent.body.task.id, 15_000);
          expect(done.status).toBe('completed');
          expect(JSON.stringify(done.artifacts)).toContain(`finished while full ${n}`);
        }
        const trouble = (await getJson(`${a.endpoint}/status`)).body.history;
        expect(trouble).toMatchObject({ ok: false, backlog: 3, dropped: 0 });
        expect(trouble.error).toMatch(/disk is full \(SQLITE_FULL\)/);
        const warnings = logLines(a.output()).filter((l) => l.msg.startsWith('history: cannot record'));
        expect(warnings).toHaveLength(1);
        expect(warnings[0]!.level).toBe('warn');
        expect(warnings[0]!.msg).toContain('keeping up to 50 in memory');
        const status = await runCli(['status', 'fullness'], { env });
        expect(status.stdout).toMatch(/history\s+NOT RECORDING: the disk is full \(SQLITE_FULL\).*; 3 waiting in memory/);

        fs.rmSync(filler);
        await waitFor(async () => (await getJson(`${a.endpoint}/status`)).body.history.ok === true, 15_000, 'the history to be writable again');
        expect((await getJson(`${a.endpoint}/status`)).body.history).toMatchObject({ ok: true, backlog: 0, dropped: 0, error: null });
        expect(logLines(a.output()).some((l) => /^history: writing to .*history\.db works again/.test(l.msg))).toBe(true);
        const listed = JSON.parse((await runCli(['history', 'list', '--json'], { env })).stdout) as Array<{ task_id: string; input: string }>;
        for (const id of ids) expect(listed.filter((e) => e.task_id === id)).toHaveLength(1);
        expect(listed).toHaveLength(4);
        // Still working: the next task is recorded at once.
        const after = await postJson(`${a.endpoint}/tasks/send`, textMessage('after the disk was freed'));
        await waitForTask(a.endpoint, after.body.task.id, 15_000);
        await waitFor(async () => (await runCli(['history', 'list', '--json'], { env })).stdout.includes('after the disk was freed'), 10_000, 'the next entry');
      } finally {
        await a.stop();
        unmount(historyDir);
        h.cleanup();
      }
    },
    90_000,
  );
});
