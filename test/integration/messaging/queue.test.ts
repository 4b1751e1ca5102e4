import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, getJson, runCli, startHeadless, tempHome, waitFor, waitForTask, type AgentHandle } from '../../support/synapse.js';
import { gitRepo } from '../../support/git-repo.js';

/**
 * A message to an absent agent waits for it (issue 21 §2): `synapse send` to a saved agent, a
 * name seen in the project, or anything with `--queue`, that is not running leaves the message in
 * the project's store; the agent with that name (id, type) takes it into its inbox when it next
 * reaches READY, in order and once; `--wait` waits for delivery and answer; a TTL expires it with a
 * note to its sender. Real agents, real CLI processes, a temp HOME and project.
 */

/** Each test runs a dozen CLI processes and starts agents: on two busy cores that takes a while. */
const SLOW = 120_000;
const t = tempHome();
const env = { ...t.env, ECHO_THINK_MS: '0' };
const project = path.join(fs.realpathSync(t.home), 'project');
fs.mkdirSync(project, { recursive: true });

const cli = (args: string[], extra: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}) =>
  runCli(args, { env: extra.env ?? env, cwd: extra.cwd ?? project, timeoutMs: extra.timeoutMs ?? 30_000 });
const json = async (args: string[], extra: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) => {
  const r = await cli([...args, '--json'], extra);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};
const start = (name: string, extra: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) =>
  startHeadless('echo', { env: extra.env ?? env, cwd: extra.cwd ?? project, args: ['--name', name] });

/** The lines where the echo CLI answered a message: one per delivery, in the order they were typed. */
async function answered(a: AgentHandle): Promise<string[]> {
  const { body } = await getJson(`${a.endpoint}/screen`);
  return (body.lines as string[]).filter((l) => l.startsWith('ECHO: '));
}

async function tasksOf(a: AgentHandle): Promise<any[]> {
  return (await getJson(`${a.endpoint}/tasks?limit=1000`)).body as any[];
}

beforeAll(async () => {
  for (const [id, name] of [
    ['keen-owl', 'reviewer'],
    ['calm-fox', 'asker'],
    ['wise-lynx', 'helper'],
  ]) {
    const r = await cli(['agents', 'add', id!, '--name', name!, '--profile', 'echo']);
    expect(r.code, r.stderr).toBe(0);
  }
});
afterEach(cleanupAll);
afterAll(() => t.cleanup());

