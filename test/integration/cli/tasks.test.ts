import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  assignTask,
  claimTask,
  completeTask,
  createTask,
  failTask,
  listTasks,
  purgeTasks,
  reopenTask,
  showTask,
  type CreateTaskOptions,
  type ListTasksOptions,
} from '../../../src/cli/commands/tasks.js';
import type { CommandIo } from '../../../src/cli/io.js';
import { runCommand, runJson } from '../../support/cli-io.js';
import { registerAgent, useTempProject } from '../../support/project.js';

/** `synapse tasks …` in-process, on a real board file in a temp project. */

const require = createRequire(import.meta.url);
const ctx = useTempProject();
const children = ctx.children;

const io = (env: NodeJS.ProcessEnv = {}) => ({ env: { ...ctx.project.env, ...env }, cwd: ctx.project.dir });
const run = (command: (io: CommandIo) => Promise<void>, env?: NodeJS.ProcessEnv) => runCommand(command, io(env));
const json = <T = any>(command: (io: CommandIo) => Promise<void>, env?: NodeJS.ProcessEnv) => runJson<T>(command, io(env));
/** What commander passes when only these options are given. */
const created = (o: Partial<CreateTaskOptions> = {}): CreateTaskOptions => ({ priority: '3', ...o });
const listed = (o: Partial<ListTasksOptions> = {}): ListTasksOptions => ({ format: 'table', ...o });

function create(subject: string, o: Partial<CreateTaskOptions> = {}, env?: NodeJS.ProcessEnv): Promise<{ id: string; blocked: boolean; [k: string]: unknown }> {
  return json((c) => createTask(subject, created({ ...o, json: true }), c), env);
}

describe('synapse tasks', () => {
  it('creates, lists, claims, completes and unblocks', async () => {
    const a = await create('Write parser', { description: 'the tokenizer first', priority: '4', component: 'core', milestone: 'v1', ref: 'GH-7' });
    const b = await create('Ship', { blockedBy: [a.id.slice(0, 6)], group: 'rel', groupTitle: 'Release', milestone: 'v1' });
    expect(b.blocked).toBe(true);

    const blocked = await run((c) => claimTask(b.id.slice(0, 8), { as: 'bob' }, c));
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain(`blocked by ${a.id.slice(0, 8)} "Write parser" (pending)`);

    expect((await run((c) => claimTask(a.id, { as: 'alice' }, c))).stdout).toContain('claimed');
    const taken = await run((c) => claimTask(a.id, { as: 'bob' }, c));
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('already claimed by alice');

    const done = await run((c) => completeTask(a.id.slice(0, 8), {}, c));
    expect(done.stdout).toContain(`unblocked ${b.id.slice(0, 8)}`);
    await run((c) => claimTask(b.id, { as: 'bob' }, c));

    const list = await run((c) => listTasks(listed(), c));
    expect(list.stdout).toMatch(/ID\s+STATUS\s+PRI\s+SUBJECT\s+ASSIGNEE\s+BLOCKED BY/);
    expect(list.stdout).toMatch(new RegExp(`${b.id.slice(0, 8)}\\s+in_progress\\s+3\\s+Ship\\s+bob`));

    const grouped = await json((c) => listTasks(listed({ groupBy: 'milestone', format: 'json' }), c));
    expect(grouped.groups.map((g: { key: string; tasks: unknown[] }) => [g.key, g.tasks.length])).toEqual([['v1', 2]]);
    const byGroup = await run((c) => listTasks(listed({ groupBy: 'group_id', verbose: true }), c));
    expect(byGroup.stdout).toContain('== rel: Release (0/1 completed) ==');
    expect(byGroup.stdout).toContain('(no group_id)');
    expect((await json((c) => listTasks(listed({ status: 'completed', json: true }), c))).map((t: { id: string }) => t.id)).toEqual([a.id]);
    expect((await json((c) => listTasks(listed({ assignee: 'bob', json: true }), c))).map((t: { id: string }) => t.id)).toEqual([b.id]);

    const shown = await run((c) => showTask(b.id.slice(0, 8), {}, c));
    expect(shown.stdout).toContain('group:        rel (Release)');
    expect(shown.stdout).toContain('blocked by (0 unfinished of 1)');
    const showA = await json((c) => showTask(a.id, { json: true }, c));
    expect(showA.task).toMatchObject({ description: 'the tokenizer first', external_ref: 'GH-7', status: 'completed' });
    expect(showA.dependants.map((d: { id: string }) => d.id)).toEqual([b.id]);
  });

  it('fails, reopens, assigns and purges', async () => {
    const t = await create('flaky');
    const failed = await run((c) => failTask(t.id, { reason: 'network down' }, c));
    expect(failed.stdout).toContain('network down');
    expect((await json((c) => reopenTask(t.id, { json: true }, c))).status).toBe('pending');
    expect((await json((c) => assignTask(t.id, 'carol', { json: true }, c))).assignee).toBe('carol');
    await run((c) => completeTask(t.id, {}, c));
    const keep = await create('still open');
    const dry = await json((c) => purgeTasks({ status: 'completed', dryRun: true, json: true }, c));
    expect(dry.purged.map((x: { id: string }) => x.id)).toEqual([t.id]);
    expect((await run((c) => purgeTasks({ status: 'completed', olderThan: '7d' }, c))).stdout).toContain('purged 0 task(s)');
    expect((await run((c) => purgeTasks({ status: 'completed' }, c))).stdout).toContain('purged 1 task(s)');
    expect((await json((c) => listTasks(listed({ json: true }), c))).map((x: { id: string }) => x.id)).toEqual([keep.id]);
  });

  it('shows registered agents by name and resolves names given to assign and claim', async () => {
    const sleeper = spawn('sleep', ['60']);
    children.push(sleeper);
    registerAgent(ctx.project, { agent_id: 'synapse-claude-8100', name: 'alice', pid: sleeper.pid!, port: 8100, working_dir: ctx.project.dir });
    fs.writeFileSync(path.join(ctx.project.registry, 'broken.json'), '{ not json');
    const t = await create('named');
    await run((c) => claimTask(t.id, { as: 'alice' }, c));
    const stored = await json((c) => listTasks(listed({ json: true }), c));
    expect(stored[0]).toMatchObject({ claimed_by: 'synapse-claude-8100', claimed_by_name: 'alice' });
    const table = await run((c) => listTasks(listed(), c));
    expect(table.stdout).toMatch(/in_progress\s+3\s+named\s+alice/);
    expect((await json((c) => listTasks(listed({ assignee: 'alice', json: true }), c))).length).toBe(1);
    const assigned = await run((c) => assignTask(t.id, 'alice', {}, c));
    expect(assigned.stdout).toContain('to alice (synapse-claude-8100)');
    const byAgent = await create('by agent', {}, { SYNAPSE_AGENT_ID: 'synapse-claude-8100' });
    expect(byAgent.created_by).toBe('synapse-claude-8100');
  });

  it('reports bad input as usage errors and unknown or ambiguous ids with the candidates', async () => {
    const badPriority = await run((c) => createTask('x', created({ priority: '6' }), c));
    expect(badPriority.code).toBe(1);
    expect(badPriority.stderr).toContain('--priority must be a whole number from 1 to 5');
    expect((await run((c) => createTask('x', created({ groupTitle: 'T' }), c))).stderr).toContain('--group-title needs --group');
    expect((await run((c) => purgeTasks({ status: 'completed', olderThan: 'soon' }, c))).stderr).toContain("invalid --older-than 'soon'");
    expect((await run((c) => listTasks(listed({ status: 'done' }), c))).stderr).toContain("unknown status 'done'");
    expect((await run((c) => showTask('deadbeef', {}, c))).stderr).toContain("no task matches 'deadbeef'");
    const db = path.join(ctx.project.dir, '.synapse', 'task_board.db');
    const raw = new Database(db);
    const ins = raw.prepare(`INSERT INTO tasks (id, subject, created_at, updated_at) VALUES (?, ?, 'x', 'x')`);
    ins.run('abcd0000-0000-4000-8000-000000000001', 'one');
    ins.run('abcd0000-0000-4000-8000-000000000002', 'two');
    raw.close();
    const amb = await run((c) => claimTask('abcd', {}, c));
    expect(amb.code).toBe(1);
    expect(amb.stderr).toContain("'abcd' matches 2 tasks");
    expect(amb.stderr).toContain('abcd0000-0000-4000-8000-000000000002  pending  two');
  });

  it('uses SYNAPSE_PROJECT_DIR as the project when it is set, and prints the new id', async () => {
    const other = path.join(ctx.project.home, 'elsewhere');
    fs.mkdirSync(other);
    const human = await run((c) => createTask('over there', created(), c), { SYNAPSE_PROJECT_DIR: other });
    expect(human.stdout).toMatch(/^created [0-9a-f]{8} {2}pending {2}"over there"\n[0-9a-f-]{36}\n$/);
    expect(fs.existsSync(path.join(other, '.synapse', 'task_board.db'))).toBe(true);
    expect(fs.existsSync(path.join(ctx.project.dir, '.synapse'))).toBe(false);
  });
});

