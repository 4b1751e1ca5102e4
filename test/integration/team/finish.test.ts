import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishCommand, type FinishFlags } from '../../../src/cli/commands/finish.js';
import { listLocks, lockFile } from '../../../src/cli/commands/file-safety.js';
import { TaskBoard } from '../../../src/store/board.js';
import { runCommand, runJson } from '../../support/cli-io.js';
import {
  artifactText,
  cleanupAll,
  getJson,
  postJson,
  startHeadless,
  tempHome,
  textMessage,
  waitFor,
  waitForTask,
  type AgentHandle,
} from '../../support/synapse.js';

/** The project's SQLite board (the engine behind the asynchronous interface), opened for one call. */
function withTaskBoard<T>(projectDir: string, fn: (board: TaskBoard) => T): T {
  const board = TaskBoard.forProject(projectDir);
  try {
    return fn(board);
  } finally {
    board.close();
  }
}

/**
 * `synapse finish` against a real headless echo agent working in a temporary project: its locks
 * are released, its claimed board tasks completed (or reopened), and the sender waiting for its
 * answer gets the hand-off note.
 */

const t = tempHome();
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-finish-')));
let worker: AgentHandle;

beforeAll(async () => {
  worker = await startNonReplyingIn(dir);
}, 30_000);

afterAll(async () => {
  await cleanupAll();
  t.cleanup();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** An echo agent in `cwd` that never answers by itself, so a sender waits on its reply stack. */
function startNonReplyingIn(cwd: string): Promise<AgentHandle> {
  return startHeadless('echo', { env: { ...t.env, ECHO_AUTO_REPLY: '0', SYNAPSE_REPLY_GRACE: '120' }, args: ['--name', 'worker'], cwd });
}

const io = { env: { ...t.env, SYNAPSE_PROJECT_DIR: dir }, cwd: dir };
const asWorker = { ...io, env: { ...io.env, SYNAPSE_AGENT_ID: '' } };
const finish = (flags: FinishFlags) => runCommand((c) => finishCommand({ from: 'worker', ...flags }, c), asWorker);
const locks = () => runJson<{ path: string; agent_id: string }[]>((c) => listLocks({ json: true }, c), io);

function claimTask(subject: string): string {
  return withTaskBoard(dir, (b) => {
    const task = b.create({ subject, assignee: 'worker' });
    return b.claim(task.id, worker.agentId).id;
  });
}

describe('synapse finish', () => {
  it('releases the locks, completes the claimed tasks and answers the waiting sender with the note', async () => {
    for (const f of ['a.ts', 'b.ts']) {
      const locked = await runCommand((c) => lockFile(f, 'worker', { ttl: '600', waitTimeout: '60', waitInterval: '2' }, c), io);
      expect(locked.code, locked.stderr).toBe(0);
    }
    expect((await locks()).map((l) => l.agent_id)).toEqual([worker.agentId, worker.agentId]);
    const taskId = claimTask('split auth.ts');
    const other = withTaskBoard(dir, (b) => b.create({ subject: 'not mine' }).id);

    const sent = await postJson(
      `${worker.endpoint}/tasks/send`,
      textMessage('please split auth.ts', { response_mode: 'wait', sender: { sender_id: 'lead-agent', sender_name: 'lead' } }),
    );
    await waitFor(async () => (await getJson(`${worker.endpoint}/reply-stack/list`)).body.targets.length === 1);

    const out = await finish({ summary: 'auth split', done: ['split auth.ts'], remaining: ['tests for logout'], blockers: ['staging is down'], json: true });
    expect(out.code, out.stderr).toBe(0);
    const result = JSON.parse(out.stdout);
    expect(result.released_locks.map((p: string) => path.basename(p)).sort()).toEqual(['a.ts', 'b.ts']);
    expect(result.tasks).toEqual([{ id: taskId, subject: 'split auth.ts', status: 'completed' }]);
    expect(result.posted_to).toBe('lead');
    expect(await locks()).toEqual([]);
    expect(withTaskBoard(dir, (b) => [b.get(taskId).status, b.get(other).status])).toEqual(['completed', 'pending']);

    const answered = await waitForTask(worker.endpoint, sent.body.task.id);
    expect(answered.status).toBe('completed');
    const note = artifactText(answered);
    expect(note).toContain('[finish] auth split');
    expect(note).toContain('Done:\n- split auth.ts');
    expect(note).toContain('Remaining:\n- tests for logout');
    expect(note).toContain('Blockers:\n- staging is down');
    expect(note).toContain('Released 2 lock(s)');
  });

  it('--reopen puts the claimed task back to pending; with nobody waiting it says the note was not posted', async () => {
    const taskId = claimTask('half-done work');
    const out = await finish({ reopen: true, blockers: ['needs a decision'] });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain(`reopened task ${taskId.slice(0, 8)} half-done work`);
    expect(out.stdout).toContain('nobody is waiting for an answer from you: the note was not posted');
    expect(withTaskBoard(dir, (b) => b.get(taskId))).toMatchObject({ status: 'pending', claimed_by: null });
  });

  it('refuses outside an agent session', async () => {
    const out = await runCommand((c) => finishCommand({ from: 'ghost' }, c), io);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('agent ghost is not running');
  });
});
