import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyCommand } from '../../../src/cli/commands/reply.js';
import { respondCommand } from '../../../src/cli/commands/respond.js';
import { broadcastCommand, sendCommand, type SendFlags } from '../../../src/cli/commands/send.js';
import type { CommandIo } from '../../../src/cli/io.js';
import { runCommand, type IoOptions } from '../../support/cli-io.js';
import {
  artifactText,
  cleanupAll,
  getJson,
  postJson,
  ROOT,
  startHeadless,
  startNonReplying,
  tempHome,
  textMessage,
  waitFor,
  waitForTask,
  type AgentHandle,
} from '../../support/synapse.js';

/**
 * `synapse send / interrupt / broadcast / reply / respond` in-process, against real headless
 * echo agents (started once for the file; each test uses its own messages). The spawn smoke
 * tests (argument parsing, real stdin, sender ancestry, exit codes through main) are in
 * test/integration/messaging/send.test.ts.
 */

const t = tempHome();
let alice: AgentHandle;
let bob: AgentHandle;
/** Answers nothing by itself, so messages wait on its reply stack. */
let quiet: AgentHandle;

beforeAll(async () => {
  [alice, bob, quiet] = await Promise.all([
    startHeadless('echo', { env: t.env, args: ['--name', 'alice'] }),
    startHeadless('echo', { env: t.env, args: ['--name', 'bob'] }),
    startNonReplying('quiet', { env: t.env }),
  ]);
}, 30_000);

afterAll(async () => {
  await cleanupAll();
  t.cleanup();
});

const io = (extra: Partial<IoOptions> = {}): IoOptions => ({ env: t.env, cwd: ROOT, ...extra });
const as = (agent: AgentHandle, extra: Partial<IoOptions> = {}) => io({ env: { ...t.env, SYNAPSE_AGENT_ID: agent.agentId }, ...extra });
const send = (target: string, text: string | undefined, flags: SendFlags, options = io()) =>
  runCommand((c: CommandIo) => sendCommand(target, text, flags, c), options);