describe('a message to a saved agent that is not running', { timeout: SLOW }, () => {
  it('is queued ("queued for reviewer (not running)"), counted by list and status, and taken once each, in order, when the agent starts', async () => {
    const first = await cli(['send', 'reviewer', 'first of three', '--silent']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(
      /^queued for reviewer \(not running\): task [0-9a-f]{8} waits until an agent named reviewer starts in this project \(1 waiting; expires \S+\)\n$/,
    );
    const second = await json(['send', 'reviewer', 'second of three', '--silent']);
    expect(second).toMatchObject({
      target: 'reviewer',
      status: 'queued',
      receipt: 'waiting_for_agent',
      queued: { target_kind: 'name', target_key: 'reviewer', reason: 'saved agent keen-owl', waiting: 2 },
    });
    const third = await json(['send', 'reviewer', 'third of three', '--silent']);
    const firstId = (await json(['status', 'reviewer'])).queued_messages[0].task_id as string;

    // --no-queue keeps the old answer: not running is not found.
    const refused = await cli(['send', 'reviewer', 'not this one', '--no-queue']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('no agent matches "reviewer"');

    expect(await json(['list', '--waiting'])).toEqual([expect.objectContaining({ target_kind: 'name', target_key: 'reviewer', waiting: 3, running: false })]);
    expect((await cli(['list'])).stdout).toMatch(/^ {2}reviewer \(name\) {2}3 waiting since /m);
    const absent = await json(['status', 'reviewer']);
    expect(absent).toMatchObject({ target: 'reviewer', running: false, waiting_messages: 3 });
    expect(absent.queued_messages.map((m: { task_id: string; state: string }) => [m.task_id, m.state])).toEqual([
      [firstId, 'waiting'],
      [second.task_id, 'waiting'],
      [third.task_id, 'waiting'],
    ]);
    expect((await cli(['status', 'reviewer'])).stdout).toMatch(/^reviewer {2}not running\n {2}waiting {6}3 message\(s\)/);

    const reviewer = await start('reviewer');
    const ids = [firstId, second.task_id, third.task_id];
    for (const id of ids) expect((await waitForTask(reviewer.endpoint, id, 20_000)).status).toBe('completed');
    // Each typed once, in the order it was sent; each is the task its sender was told about.
    expect((await answered(reviewer)).filter((l) => l.includes('of three'))).toEqual([
      'ECHO: A2A: first of three',
      'ECHO: A2A: second of three',
      'ECHO: A2A: third of three',
    ]);
    const delivered = (await tasksOf(reviewer)).filter((task) => ids.includes(task.id));
    expect(delivered).toHaveLength(3);
    expect(delivered[0].metadata.queued).toMatchObject({ target: 'reviewer' });
    expect(Date.parse(delivered.find((d) => d.id === ids[0]).receipt.delivered_at)).toBeLessThan(
      Date.parse(delivered.find((d) => d.id === ids[2]).receipt.delivered_at),
    );

    expect(await json(['list', '--waiting'])).toEqual([]);
    expect(await json(['list'])).toEqual([expect.objectContaining({ name: 'reviewer', waiting_messages: 0 })]);
    expect((await json(['status', 'reviewer'])).waiting_messages).toBe(0);
  });

  it('a name that was never seen here is not queued without --queue, and says how', async () => {
    const r = await cli(['send', 'stranger', 'hello?']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('no agent matches "stranger"');
    expect(r.stderr).toContain('add --queue');
  });
});

describe('send --wait to an agent that is not running', { timeout: SLOW }, () => {
  it('waits for the delivery and the answer, and prints the answer', async () => {
    const waiting = cli(['send', 'helper', 'are you there?', '--wait'], { timeoutMs: 60_000 });
    await waitFor(async () => (await json(['status', 'helper'])).waiting_messages === 1, 20_000, 'the message to wait in the queue');
    await start('helper');
    const r = await waiting;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('ECHO: A2A: [REPLY EXPECTED] are you there?\n');
    expect(r.stderr).toContain('queued for helper (not running)');
    expect(r.stderr).toMatch(/delivered to helper \(synapse-echo-\d+\)/);
  });

  it('gives up at --timeout with exit 6; the message stays queued', async () => {
    const r = await cli(['send', 'nowhere-yet', 'later', '--queue', '--wait', '--timeout', '1']);
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('nowhere-yet did not start within 1 s; the message stays queued until');
    expect((await json(['status', 'nowhere-yet'])).waiting_messages).toBe(1);
  });
});

describe('an agent sender', { timeout: SLOW }, () => {
  it('gets the answer of an agent that started later (--notify), and a note when its message expires', async () => {
    const asker = await start('asker');
    const sent = await json(['send', 'reviewer', 'review when you are up', '--notify', '--from', 'asker']);
    expect(sent.queued.target_key).toBe('reviewer');
    const reviewer = await start('reviewer');
    await waitForTask(reviewer.endpoint, sent.task_id, 20_000);
    // The answer went back to the sender as for any --notify message.
    await waitFor(async () => (await tasksOf(asker)).some((task) => task.metadata.in_reply_to === sent.task_id), 20_000, 'the answer at the sender');
    await reviewer.stop();

    // A message nobody takes expires after SYNAPSE_QUEUE_TTL; the running agents of the project
    // notice and the sender, still running, gets a note in its terminal.
    const short = { ...env, SYNAPSE_QUEUE_TTL: '1' };
    const lost = await json(['send', 'ghost', 'anyone there?', '--queue', '--from', 'asker', '--silent'], { env: short });
    const note = await waitFor(
      async () => (await tasksOf(asker)).find((task) => task.metadata.queue_note?.message_id === lost.task_id),
      20_000,
      'the expiry note at the sender',
    );
    expect(note.message.parts[0].text).toMatch(
      /^Synapse: your message to ghost \(task [0-9a-f]{8}, queued \S+\) expired undelivered: no agent named ghost took it within /,
    );
    expect(note.metadata.response_mode).toBe('silent');
    expect((await json(['status', 'ghost'])).queued_messages).toEqual([
      expect.objectContaining({ task_id: lost.task_id, state: 'expired', sender_noted: true, note: expect.stringContaining('SYNAPSE_QUEUE_TTL') }),
    ]);

    // --wait on a message that expires ends with exit 5 and why.
    const expired = await cli(['send', 'ghost', 'still nobody?', '--queue', '--wait'], { env: short });
    expect(expired.code).toBe(5);
    expect(expired.stderr).toMatch(/your message to ghost \(task [0-9a-f]{8}\) expired: no agent named ghost took it within/);
  });
});

describe('other ways a target waits', { timeout: SLOW }, () => {
  it('--queue with a type: exactly one of two agents of that type that start together takes it', async () => {
    const sent = await json(['send', 'echo', 'for the first echo agent', '--queue', '--silent']);
    expect(sent.queued).toMatchObject({ target_kind: 'type', target_key: 'echo' });
    const [a, b] = await Promise.all([start('left'), start('right')]);
    const taken = await waitFor(async () => {
      const found = [];
      for (const agent of [a, b]) if ((await getJson(`${agent.endpoint}/tasks/${sent.task_id}`)).status === 200) found.push(agent);
      return found.length > 0 ? found : null;
    }, 20_000);
    await waitForTask(taken[0]!.endpoint, sent.task_id, 20_000);
    const other = taken[0] === a ? b : a;
    expect((await getJson(`${other.endpoint}/tasks/${sent.task_id}`)).status).toBe(404);
    expect((await answered(taken[0]!)).filter((l) => l.includes('for the first echo agent'))).toHaveLength(1);
  });

  it('a name seen in this project before (the history) waits without --queue', async () => {
    const withHistory = { ...env, SYNAPSE_HISTORY_ENABLED: 'true' };
    const veteran = await start('veteran', { env: withHistory });
    const hello = await cli(['send', 'veteran', 'hello', '--wait'], { env: withHistory });
    expect(hello.code, hello.stderr).toBe(0);
    await waitFor(async () => (await cli(['history', 'list', '--json'], { env: withHistory })).stdout.includes('veteran'), 10_000, 'the history entry');
    await veteran.stop();
    const back = await json(['send', 'veteran', 'welcome back', '--silent'], { env: withHistory });
    expect(back.queued).toMatchObject({ target_kind: 'name', reason: 'a name seen in this project' });
    const again = await start('veteran', { env: withHistory });
    await waitForTask(again.endpoint, back.task_id, 20_000);
  });

  it('a message queued in the main checkout reaches the agent that starts in a worktree of the repository', async () => {
    const repo = path.join(fs.realpathSync(t.home), 'repo');
    const gitEnv = { ...env };
    const git = gitRepo(repo, gitEnv);
    const tree = path.join(repo, '.synapse', 'worktrees', 'side');
    git(repo, 'worktree', 'add', '-q', '-b', 'side', tree);
    const sent = await json(['send', 'builder', 'build the side branch', '--queue', '--silent'], { env: gitEnv, cwd: repo });
    const builder = await start('builder', { env: gitEnv, cwd: tree });
    expect((await waitForTask(builder.endpoint, sent.task_id, 20_000)).status).toBe('completed');
  });
});
