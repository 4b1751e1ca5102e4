import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { artifactText, cleanupAll, getJson, postJson, runCli, startHeadless, tempHome, textMessage, waitFor, waitForTask } from '../../support/synapse.js';
import { AgentTaskStore } from '../../../src/store/agent-tasks.js';

describe('delivery into a real PTY (echo agent)', () => {
  const t = tempHome();
  afterEach(cleanupAll);
  afterAll(() => t.cleanup());

  it('delivers a framed message and completes the task with the echo as artifact', async () => {
    const a = await startHeadless('echo', { env: t.env });
    const sent = await postJson(
      `${a.endpoint}/tasks/send`,
      textMessage('hello there', { sender: { sender_id: 'synapse-echo-8191', sender_name: 'alice' }, response_mode: 'wait' }),
    );
    expect(sent.status).toBe(202);
    const task = await waitForTask(a.endpoint, sent.body.task.id);
    expect(task.status).toBe('completed');
    expect(artifactText(task)).toBe('ECHO: A2A: [From: alice (synapse-echo-8191)] [REPLY EXPECTED] hello there');
    expect(task.receipt.state).toBe('answered');
    expect(task.receipt.delivered_at).toBeTruthy();
    const screen = await getJson(`${a.endpoint}/screen`);
    expect(screen.body.lines).toContain('echo> A2A: [From: alice (synapse-echo-8191)] [REPLY EXPECTED] hello there');
  });

  it('with SYNAPSE_SCREEN_TRACE, records readings with their screens and each delivery step with the reply', async () => {
    const file = `${t.home}/screen-trace-${Date.now()}.jsonl`;
    const a = await startHeadless('echo', { env: { ...t.env, SYNAPSE_SCREEN_TRACE: file } });
    const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage('traced'));
    await waitForTask(a.endpoint, sent.body.task.id);
    const records = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const steps = records.filter((r) => r.task === sent.body.task.id).map((r) => r.kind);
    expect(steps).toEqual(['delivering', 'submitted', 'finished']);
    const finished = records.find((r) => r.kind === 'finished' && r.task === sent.body.task.id);
    expect(finished.output).toBe('ECHO: A2A: traced');
    expect(finished.viewport).toContain('echo> A2A: traced');
    const ready = records.filter((r) => r.kind === 'reading' && r.status === 'READY' && Array.isArray(r.viewport));
    expect(ready.length).toBeGreaterThan(0);
    expect(records.every((r) => typeof r.ms === 'number')).toBe(true);
  });

  it('reads only the new answer once the scrollback (2,000 rows by default) is full (each new line pushes an old one off the top)', async () => {
    const a = await startHeadless('echo', { env: { ...t.env, ECHO_THINK_MS: '0', ECHO_BANNER_LINES: '6000' } });
    for (const text of ['first after a long history', 'second after a long history']) {
      const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage(text));
      const task = await waitForTask(a.endpoint, sent.body.task.id);
      expect(artifactText(task)).toBe(`ECHO: A2A: ${text}`);
    }
  });

  it('frames a message without sender as `A2A: text` and without the reply marker when none is expected', async () => {
    const a = await startHeadless('echo', { env: t.env });
    const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage('just so you know'));
    const task = await waitForTask(a.endpoint, sent.body.task.id);
    expect(artifactText(task)).toBe('ECHO: A2A: just so you know');
  });

  it('queues messages sent while PROCESSING and delivers all of them, in order', async () => {
    const a = await startHeadless('echo', { env: { ...t.env, ECHO_THINK_MS: '400' } });
    const ids: string[] = [];
    for (const text of ['first', 'second', 'third', 'fourth']) {
      const r = await postJson(`${a.endpoint}/tasks/send`, textMessage(text));
      expect(r.status).toBe(202);
      ids.push(r.body.task.id);
    }
    // While the first runs, the rest wait in the inbox.
    const early = await Promise.all(ids.slice(1).map((id) => getJson(`${a.endpoint}/tasks/${id}`)));
    expect(early.map((r) => r.body.status)).toEqual(['submitted', 'submitted', 'submitted']);
    const done = [];
    for (const id of ids) done.push(await waitForTask(a.endpoint, id, 15_000));
    expect(done.map((d) => d.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    expect(done.map((d) => artifactText(d))).toEqual(['ECHO: A2A: first', 'ECHO: A2A: second', 'ECHO: A2A: third', 'ECHO: A2A: fourth']);
    const times = done.map((d) => Date.parse(d.receipt.delivered_at));
    expect([...times].sort((x, y) => x - y)).toEqual(times);
  });

  // The echo agent answers [REPLY EXPECTED] with its reply route right after drawing its prompt:
  // the task completes while the turn still settles. The agent was left PROCESSING for good, and
  // the original Synapse's `send` waits up to 30 s for a PROCESSING target before every message.
  it('is no longer busy once its turns are over, also when an answer ends a task before its turn (`send one --silent; send two --wait`)', async () => {
    const a = await startHeadless('echo', { env: t.env, args: ['--name', 'rep'] });
    const one = await runCli(['send', 'rep', 'one', '--silent', '--json'], { env: t.env });
    expect(one.code, one.stderr).toBe(0);
    const two = await runCli(['send', 'rep', 'two', '--wait', '--json'], { env: t.env });
    expect(two.code, two.stderr).toBe(0);
    expect(JSON.parse(two.stdout)).toMatchObject({ status: 'completed', reply_source: 'reply' });
    expect((await waitForTask(a.endpoint, JSON.parse(one.stdout).task_id)).status).toBe('completed');
    const entryFile = path.join(t.env.SYNAPSE_REGISTRY_DIR!, `${a.agentId}.json`);
    const idle = (s: string) => s === 'DONE' || s === 'READY';
    await waitFor(async () => idle((await getJson(`${a.endpoint}/status`)).body.status), 5000, 'GET /status to leave PROCESSING');
    await waitFor(() => idle(JSON.parse(fs.readFileSync(entryFile, 'utf8')).status), 5000, 'the registry entry to leave PROCESSING');
  });

  it('orders a queued inbox by priority, then arrival', async () => {
    const a = await startHeadless('echo', { env: { ...t.env, ECHO_THINK_MS: '500' } });
    const first = await postJson(`${a.endpoint}/tasks/send`, textMessage('running'));
    await waitFor(async () => (await getJson(`${a.endpoint}/tasks/${first.body.task.id}`)).body.status === 'working');
    const low = await postJson(`${a.endpoint}/tasks/send-priority?priority=1`, textMessage('low'));
    const high = await postJson(`${a.endpoint}/tasks/send-priority?priority=4`, textMessage('high'));
    const mid = await postJson(`${a.endpoint}/tasks/send`, textMessage('mid'));
    const [h, m, l] = [
      await waitForTask(a.endpoint, high.body.task.id, 15_000),
      await waitForTask(a.endpoint, mid.body.task.id, 15_000),
      await waitForTask(a.endpoint, low.body.task.id, 15_000),
    ];
    const order = [h, m, l].map((x) => Date.parse(x.receipt.delivered_at));
    expect(order[0]).toBeLessThan(order[1]!);
    expect(order[1]).toBeLessThan(order[2]!);
  });

  it('priority 5 interrupts the running turn, then delivers', async () => {
    const a = await startHeadless('echo', { env: t.env });
    const slow = await postJson(`${a.endpoint}/tasks/send`, textMessage('take your time [[wait: 30]]'));
    await waitFor(async () => (await getJson(`${a.endpoint}/status`)).body.status === 'PROCESSING', 5000, 'PROCESSING');
    const started = Date.now();
    const urgent = await postJson(`${a.endpoint}/tasks/send-priority?priority=5`, textMessage('stop and do this'));
    expect(urgent.status).toBe(202);
    const done = await waitForTask(a.endpoint, urgent.body.task.id, 10_000);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(artifactText(done)).toBe('ECHO: A2A: stop and do this');
    const interrupted = (await getJson(`${a.endpoint}/tasks/${slow.body.task.id}`)).body;
    expect(interrupted.status).toBe('canceled');
    expect(interrupted.status_message).toMatch(/interrupted by priority 5/);
    const screen = (await getJson(`${a.endpoint}/screen`)).body.lines.join('\n');
    expect(screen).toContain('Interrupted.');
  });

  it('peer text with escape and control bytes arrives as plain text and presses nothing', async () => {
    const a = await startHeadless('echo', { env: t.env });
    const evil = 'one\x1b[201~two\x03three\x1b[Afour\rfive\x07six\u009bseven';
    const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage(evil));
    const task = await waitForTask(a.endpoint, sent.body.task.id);
    expect(task.status).toBe('completed');
    // ESC, ^C, BEL and CSI (C1) are gone; the CR became a line break inside the one paste.
    expect(artifactText(task)).toBe('ECHO: A2A: one[201~twothree[Afour\nfivesixseven');
    const screen = (await getJson(`${a.endpoint}/screen`)).body.lines.join('\n');
    expect(screen).not.toContain('Interrupted.');
    expect(screen).not.toContain('^C');
    // Exactly one submission happened for it.
    const { body } = await getJson(`${a.endpoint}/tasks`);
    expect(body.filter((x: any) => x.metadata.kind === 'message')).toHaveLength(1);
  });

  it('hands long messages over as a 0600 file and a one-line pointer', async () => {
    const a = await startHeadless('echo', { env: { ...t.env, SYNAPSE_LONG_MESSAGE_THRESHOLD: '50' } });
    const long = `${'lorem ipsum '.repeat(20)}END`;
    const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage(long));
    const task = await waitForTask(a.endpoint, sent.body.task.id);
    const text = artifactText(task);
    const m = /\[LONG MESSAGE: (\d+) characters\] Read the full message from (\S+)/.exec(text);
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBe(long.length);
    const file = m![2]!;
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8')).toContain(long);
    expect(text).not.toContain('lorem ipsum lorem');
  });

  it('cancels a queued task (dropped) and a working task (interrupt sent)', async () => {
    const a = await startHeadless('echo', { env: t.env });
    const running = await postJson(`${a.endpoint}/tasks/send`, textMessage('long one [[wait: 30]]'));
    const queued = await postJson(`${a.endpoint}/tasks/send`, textMessage('never delivered'));
    await waitFor(async () => (await getJson(`${a.endpoint}/tasks/${running.body.task.id}`)).body.status === 'working');
    const c1 = await postJson(`${a.endpoint}/tasks/${queued.body.task.id}/cancel`, {});
    expect(c1.body).toMatchObject({ status: 'canceled', task_id: queued.body.task.id });
    const c2 = await postJson(`${a.endpoint}/tasks/${running.body.task.id}/cancel`, {});
    expect(c2.body).toMatchObject({ status: 'canceled', task_id: running.body.task.id });
    await waitFor(async () => (await getJson(`${a.endpoint}/screen`)).body.lines.join('\n').includes('Interrupted.'), 5000, 'interrupt on screen');
    const again = await postJson(`${a.endpoint}/tasks/${running.body.task.id}/cancel`, {});
    expect(again.status).toBe(409);
    const screen = (await getJson(`${a.endpoint}/screen`)).body.lines.join('\n');
    expect(screen).not.toContain('never delivered');
  });

  it('fails the task in flight when the CLI exits mid-task, and the agent goes away', async () => {
    const a = await startHeadless('echo', { env: t.env });
    const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage('bye [[exit: 3]]'));
    const closed = new Promise<number | null>((r) => a.child.once('close', (code) => r(code)));
    expect(await closed).toBe(3);
    const store = new AgentTaskStore(`${t.env.SYNAPSE_HOME}/agents/${a.agentId}.db`);
    const task = store.get(sent.body.task.id)!;
    store.close();
    expect(task.status.state).toBe('failed');
    expect(task.status.message).toMatch(/exited \(code 3\)/);
    expect(task.error).toEqual({ code: 'CLI_EXITED', message: task.status.message, data: { exit_code: 3 } });
  });

  it('finishes every turn when the same message comes again and again (a full screen scrolls back to the same view)', async () => {
    // As the A2A TCK does: one text, sent and answered over and over until the screen is full of
    // identical exchanges. With the answer drawn before the first reading, the view after a turn
    // was the view at its submit, and the agent stayed PROCESSING with messages queued behind.
    const a = await startHeadless('echo', { env: { ...t.env, ECHO_THINK_MS: '0' } });
    for (let i = 0; i < 40; i++) {
      const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage('same again'));
      const task = await waitForTask(a.endpoint, sent.body.task.id);
      expect(task.status, `message ${i + 1}`).toBe('completed');
    }
    // DONE is held for a while after a turn; what matters is that nothing is in flight.
    const status = (await getJson(`${a.endpoint}/status`)).body;
    expect(status).toMatchObject({ status: 'DONE', current_task: null, queued: 0 });
  });
});