describe('synapse send', () => {
  it('--wait prints only the answer; --json adds the task; --silent and the default return at once', async () => {
    const waited = await send('bob', 'ping from a script', { wait: true });
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toBe('ECHO: A2A: [REPLY EXPECTED] ping from a script\n');
    const asJson = JSON.parse((await send('bob', 'json please', { wait: true, json: true })).stdout);
    expect(asJson).toMatchObject({ target: bob.agentId, status: 'completed', answer: 'ECHO: A2A: [REPLY EXPECTED] json please', reply_source: 'reply' });
    expect((await waitForTask(bob.endpoint, asJson.task_id)).metadata.reply_source).toBe('reply');

    const silent = JSON.parse((await send('bob', 'fyi', { silent: true, json: true })).stdout);
    expect(Object.keys(silent).sort()).toEqual(['receipt', 'response_mode', 'status', 'target', 'task_id']);
    expect(artifactText(await waitForTask(bob.endpoint, silent.task_id))).toBe('ECHO: A2A: fyi');
    const byDefault = await send('bob', 'default mode', {});
    expect(byDefault.stdout).toMatch(new RegExp(`^sent to bob \\(${bob.agentId}\\): task [0-9a-f]{8} \\S+\\n$`));
    const fromAgent = await send('bob', 'from alice', { notify: true }, as(alice));
    expect(fromAgent.stdout).toContain('(the answer will arrive in your terminal)');
  });

  it("--notify from an agent lands the answer in the sender agent's terminal", async () => {
    const sent = JSON.parse((await send('bob', 'question for bob', { notify: true, json: true }, as(alice))).stdout);
    const screen = async () => ((await getJson(`${alice.endpoint}/screen`)).body.lines as string[]).join('\n');
    await waitFor(async () => (await screen()).includes(`[ANSWER to ${sent.task_id.slice(0, 8)}]`), 10_000, "answer in alice's terminal");
    expect(await screen()).toMatch(/A2A: \[From: bob \(synapse-echo-\d+\)\] \[ANSWER to [0-9a-f]{8}\] ECHO: A2A: \[From: alice/);
  });

  it('names the sender from SYNAPSE_AGENT_ID: its id, name and endpoint', async () => {
    const byEnv = JSON.parse((await send('bob', 'by env', { silent: true, json: true }, as(alice))).stdout);
    expect((await waitForTask(bob.endpoint, byEnv.task_id)).metadata.sender).toMatchObject({
      sender_id: alice.agentId,
      sender_name: 'alice',
      sender_endpoint: alice.endpoint,
    });
  });

  it('warns on stderr when SYNAPSE_AGENT_ID or --from names no live agent, and still sends', async () => {
    const byEnv = await send('bob', 'from a ghost', { notify: true, json: true }, io({ env: { ...t.env, SYNAPSE_AGENT_ID: 'synapse-echo-1' } }));
    expect(byEnv.code, byEnv.stderr).toBe(0);
    expect(byEnv.stderr).toContain('warning: SYNAPSE_AGENT_ID "synapse-echo-1" names no live agent (no running agent has that id or name)');
    expect((await waitForTask(bob.endpoint, JSON.parse(byEnv.stdout).task_id)).metadata.sender).toEqual({
      sender_id: 'synapse-echo-1',
      sender_name: 'synapse-echo-1',
    });
    const byFlag = await send('bob', 'from a ghost', { silent: true, from: 'ghost' });
    expect(byFlag.code, byFlag.stderr).toBe(0);
    expect(byFlag.stderr).toContain('warning: --from "ghost" names no live agent');
    // Nobody is excluded as the sender: every agent here gets it.
    const broadcast = await runCommand((c) => broadcastCommand('all hands', { from: 'ghost', json: true }, c), io());
    expect(broadcast.code, broadcast.stderr).toBe(0);
    expect(broadcast.stderr).toContain('warning: --from "ghost" names no live agent');
    expect((JSON.parse(broadcast.stdout) as { target: string }[]).map((r) => r.target).sort()).toEqual([alice.agentId, bob.agentId, quiet.agentId].sort());
    const reply = await runCommand((c) => replyCommand('an answer', { from: 'ghost' }, c), io());
    expect(reply.code).toBe(1);
    expect(reply.stderr).toContain('agent ghost is not running (no live agent has that id or name)');
  });

  it('reads the message from stdin or a file (relative to the cwd) and attaches files', async () => {
    const fromStdin = JSON.parse((await send('bob', undefined, { stdin: true, silent: true, json: true }, io({ stdin: 'from stdin\nsecond line' }))).stdout);
    expect(artifactText(await waitForTask(bob.endpoint, fromStdin.task_id))).toBe('ECHO: A2A: from stdin\nsecond line');
    fs.writeFileSync(path.join(t.home, 'msg.md'), 'from a file');
    fs.writeFileSync(path.join(t.home, 'notes.json'), '{"a":1}');
    const fromFile = await send(
      'bob',
      undefined,
      { messageFile: 'msg.md', attach: ['notes.json'], silent: true, json: true, force: true },
      io({ cwd: t.home }),
    );
    expect(fromFile.code, fromFile.stderr).toBe(0);
    const task = await waitForTask(bob.endpoint, JSON.parse(fromFile.stdout).task_id);
    expect(task.message.parts[1]).toEqual({
      type: 'file',
      file: { name: 'notes.json', mimeType: 'application/json', bytes: Buffer.from('{"a":1}').toString('base64') },
    });
    expect(artifactText(task)).toContain('[file: notes.json (application/json)]');
  });

  it('interrupt sends with priority 4 and no reply marker', async () => {
    const sent = await runCommand((c) => sendCommand('bob', 'heads up', { json: true }, c, { priority: 4, mode: 'silent' }), io());
    const task = await waitForTask(bob.endpoint, JSON.parse(sent.stdout).task_id);
    expect(task.priority).toBe(4);
    expect(artifactText(task)).toBe('ECHO: A2A: heads up');
  });

  it('refuses to send to self, and checks the working directory unless --force', async () => {
    const self = await send('alice', 'me?', { silent: true }, as(alice));
    expect(self.code).toBe(1);
    expect(self.stderr).toContain('cannot send a message to itself');
    const elsewhere = fs.mkdtempSync(path.join(t.home, 'other-'));
    const wrongDir = await send('alice', 'hi', { silent: true }, io({ cwd: elsewhere }));
    expect(wrongDir.code).toBe(1);
    expect(wrongDir.stderr).toContain(`works in ${ROOT.replace(/\/$/, '')}, not in ${elsewhere}`);
    expect(wrongDir.stderr).toContain(`No agent runs in ${elsewhere}; start one there with \`synapse start echo\`.`);
    expect(wrongDir.stderr).toContain('--force');
    expect((await send('alice', 'hi', { silent: true, force: true }, io({ cwd: elsewhere }))).code).toBe(0);
  });

  it('maps errors to the documented exit codes', async () => {
    expect((await send('nobody', 'x', { silent: true })).code).toBe(3);
    const empty = await send('x', '   ', {});
    expect([empty.code, empty.stderr]).toEqual([1, 'synapse: the message is empty: give it as an argument, with --message-file F or with --stdin\n']);
    const twice = await send('x', 'a', { stdin: true });
    expect(twice.stderr).toContain('give the message once');
    const badFile = await send('x', undefined, { messageFile: '/nonexistent/file.md' });
    expect(badFile.code).toBe(1);
    expect(badFile.stderr).toContain('cannot read --message-file /nonexistent/file.md');
    expect((await send('bob', 'x', { priority: '9' })).stderr).toContain('--priority must be 1-5, not "9"');
    expect((await send('bob', 'x', { wait: true, silent: true })).stderr).toContain('choose one of --wait, --notify, --silent');
    expect((await send('bob', 'x', { timeout: 'soon' })).stderr).toContain('--timeout must be a number of seconds > 0, not "soon"');
    const big = path.join(t.home, 'big.bin');
    fs.writeFileSync(big, Buffer.alloc(2048));
    const tooBig = await send('bob', 'see file', { attach: [big] }, io({ env: { ...t.env, SYNAPSE_SEND_MESSAGE_THRESHOLD: '1024' } }));
    expect(tooBig.code).toBe(1);
    expect(tooBig.stderr).toContain('over the limit of 1024 bytes');
    // A limit that does not parse was NaN, and NaN let every attachment through.
    const unparsable = await send('bob', 'see file', { attach: [big] }, io({ env: { ...t.env, SYNAPSE_SEND_MESSAGE_THRESHOLD: '100kb' } }));
    expect(unparsable.code).toBe(1);
    expect(unparsable.stderr).toBe('synapse: SYNAPSE_SEND_MESSAGE_THRESHOLD must be a whole number of bytes (at least 0), got "100kb"\n');
    const timeout = await send('alice', 'think hard [[wait: 5]]', { wait: true, timeout: '0.5' });
    expect(timeout.code).toBe(6);
    expect(timeout.stderr).toContain(`no answer from alice (${alice.agentId}) within 0.5 s; the task goes on`);
  });
});

describe('synapse broadcast', () => {
  it('reaches every other agent here, and says so when there is none', async () => {
    const b = await runCommand((c) => broadcastCommand('all hands', { json: true }, c), as(alice));
    expect(b.code, b.stderr).toBe(0);
    expect(b.stderr).not.toContain('warning');
    const receipts = JSON.parse(b.stdout) as { target: string; task_id: string; error: string | null }[];
    expect(receipts.map((r) => r.target).sort()).toEqual([bob.agentId, quiet.agentId].sort());
    expect(receipts.every((r) => r.error === null)).toBe(true);
    for (const r of receipts) {
      const endpoint = r.target === bob.agentId ? bob.endpoint : quiet.endpoint;
      expect(artifactText(await waitForTask(endpoint, r.task_id))).toBe(`ECHO: A2A: [From: alice (${alice.agentId})] all hands`);
    }
    const human = await runCommand((c) => broadcastCommand('typed', { type: 'echo' }, c), as(alice));
    expect(human.stdout).toMatch(new RegExp(`^${bob.agentId} \\(bob\\): task [0-9a-f]{8} \\S+$`, 'm'));
    const none = await runCommand((c) => broadcastCommand('x', { type: 'codex' }, c), as(alice));
    expect(none.code).toBe(3);
    expect(none.stderr).toContain(`no other agent runs in ${ROOT.replace(/\/$/, '')} of type codex`);
  });
});

describe('synapse reply', () => {
  it('lists who waits, pops the stack LIFO, --to picks a sender, and an empty stack says so', async () => {
    const reply = (text: string | undefined, flags: Parameters<typeof replyCommand>[1] = {}) => runCommand((c) => replyCommand(text, flags, c), as(quiet));
    const a = await postJson(
      `${quiet.endpoint}/tasks/send`,
      textMessage('from x', { response_mode: 'wait', sender: { sender_id: 'x-agent', sender_name: 'x' } }),
    );
    await waitFor(async () => (await getJson(`${quiet.endpoint}/reply-stack/list`)).body.targets.length === 1);
    const b = await postJson(
      `${quiet.endpoint}/tasks/send`,
      textMessage('from y', { response_mode: 'wait', sender: { sender_id: 'y-agent', sender_name: 'y' } }),
    );
    await waitFor(async () => (await getJson(`${quiet.endpoint}/reply-stack/list`)).body.targets.length === 2);

    expect(JSON.parse((await reply(undefined, { list: true, json: true })).stdout).map((e: { sender_id: string }) => e.sender_id)).toEqual([
      'x-agent',
      'y-agent',
    ]);
    expect((await reply(undefined, { list: true })).stdout).toMatch(
      /SENDER\s+TASK\s+RECEIVED\s+MESSAGE\ny \(y-agent\)\s+[0-9a-f]{8}\s+\S+\s+from y\nx \(x-agent\)/,
    );
    expect((await reply('  ')).stderr).toContain('the reply is empty');
    const toX = await reply('answer for x', { to: 'x' });
    expect([toX.code, toX.stdout]).toEqual([0, `replied to x (task ${a.body.task.id.slice(0, 8)})\n`]);
    expect(artifactText(await waitForTask(quiet.endpoint, a.body.task.id))).toBe('answer for x');
    const newest = JSON.parse((await reply('answer for y', { json: true })).stdout);
    expect(newest).toMatchObject({ task_id: b.body.task.id, status: 'completed', to: 'y-agent' });
    const yTask = await waitForTask(quiet.endpoint, b.body.task.id);
    expect(artifactText(yTask)).toBe('answer for y');
    expect(yTask.metadata.reply_source).toBe('reply');
    expect((await reply(undefined, { list: true })).stdout).toBe('nobody is waiting for an answer from you\n');
    const empty = await reply('anyone?');
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('nobody is waiting for an answer from you');
  });

  it('--fail: the sender waiting with --wait gets a failed task whose error is REPLY_FAILED with the reason', async () => {
    const reply = (text: string | undefined, flags: Parameters<typeof replyCommand>[1] = {}) => runCommand((c) => replyCommand(text, flags, c), as(quiet));
    const waiting = send('quiet', 'deploy to staging', { wait: true, json: true });
    await waitFor(async () => (await getJson(`${quiet.endpoint}/reply-stack/list`)).body.targets[0]?.message_preview === 'deploy to staging');
    const both = await reply('done', { fail: 'no' });
    expect([both.code, both.stderr]).toEqual([1, 'synapse: use either a reply message or --fail, not both\n']);
    const failed = await reply(undefined, { fail: 'the staging database is down' });
    expect(failed.code, failed.stderr).toBe(0);
    expect(failed.stdout).toMatch(/^reported the failure to the sender \(task [0-9a-f]{8}\)\n$/);

    const r = await waiting;
    expect(r.code).toBe(5);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      status: 'failed',
      answer: '',
      error: { code: 'REPLY_FAILED', message: 'the staging database is down' },
      reply_source: 'reply',
      receipt: { state: 'failed' },
    });
    expect(r.stderr).toContain(`task ${out.task_id} ended failed: REPLY_FAILED - the staging database is down`);
    const task = (await getJson(`${quiet.endpoint}/tasks/${out.task_id}`)).body;
    expect(task).toMatchObject({ status: 'failed', artifacts: [], error: { code: 'REPLY_FAILED', message: 'the staging database is down', data: null } });
    expect((await getJson(`${quiet.endpoint}/reply-stack/list`)).body).toEqual({ sender_ids: [], targets: [] });
  });

  it('an agent sender gets a failed answer marked [FAILED] in its terminal', async () => {
    const sent = JSON.parse((await send('quiet', 'can you build it', { notify: true, json: true }, as(alice))).stdout);
    await waitFor(async () => (await getJson(`${quiet.endpoint}/reply-stack/list`)).body.sender_ids.includes(alice.agentId));
    const failed = await runCommand((c) => replyCommand(undefined, { fail: 'no compiler here', to: 'alice' }, c), as(quiet));
    expect(failed.code, failed.stderr).toBe(0);
    const screen = async () => ((await getJson(`${alice.endpoint}/screen`)).body.lines as string[]).join('\n');
    await waitFor(async () => (await screen()).includes('no compiler here'), 10_000, "the failure in alice's terminal");
    expect(await screen()).toContain(`[ANSWER to ${sent.task_id.slice(0, 8)}] [FAILED] no compiler here`);
  });

  it('a reply whose agent sender is unreachable is stored, and says the sender was not notified', async () => {
    const sent = await postJson(
      `${quiet.endpoint}/tasks/send`,
      textMessage('q', { response_mode: 'notify', sender: { sender_id: 'synapse-echo-1', sender_name: 'gone', sender_endpoint: 'http://127.0.0.1:9' } }),
    );
    await waitFor(async () => (await getJson(`${quiet.endpoint}/reply-stack/list`)).body.targets.length === 1);
    const r = await runCommand((c) => replyCommand('the answer', {}, c), as(quiet));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('could not be notified');
    expect(artifactText(await waitForTask(quiet.endpoint, sent.body.task.id))).toBe('the answer');
  });

  it('outside an agent session it says how to name the agent', async () => {
    const r = await runCommand((c) => replyCommand('hi', {}, c), io());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('run it from inside an agent session (SYNAPSE_AGENT_ID), or pass --from <agent>');
    expect((await runCommand((c) => replyCommand('hi', { from: 'synapse-echo-1' }, c), io())).stderr).toContain('agent synapse-echo-1 is not running');
  });
});