describe('board database failures', () => {
  it('names a corrupt file instead of showing an empty board', async () => {
    const file = path.join(ctx.project.dir, '.synapse', 'task_board.db');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'definitely not sqlite '.repeat(300));
    const r = await run((c) => listTasks(listed(), c));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toContain('file is not a database');
    expect(r.stdout).toBe('');
  });

  it('names a file that stays locked by another process past the busy timeout', async () => {
    await create('exists');
    const file = path.join(ctx.project.dir, '.synapse', 'task_board.db');
    // Another process takes the write lock and keeps it: exclusive locking mode holds it until exit.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const D = require(${JSON.stringify(require.resolve('better-sqlite3'))});
         const db = new D(${JSON.stringify(file)}); db.pragma('locking_mode = EXCLUSIVE');
         db.exec("BEGIN IMMEDIATE; UPDATE tasks SET subject = subject"); process.stdout.write('held\\n'); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(holder);
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    const r = await run((c) => createTask('blocked out', created(), c));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toMatch(/locked|busy/);
  }, 30_000);

  it('upgrades a v1 board file the first time a command opens it', async () => {
    const file = path.join(ctx.project.dir, '.synapse', 'task_board.db');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const { BOARD_MIGRATIONS } = await import('../../../src/store/board-schema.js');
    const raw = new Database(file);
    raw.exec(BOARD_MIGRATIONS[0]!.sql);
    raw.pragma('user_version = 1');
    raw.prepare(`INSERT INTO tasks (id, subject, created_at, updated_at) VALUES ('f0000000-0000-4000-8000-000000000001', 'legacy', 'x', 'x')`).run();
    raw.close();
    expect((await json((c) => listTasks(listed({ json: true }), c))).map((t: { subject: string }) => t.subject)).toEqual(['legacy']);
    const check = new Database(file, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(2);
    check.close();
  });
});
