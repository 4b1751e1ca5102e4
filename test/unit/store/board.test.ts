import { clockFrom } from '../../../src/clock.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BOARD_MIGRATIONS, TaskBoard } from '../../../src/store/board.js';
import { claimByA2aTask, completeByA2aTask, createLinkedTask, failByA2aTask } from '../../../src/store/board-store.js';
import { findCycle } from '../../../src/store/board-graph.js';
import { groupTasks, renderBoard } from '../../../src/store/board-view.js';
import { openDatabase } from '../../../src/store/sqlite.js';

let dir: string;
let now: number;
let board: TaskBoard;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'board-unit-'));
  now = Date.parse('2026-01-01T00:00:00Z');
  board = TaskBoard.forProject(dir, { clock: clockFrom(() => now) });
});

afterEach(() => {
  board.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function errorOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error('expected an error');
}

describe('task board', () => {
  it('creates tasks with every field and lists them by status, then priority', () => {
    const low = board.create({ subject: 'low', priority: 1 });
    const high = board.create({
      subject: 'high',
      description: 'details',
      priority: 5,
      created_by: 'lead',
      assignee: 'alice',
      group_id: 'g1',
      group_title: 'Group one',
      plan_id: 'p1',
      component: 'api',
      milestone: 'v1',
      external_ref: 'GH-1',
    });
    expect(high).toMatchObject({ status: 'pending', priority: 5, component: 'api', group_title: 'Group one', blocked: false, blocked_by: [] });
    board.claim(low.id, 'bob');
    expect(board.list().map((t) => t.subject)).toEqual(['low', 'high']);
    expect(board.list({ status: ['pending'] }).map((t) => t.subject)).toEqual(['high']);
    expect(board.list({ assignee: ['bob'] }).map((t) => t.subject)).toEqual(['low']);
    expect(board.list({ component: 'api', milestone: 'v1', group_id: 'g1', plan_id: 'p1' })).toHaveLength(1);
  });

  it('refuses bad input with usage errors', () => {
    expect(errorOf(() => board.create({ subject: '  ' })).code).toBe('usage');
    expect(errorOf(() => board.create({ subject: 'x', priority: 0 })).code).toBe('usage');
    expect(errorOf(() => board.create({ subject: 'x', priority: 6 })).code).toBe('usage');
    expect(errorOf(() => board.create({ subject: 'x', priority: 2.5 })).code).toBe('usage');
    expect(errorOf(() => board.create({ subject: 'x', id: 'not-a-uuid' })).code).toBe('invalid_input');
    expect(errorOf(() => board.fail(board.create({ subject: 'y' }).id, '')).code).toBe('usage');
  });

  it('resolves unique prefixes and lists the candidates of an ambiguous one', () => {
    const a = board.create({ id: 'aaaa1111-0000-4000-8000-000000000001', subject: 'first' });
    board.create({ id: 'aaaa2222-0000-4000-8000-000000000002', subject: 'second' });
    expect(board.get('aaaa1').id).toBe(a.id);
    expect(board.get('AAAA1111').id).toBe(a.id);
    const amb = errorOf(() => board.get('aaaa'));
    expect(amb.code).toBe('ambiguous_task');
    expect(amb.message).toContain('aaaa1111-0000-4000-8000-000000000001');
    expect(amb.message).toContain('second');
    expect(errorOf(() => board.get('bbbb')).code).toBe('task_not_found');
    expect(errorOf(() => board.get('zz%')).code).toBe('task_not_found');
  });

  it('makes a task claimable only when every blocker is completed, and reports the unblocked', () => {
    const a = board.create({ subject: 'a' });
    const b = board.create({ subject: 'b' });
    const c = board.create({ subject: 'c', blocked_by: [a.id, b.id.slice(0, 8)] });
    expect(c.blocked).toBe(true);
    const blocked = errorOf(() => board.claim(c.id, 'x'));
    expect(blocked.code).toBe('blocked');
    expect(blocked.message).toContain(a.id.slice(0, 8));
    expect(blocked.message).toContain('"b"');
    expect(board.complete(a.id).unblocked).toEqual([]);
    expect(board.get(c.id).blocked).toBe(true);
    const done = board.complete(b.id);
    expect(done.unblocked.map((t) => t.id)).toEqual([c.id]);
    expect(board.claim(c.id, 'x').status).toBe('in_progress');
  });

  it('keeps dependants blocked by a failed task until it is reopened and completed', () => {
    const a = board.create({ subject: 'a' });
    const b = board.create({ subject: 'b', blocked_by: [a.id] });
    board.fail(a.id, 'broke');
    expect(errorOf(() => board.claim(b.id, 'x')).message).toContain('failed');
    board.reopen(a.id);
    board.complete(a.id);
    expect(board.claim(b.id, 'x').claimed_by).toBe('x');
  });

  it('says who holds a claim and refuses finished tasks', () => {
    const t = board.create({ subject: 't' });
    board.claim(t.id, 'alice');
    expect(board.claim(t.id, 'alice').claimed_by).toBe('alice');
    const held = errorOf(() => board.claim(t.id, 'bob'));
    expect(held.code).toBe('conflict');
    expect(held.message).toContain('claimed by alice');
    board.complete(t.id);
    const fin = errorOf(() => board.claim(t.id, 'bob'));
    expect(fin.message).toContain('already completed');
    expect(errorOf(() => board.complete(t.id)).code).toBe('conflict');
    expect(errorOf(() => board.fail(t.id, 'late')).code).toBe('conflict');
    expect(board.reopen(t.id)).toMatchObject({ status: 'pending', claimed_by: null, completed_at: null });
    expect(errorOf(() => board.reopen(t.id)).code).toBe('conflict');
  });

  it('refuses dependency cycles in a batch and self-dependencies', () => {
    const x = 'aaaaaaaa-0000-4000-8000-00000000000a';
    const y = 'bbbbbbbb-0000-4000-8000-00000000000b';
    const z = 'cccccccc-0000-4000-8000-00000000000c';
    const cyc = errorOf(() =>
      board.createMany([
        { id: x, subject: 'x', blocked_by: [z] },
        { id: y, subject: 'y', blocked_by: [x] },
        { id: z, subject: 'z', blocked_by: [y] },
      ]),
    );
    expect(cyc.code).toBe('usage');
    expect(cyc.message).toMatch(/cycle/);
    expect(board.list()).toHaveLength(0);
    expect(errorOf(() => board.create({ id: x, subject: 'x', blocked_by: [x] })).message).toMatch(/cycle/);
    const plan = board.createMany([
      { id: x, subject: 'x' },
      { id: y, subject: 'y', blocked_by: [x] },
      { id: z, subject: 'z', blocked_by: [x, y] },
    ]);
    expect(plan.map((t) => t.blocked)).toEqual([false, true, true]);
    expect(
      findCycle(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).toBeNull();
    expect(
      findCycle(
        new Map([
          ['a', ['b']],
          ['b', ['a']],
        ]),
      ),
    ).toEqual(['a', 'b', 'a']);
  });

  it('purges old finished tasks but keeps those an unfinished task still waits for', () => {
    const old = board.create({ subject: 'old' });
    const blocker = board.create({ subject: 'blocker' });
    const waiting = board.create({ subject: 'waiting', blocked_by: [blocker.id] });
    board.complete(old.id);
    board.fail(blocker.id, 'nope');
    now += 8 * 86_400_000;
    const recent = board.create({ subject: 'recent' });
    board.complete(recent.id);
    const dry = board.purge({ statuses: ['completed', 'failed'], olderThanMs: 7 * 86_400_000, dryRun: true });
    expect(dry.purged.map((t) => t.subject)).toEqual(['old']);
    expect(dry.skipped.map((s) => [s.task.subject, s.waiting])).toEqual([['blocker', [waiting.id]]]);
    expect(board.list()).toHaveLength(4);
    board.purge({ statuses: ['completed', 'failed'], olderThanMs: 7 * 86_400_000 });
    expect(
      board
        .list()
        .map((t) => t.subject)
        .sort(),
    ).toEqual(['blocker', 'recent', 'waiting']);
  });

  it('drives a linked task from its A2A task: claim on start, complete or fail at the end', async () => {
    const t = await createLinkedTask(dir, { subject: 'review', assignee: 'synapse-codex-8120', a2a_task_id: 'a2a-1', created_by: 'synapse-claude-8100' });
    expect(t).toMatchObject({ assignee: 'synapse-codex-8120', a2a_task_id: 'a2a-1', status: 'pending' });
    expect((await claimByA2aTask(dir, 'a2a-1', 'synapse-codex-8120'))?.status).toBe('in_progress');
    expect((await completeByA2aTask(dir, 'a2a-1'))?.task.status).toBe('completed');
    expect(await completeByA2aTask(dir, 'missing')).toBeNull();
    await createLinkedTask(dir, { subject: 'other', assignee: 'x', a2a_task_id: 'a2a-2' });
    expect(await failByA2aTask(dir, 'a2a-2', 'canceled by user')).toMatchObject({ status: 'failed', fail_reason: 'canceled by user' });
    expect((await claimByA2aTask(dir, 'a2a-2', 'x'))?.status).toBe('failed');
    await expect(createLinkedTask(dir, { subject: 'dup', assignee: 'x', a2a_task_id: 'a2a-1' })).rejects.toMatchObject({ code: 'conflict' });
    const later = board.create({ subject: 'link later' });
    board.linkA2aTask(later.id.slice(0, 8), 'a2a-3');
    expect(board.findByA2aTask('a2a-3')?.id).toBe(later.id);
  });

  it('groups and renders the board with names instead of agent ids', () => {
    board.create({ subject: 'one', group_id: 'g', group_title: 'Release', assignee: 'synapse-claude-8100' });
    board.create({ subject: 'two' });
    const groups = groupTasks(board.list(), 'group_id');
    expect(groups.map((g) => [g.key, g.title, g.tasks.length])).toEqual([
      ['g', 'Release', 1],
      [null, null, 1],
    ]);
    const text = renderBoard(board.list(), new Map([['synapse-claude-8100', 'alice']]), { groupBy: 'group_id' });
    expect(text).toContain('== g: Release (0/1 completed) ==');
    expect(text).toContain('alice');
    expect(text).not.toContain('synapse-claude-8100');
  });
});

describe('task board schema', () => {
  it('migrates an empty file to the latest version', () => {
    const file = path.join(dir, 'empty.db');
    fs.writeFileSync(file, '');
    const b = new TaskBoard(file);
    expect(b.schemaVersion()).toBe(BOARD_MIGRATIONS.at(-1)!.version);
    b.close();
  });

  it('upgrades a v1 file in place, keeping its tasks and dropping duplicated A2A links', () => {
    const file = path.join(dir, 'v1.db');
    const v1 = openDatabase(file, BOARD_MIGRATIONS.slice(0, 1));
    const ins = v1.prepare(
      `INSERT INTO tasks (id, subject, a2a_task_id, created_at, updated_at) VALUES (?, ?, ?, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
    );
    ins.run('11111111-0000-4000-8000-000000000001', 'first', 'dup');
    ins.run('22222222-0000-4000-8000-000000000002', 'second', 'dup');
    v1.prepare(`INSERT INTO task_deps VALUES (?, ?)`).run('22222222-0000-4000-8000-000000000002', '11111111-0000-4000-8000-000000000001');
    expect(v1.pragma('user_version', { simple: true })).toBe(1);
    v1.close();

    const b = new TaskBoard(file);
    expect(b.schemaVersion()).toBe(2);
    expect(b.list().map((t) => [t.subject, t.a2a_task_id, t.blocked])).toEqual([
      ['first', 'dup', false],
      ['second', null, true],
    ]);
    b.close();
    const raw = new Database(file, { readonly: true });
    expect((raw.prepare(`SELECT name FROM sqlite_master WHERE name = 'tasks_by_a2a_task'`).get() as { name: string }).name).toBe('tasks_by_a2a_task');
    raw.close();
  });

  it('names the file when it is not a database', () => {
    const file = path.join(dir, 'junk.db');
    fs.writeFileSync(file, 'this is not sqlite'.repeat(100));
    const err = errorOf(() => new TaskBoard(file));
    expect(err.code).toBe('database_error');
    expect(err.message).toContain(file);
  });
});
