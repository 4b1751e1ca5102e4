import fs from 'node:fs';
import type * as NodePty from 'node-pty';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  artifactText,
  BIN,
  cleanupAll,
  freePort,
  getJson,
  postJson,
  ROOT,
  runCli,
  startHeadless,
  tempHome,
  textMessage,
  waitFor,
  waitForTask,
} from '../../support/synapse.js';

const require = createRequire(import.meta.url);
const pty = require('node-pty') as typeof NodePty;

describe('approval dialogs become input-required', () => {
  const t = tempHome();
  afterEach(cleanupAll);
  afterAll(() => t.cleanup());

  async function waitingTask(endpoint: string, id: string) {
    return waitFor(
      async () => {
        const task = (await getJson(`${endpoint}/tasks/${id}`)).body;
        return task.status === 'input_required' ? task : null;
      },
      5000,
      'input_required',
    );
  }

  it('exposes the dialog choices and approves remotely', async () => {
    const a = await startHeadless('echo', { env: t.env });
    const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage('clean up [[ask: rm -rf build]]'));
    const task = await waitingTask(a.endpoint, sent.body.task.id);
    expect(task.metadata.permission).toEqual({
      prompt: 'Allow this? run: rm -rf build',
      choices: [
        { key: '1', label: 'Yes' },
        { key: '2', label: 'Yes, and always allow it' },
        { key: '3', label: 'No' },
      ],
    });
    expect((await getJson(`${a.endpoint}/status`)).body.status).toBe('WAITING');
    const r = await postJson(`${a.endpoint}/tasks/${task.id}/respond`, { choice: 'approve' });
    expect(r.status).toBe(200);
    expect(r.body.choice).toEqual({ key: '1', label: 'Yes' });
    const done = await waitForTask(a.endpoint, task.id);
    expect(done.status).toBe('completed');
    expect(artifactText(done)).toContain('allowed: rm -rf build');
    expect(done.metadata.permission).toBeNull();
  });

  it('deny selects the deny option (not Enter on the highlighted Yes), via synapse respond', async () => {
    const a = await startHeadless('echo', { env: t.env, args: ['--name', 'asker'] });
    const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage('[[ask: git push --force]]'));
    await waitingTask(a.endpoint, sent.body.task.id);
    const r = await runCli(['respond', 'asker', 'deny', '--json'], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).choice).toEqual({ key: '3', label: 'No' });
    const done = await waitForTask(a.endpoint, sent.body.task.id);
    expect(artifactText(done)).toContain('denied: git push --force');
    expect(artifactText(done)).not.toContain('allowed');
  });

  it("answers on the original's routes: POST /tasks/{id}/permission/approve and /deny, with no body", async () => {
    const a = await startHeadless('echo', { env: t.env });
    const post = (url: string) => fetch(url, { method: 'POST' }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const first = await postJson(`${a.endpoint}/tasks/send`, textMessage('[[ask: npm publish]]'));
    await waitingTask(a.endpoint, first.body.task.id);
    const approved = await post(`${a.endpoint}/tasks/${first.body.task.id}/permission/approve`);
    expect(approved).toEqual({ status: 200, body: { status: 'approved', task_id: first.body.task.id, choice: { key: '1', label: 'Yes' } } });
    expect(artifactText(await waitForTask(a.endpoint, first.body.task.id))).toContain('allowed: npm publish');

    const second = await postJson(`${a.endpoint}/tasks/send`, textMessage('[[ask: rm -rf /tmp/x]]'));
    await waitingTask(a.endpoint, second.body.task.id);
    const denied = await post(`${a.endpoint}/tasks/${second.body.task.id}/permission/deny`);
    expect(denied.body).toEqual({ status: 'denied', task_id: second.body.task.id, choice: { key: '3', label: 'No' } });
    expect(artifactText(await waitForTask(a.endpoint, second.body.task.id))).toContain('denied: rm -rf /tmp/x');

    // A task that no longer waits for an answer, and one that does not exist.
    expect((await post(`${a.endpoint}/tasks/${second.body.task.id}/permission/approve`)).status).toBe(409);
    expect((await post(`${a.endpoint}/tasks/no-such-task/permission/deny`)).status).toBe(404);
  });

  it('rejects a choice that is not on the menu and a task that is not waiting', async () => {
    const a = await startHeadless('echo', { env: t.env });
    const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage('[[ask: make]]'));
    await waitingTask(a.endpoint, sent.body.task.id);
    const bad = await postJson(`${a.endpoint}/tasks/${sent.body.task.id}/respond`, { choice: 'maybe' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('1. Yes');
    await postJson(`${a.endpoint}/tasks/${sent.body.task.id}/respond`, { choice: '2' });
    await waitForTask(a.endpoint, sent.body.task.id);
    const late = await postJson(`${a.endpoint}/tasks/${sent.body.task.id}/respond`, { choice: '1' });
    expect(late.status).toBe(409);
  });
});

describe("foreground: never type into a human's prompt", () => {
  const t = tempHome();
  afterAll(() => t.cleanup());

  it('holds a delivery while the user has unsent text, delivers once the box is empty', async () => {
    const port = await freePort();
    // The agent's screen trace records each reading (with its screen) and each hold, on its clock.
    const trace = path.join(t.home, 'foreground-trace.jsonl');
    const env = { ...t.env, SYNAPSE_SCREEN_TRACE: trace } as Record<string, string>;
    const records = (): any[] =>
      fs.existsSync(trace)
        ? fs
            .readFileSync(trace, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l))
        : [];
    const term = pty.spawn(process.execPath, [BIN, 'echo', '--port', String(port), '--no-setup'], {
      name: 'xterm-256color',
      cols: 100,
      rows: 30,
      cwd: ROOT,
      env,
    });
    let out = '';
    term.onData((d) => (out += d));
    const endpoint = `http://127.0.0.1:${port}`;
    try {
      await waitFor(async () => (await getJson(`${endpoint}/status`)).body.ready_for_messages, 15_000, 'ready');
      term.write('half-written');
      // The precondition: the user's text is in the CLI's input box before the message arrives.
      const typedAt = await waitFor(
        () => records().find((r) => r.kind === 'reading' && r.viewport?.some((l: string) => l.startsWith('echo> half-written')))?.ms as number | undefined,
        5000,
        'typed text on screen',
      );
      const sent = await postJson(`${endpoint}/tasks/send`, textMessage('from a peer'));
      // Beyond the 2 s idle time after the last key, the loop still holds the message for the
      // text in the box: wait for such a hold, then nothing must have been typed into it.
      await waitFor(
        () => records().some((r) => r.kind === 'held' && r.task === sent.body.task.id && r.ms >= typedAt + 2000),
        10_000,
        'a hold after the idle time',
      );
      expect((await getJson(`${endpoint}/tasks/${sent.body.task.id}`)).body.status).toBe('submitted');
      expect(out).not.toContain('half-writtenA2A');
      term.write('\x7f'.repeat('half-written'.length));
      const done = await waitForTask(endpoint, sent.body.task.id, 10_000);
      expect(artifactText(done)).toBe('ECHO: A2A: from a peer');
      // The user's words were never submitted or mixed into the delivery.
      expect(out).not.toContain('ECHO: half-written');
    } finally {
      term.kill('SIGTERM');
      await waitFor(
        async () =>
          await fetch(`${endpoint}/status`)
            .then(() => false)
            .catch(() => true),
        5000,
        'agent to stop',
      ).catch(() => term.kill('SIGKILL'));
    }
  });
});
