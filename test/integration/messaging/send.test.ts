import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  ROOT,
  artifactText,
  cleanupAll,
  getJson,
  postJson,
  runCli,
  startHeadless,
  tempHome,
  textMessage,
  waitFor,
  waitForTask,
} from '../../support/synapse.js';

async function screenText(endpoint: string): Promise<string> {
  return (await getJson(`${endpoint}/screen`)).body.lines.join('\n');
}

describe('synapse send / reply / interrupt / broadcast', () => {
  const t = tempHome();
  afterEach(cleanupAll);
  afterAll(() => t.cleanup());

  it('--wait prints only the explicit reply on stdout', async () => {
    const bob = await startHeadless('echo', { env: t.env, args: ['--name', 'bob'] });
    const r = await runCli(['send', 'bob', 'ping from a script', '--wait'], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('ECHO: A2A: [REPLY EXPECTED] ping from a script\n');
    const tasks = (await getJson(`${bob.endpoint}/tasks?limit=5`)).body.tasks;
    expect(tasks[0].metadata.reply_source).toBe('reply');
  });

  it('--wait falls back to the cleaned output when the agent forgets to reply, after the grace period', async () => {
    await startHeadless('echo', { env: { ...t.env, ECHO_AUTO_REPLY: '0', SYNAPSE_REPLY_GRACE: '0.5' }, args: ['--name', 'forgetful'] });
    const started = Date.now();
    const r = await runCli(['send', 'forgetful', 'are you there', '--wait', '--json'], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.answer).toBe('ECHO: A2A: [REPLY EXPECTED] are you there');
    expect(out.reply_source).toBe('output');
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
  });

  it("--notify from an agent lands the answer in the sender agent's terminal", async () => {
    const alice = await startHeadless('echo', { env: t.env, args: ['--name', 'alice'] });
    await startHeadless('echo', { env: t.env, args: ['--name', 'bob'] });
    const r = await runCli(['send', 'bob', 'question for bob', '--notify', '--json'], { env: { ...t.env, SYNAPSE_AGENT_ID: alice.agentId } });
    expect(r.code, r.stderr).toBe(0);
    const sent = JSON.parse(r.stdout);
    await waitFor(async () => (await screenText(alice.endpoint)).includes(`[ANSWER to ${sent.task_id.slice(0, 8)}]`), 10_000, "answer in alice's terminal");
    const screen = await screenText(alice.endpoint);
    expect(screen).toMatch(/A2A: \[From: bob \(synapse-echo-\d+\)\] \[ANSWER to [0-9a-f]{8}\] ECHO: A2A: \[From: alice/);
  });

  it('--silent sends without the reply marker and returns at once', async () => {
    const bob = await startHeadless('echo', { env: t.env, args: ['--name', 'bob'] });
    const r = await runCli(['send', 'bob', 'fyi', '--silent', '--json'], { env: t.env });
    expect(r.code).toBe(0);
    const sent = JSON.parse(r.stdout);
    expect(Object.keys(sent).sort()).toEqual(['receipt', 'response_mode', 'status', 'target', 'task_id']);
    const task = await waitForTask(bob.endpoint, sent.task_id);
    expect(artifactText(task)).toBe('ECHO: A2A: fyi');
  });

  it('detects the sender from SYNAPSE_AGENT_ID and from process ancestry', async () => {
    const alice = await startHeadless('echo', { env: t.env, args: ['--name', 'alice'] });
    const bob = await startHeadless('echo', { env: t.env, args: ['--name', 'bob'] });
    const byEnv = JSON.parse((await runCli(['send', 'bob', 'by env', '--silent', '--json'], { env: { ...t.env, SYNAPSE_AGENT_ID: alice.agentId } })).stdout);
    expect((await waitForTask(bob.endpoint, byEnv.task_id)).metadata.sender).toMatchObject({
      sender_id: alice.agentId,
      sender_name: 'alice',
      sender_endpoint: alice.endpoint,
    });
    // A process whose parent is alice's pid (like a command run by alice's CLI) is alice.
    const { spawn } = await import('node:child_process');
    const { BIN } = await import('../../support/synapse.js');
    const script = `require('child_process').execFileSync(process.execPath, [${JSON.stringify(BIN)}, 'send', 'bob', 'by ancestry', '--silent', '--json'], {stdio: 'inherit'})`;
    const aliceEntry = JSON.parse(fs.readFileSync(path.join(t.env.SYNAPSE_REGISTRY_DIR!, `${alice.agentId}.json`), 'utf8'));
    // Fake the registry pid to be our helper's parent chain: register alice's pid as this test process's child.
    const child = spawn(process.execPath, ['-e', script], { env: t.env, stdio: ['ignore', 'pipe', 'pipe'] });
    fs.writeFileSync(path.join(t.env.SYNAPSE_REGISTRY_DIR!, `${alice.agentId}.json`), JSON.stringify({ ...aliceEntry, pid: child.pid }));
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    await new Promise((r) => child.once('close', r));
    fs.writeFileSync(path.join(t.env.SYNAPSE_REGISTRY_DIR!, `${alice.agentId}.json`), JSON.stringify(aliceEntry));
    const byAncestry = JSON.parse(out);
    expect((await waitForTask(bob.endpoint, byAncestry.task_id)).metadata.sender.sender_id).toBe(alice.agentId);
  });

  it('refuses to send to self, and checks the working directory unless --force', async () => {
    const alice = await startHeadless('echo', { env: t.env, args: ['--name', 'alice'] });
    const self = await runCli(['send', 'alice', 'me?', '--silent'], { env: { ...t.env, SYNAPSE_AGENT_ID: alice.agentId } });
    expect(self.code).toBe(1);
    expect(self.stderr).toContain('cannot send a message to itself');
    const elsewhere = fs.mkdtempSync(path.join(t.home, 'other-'));
    const wrongDir = await runCli(['send', 'alice', 'hi', '--silent'], { env: t.env, cwd: elsewhere });
    expect(wrongDir.code).toBe(1);
    expect(wrongDir.stderr).toContain(`works in ${ROOT.replace(/\/$/, '')}, not in ${elsewhere}`);
    expect(wrongDir.stderr).toContain('--force');
    const forced = await runCli(['send', 'alice', 'hi', '--silent', '--force'], { env: t.env, cwd: elsewhere });
    expect(forced.code).toBe(0);
  });

  it('maps errors to the documented exit codes', async () => {
    const none = await runCli(['send', 'nobody', 'x', '--silent'], { env: t.env });
    expect(none.code).toBe(3);
    const empty = await runCli(['send', 'x', '   '], { env: t.env });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('the message is empty');
    const badFile = await runCli(['send', 'x', '--message-file', '/nonexistent/file.md'], { env: t.env });
    expect(badFile.code).toBe(1);
    expect(badFile.stderr).toContain('/nonexistent/file.md');
    await startHeadless('echo', { env: t.env, args: ['--name', 'slowpoke'] });
    const timeout = await runCli(['send', 'slowpoke', 'think hard [[wait: 5]]', '--wait', '--timeout', '0.5'], { env: t.env });
    expect(timeout.code).toBe(6);
    expect(timeout.stderr).toContain('the task goes on');
    const big = path.join(t.home, 'big.bin');
    fs.writeFileSync(big, Buffer.alloc(2048));
    const tooBig = await runCli(['send', 'slowpoke', 'see file', '--attach', big], { env: { ...t.env, SYNAPSE_SEND_MESSAGE_THRESHOLD: '1024' } });
    expect(tooBig.code).toBe(1);
    expect(tooBig.stderr).toContain('over the limit of 1024 bytes');
    // A limit that does not parse was NaN, and NaN let every attachment through.
    const unparsable = await runCli(['send', 'slowpoke', 'see file', '--attach', big], { env: { ...t.env, SYNAPSE_SEND_MESSAGE_THRESHOLD: '100kb' } });
    expect(unparsable.code).toBe(1);
    expect(unparsable.stderr).toBe('synapse: SYNAPSE_SEND_MESSAGE_THRESHOLD must be a whole number of bytes (at least 0), got "100kb"\n');
  });

  it('reads the message from --stdin and --message-file, and attaches files as file parts', async () => {
    const bob = await startHeadless('echo', { env: t.env, args: ['--name', 'bob'] });
    const fromStdin = JSON.parse((await runCli(['send', 'bob', '--stdin', '--silent', '--json'], { env: t.env, input: 'from stdin\nsecond line' })).stdout);
    expect(artifactText(await waitForTask(bob.endpoint, fromStdin.task_id))).toBe('ECHO: A2A: from stdin\nsecond line');
    const f = path.join(t.home, 'msg.md');
    fs.writeFileSync(f, 'from a file');
    const att = path.join(t.home, 'notes.json');
    fs.writeFileSync(att, '{"a":1}');
    const fromFile = JSON.parse((await runCli(['send', 'bob', '--message-file', f, '--attach', att, '--silent', '--json'], { env: t.env })).stdout);
    const task = await waitForTask(bob.endpoint, fromFile.task_id);
    expect(task.message.parts[1]).toEqual({
      type: 'file',
      file: { name: 'notes.json', mimeType: 'application/json', bytes: Buffer.from('{"a":1}').toString('base64') },
    });
    expect(artifactText(task)).toContain('[file: notes.json (application/json)]');
  });

  it('reply pops the stack LIFO, --to picks a sender, and an empty stack says so', async () => {
    const bob = await startHeadless('echo', { env: { ...t.env, ECHO_AUTO_REPLY: '0', SYNAPSE_REPLY_GRACE: '60' }, args: ['--name', 'bob'] });
    const a = await postJson(
      `${bob.endpoint}/tasks/send`,
      textMessage('from x', { response_mode: 'wait', sender: { sender_id: 'x-agent', sender_name: 'x' } }),
    );
    await waitFor(async () => (await getJson(`${bob.endpoint}/reply-stack/list`)).body.entries.length === 1);
    const b = await postJson(
      `${bob.endpoint}/tasks/send`,
      textMessage('from y', { response_mode: 'wait', sender: { sender_id: 'y-agent', sender_name: 'y' } }),
    );
    await waitFor(async () => (await getJson(`${bob.endpoint}/reply-stack/list`)).body.entries.length === 2);
    const env = { ...t.env, SYNAPSE_AGENT_ID: bob.agentId };
    const list = await runCli(['reply', '--list', '--json'], { env });
    expect(JSON.parse(list.stdout).map((e: any) => e.sender_id)).toEqual(['x-agent', 'y-agent']);
    const toX = await runCli(['reply', 'answer for x', '--to', 'x'], { env });
    expect(toX.code, toX.stderr).toBe(0);
    expect(artifactText(await waitForTask(bob.endpoint, a.body.task.id))).toBe('answer for x');
    const newest = await runCli(['reply', 'answer for y', '--json'], { env });
    expect(JSON.parse(newest.stdout).to).toBe('y-agent');
    const yTask = await waitForTask(bob.endpoint, b.body.task.id);
    expect(artifactText(yTask)).toBe('answer for y');
    expect(yTask.metadata.reply_source).toBe('reply');
    const empty = await runCli(['reply', 'anyone?'], { env });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('nobody is waiting for an answer from you');
  });

  it('a reply whose agent sender is unreachable is stored, and says the sender was not notified', async () => {
    const bob = await startHeadless('echo', { env: { ...t.env, ECHO_AUTO_REPLY: '0', SYNAPSE_REPLY_GRACE: '60' }, args: ['--name', 'bob'] });
    const sent = await postJson(
      `${bob.endpoint}/tasks/send`,
      textMessage('q', { response_mode: 'notify', sender: { sender_id: 'synapse-echo-1', sender_name: 'gone', sender_endpoint: 'http://127.0.0.1:9' } }),
    );
    await waitFor(async () => (await getJson(`${bob.endpoint}/reply-stack/list`)).body.entries.length === 1);
    const r = await runCli(['reply', 'the answer'], { env: { ...t.env, SYNAPSE_AGENT_ID: bob.agentId } });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('could not be notified');
    expect(artifactText(await waitForTask(bob.endpoint, sent.body.task.id))).toBe('the answer');
  });

  it('interrupt sends with priority 4 and no reply marker; broadcast reaches every other agent here', async () => {
    const alice = await startHeadless('echo', { env: t.env, args: ['--name', 'alice'] });
    const bob = await startHeadless('echo', { env: t.env, args: ['--name', 'bob'] });
    const carol = await startHeadless('echo', { env: t.env, args: ['--name', 'carol'] });
    const i = JSON.parse((await runCli(['interrupt', 'bob', 'heads up', '--json'], { env: t.env })).stdout);
    const task = await waitForTask(bob.endpoint, i.task_id);
    expect(task.priority).toBe(4);
    expect(artifactText(task)).toBe('ECHO: A2A: heads up');
    const b = await runCli(['broadcast', 'all hands', '--json'], { env: { ...t.env, SYNAPSE_AGENT_ID: alice.agentId } });
    expect(b.code, b.stderr).toBe(0);
    expect(b.stderr).not.toContain('warning');
    const receipts = JSON.parse(b.stdout);
    expect(receipts.map((r: any) => r.target).sort()).toEqual([bob.agentId, carol.agentId].sort());
    for (const r of receipts) {
      const ep = r.target === bob.agentId ? bob.endpoint : carol.endpoint;
      expect(artifactText(await waitForTask(ep, r.task_id))).toBe(`ECHO: A2A: [From: alice (${alice.agentId})] all hands`);
    }
  });

  it('warns on stderr when SYNAPSE_AGENT_ID or --from names no live agent, and still sends', async () => {
    const bob = await startHeadless('echo', { env: t.env, args: ['--name', 'bob'] });
    const byEnv = await runCli(['send', 'bob', 'from a ghost', '--notify', '--json'], { env: { ...t.env, SYNAPSE_AGENT_ID: 'synapse-echo-1' } });
    expect(byEnv.code, byEnv.stderr).toBe(0);
    expect(byEnv.stderr).toContain('warning: SYNAPSE_AGENT_ID "synapse-echo-1" names no live agent (no running agent has that id or name)');
    expect((await waitForTask(bob.endpoint, JSON.parse(byEnv.stdout).task_id)).metadata.sender).toEqual({
      sender_id: 'synapse-echo-1',
      sender_name: 'synapse-echo-1',
    });
    const byFlag = await runCli(['send', 'bob', 'from a ghost', '--silent', '--from', 'ghost'], { env: t.env });
    expect(byFlag.code, byFlag.stderr).toBe(0);
    expect(byFlag.stderr).toContain('warning: --from "ghost" names no live agent');
    const broadcast = await runCli(['broadcast', 'all hands', '--from', 'ghost', '--json'], { env: t.env });
    expect(broadcast.code, broadcast.stderr).toBe(0);
    expect(broadcast.stderr).toContain('warning: --from "ghost" names no live agent');
    expect(JSON.parse(broadcast.stdout).map((r: any) => r.target)).toEqual([bob.agentId]);
    const reply = await runCli(['reply', 'an answer', '--from', 'ghost'], { env: t.env });
    expect(reply.code).toBe(1);
    expect(reply.stderr).toContain('agent ghost is not running (no live agent has that id or name)');
  });

  it('names a corrupt reply stack, and a message to that agent still completes with its output', async () => {
    const bob = await startHeadless('echo', { env: { ...t.env, SYNAPSE_REPLY_GRACE: '0.2' }, args: ['--name', 'bob'] });
    const stack = path.join(t.env.SYNAPSE_REPLY_TARGET_DIR!, `${bob.agentId}.reply.json`);
    fs.mkdirSync(path.dirname(stack), { recursive: true });
    fs.writeFileSync(stack, '[{"task_id": ');
    const list = await runCli(['reply', '--list'], { env: { ...t.env, SYNAPSE_AGENT_ID: bob.agentId } });
    expect(list.code).toBe(5);
    expect(list.stderr).toContain(`the reply stack ${stack} is not JSON`);
    const r = await runCli(['send', 'bob', 'still there?', '--wait', '--json'], { env: t.env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ answer: 'ECHO: A2A: [REPLY EXPECTED] still there?', reply_source: 'output' });
    expect(bob.output()).toContain(stack);
    expect(fs.readFileSync(stack, 'utf8')).toBe('[{"task_id": ');
  });
});