describe('synapse respond', () => {
  it('answers the dialog of the task that waits, and says when none does', async () => {
    const none = await runCommand((c) => respondCommand('bob', 'approve', {}, c), io());
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('bob has no task waiting for an answer');
    const sent = await postJson(`${bob.endpoint}/tasks/send`, textMessage('[[ask: git push --force]]'));
    await waitFor(async () => (await getJson(`${bob.endpoint}/tasks/${sent.body.task.id}`)).body.status === 'input_required', 5000, 'input_required');
    const r = await runCommand((c) => respondCommand('bob', 'deny', {}, c), io());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`answered "3. No" for task ${sent.body.task.id.slice(0, 8)}\n`);
    expect(artifactText(await waitForTask(bob.endpoint, sent.body.task.id))).toContain('denied: git push --force');
  });
});

describe('answers without a reply', () => {
  /** Never replies: its messages complete with the CLI's output after a short grace period. */
  let forgetful: AgentHandle;
  /** Replies, but its reply stack file is corrupt (written by the test). */
  let broken: AgentHandle;
  beforeAll(async () => {
    [forgetful, broken] = await Promise.all([
      startNonReplying('forgetful', { env: t.env, graceS: 0.5 }),
      startHeadless('echo', { env: { ...t.env, SYNAPSE_REPLY_GRACE: '0.2' }, args: ['--name', 'broken'] }),
    ]);
  }, 30_000);
  // Stopped here, so that no other test of the file meets them (a broadcast would).
  afterAll(() => Promise.all([forgetful.stop(), broken.stop()]));

  it('--wait falls back to the cleaned output when the agent forgets to reply, after the grace period', async () => {
    const started = Date.now();
    const r = await send('forgetful', 'are you there', { wait: true, json: true });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.answer).toBe('ECHO: A2A: [REPLY EXPECTED] are you there');
    expect(out.reply_source).toBe('output');
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
  });

  it('--wait gets MISSING_REPLY when the turn ends with neither a reply nor any output, as the original', async () => {
    const r = await send('forgetful', 'say nothing [[quiet]]', { wait: true, json: true });
    expect(r.code).toBe(5);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ status: 'failed', answer: '', error: { code: 'MISSING_REPLY' }, receipt: { state: 'failed' } });
    expect(r.stderr).toContain(`task ${out.task_id} ended failed: MISSING_REPLY - the agent ended its turn without a reply`);
    const task = (await getJson(`${forgetful.endpoint}/tasks/${out.task_id}`)).body;
    expect(task).toMatchObject({ status: 'failed', artifacts: [], error: { code: 'MISSING_REPLY', data: null } });
    // A silent message with no output is no failure: nobody waits for an answer.
    const silent = JSON.parse((await send('forgetful', 'fyi [[quiet]]', { silent: true, json: true })).stdout);
    expect(await waitForTask(forgetful.endpoint, silent.task_id)).toMatchObject({ status: 'completed', error: null });
  });

  it('names a corrupt reply stack, and a message to that agent still completes with its output', async () => {
    const stack = path.join(t.env.SYNAPSE_REPLY_TARGET_DIR!, `${broken.agentId}.reply.json`);
    fs.mkdirSync(path.dirname(stack), { recursive: true });
    fs.writeFileSync(stack, '[{"task_id": ');
    const list = await runCommand((c) => replyCommand(undefined, { list: true }, c), as(broken));
    expect(list.code).toBe(5);
    expect(list.stderr).toContain(`the reply stack ${stack} is not JSON`);
    const r = await send('broken', 'still there?', { wait: true, json: true });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ answer: 'ECHO: A2A: [REPLY EXPECTED] still there?', reply_source: 'output' });
    expect(broken.output()).toContain(stack);
    expect(fs.readFileSync(stack, 'utf8')).toBe('[{"task_id": ');
  });
});
