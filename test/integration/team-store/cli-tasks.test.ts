import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { json, killAll, registerAgent, synapse, tempProject, type Project } from './harness.js';

let project: Project;
const children: ChildProcess[] = [];

beforeEach(() => {
  project = tempProject();
});

afterEach(async () => {
  await killAll(children);
  project.cleanup();
});

async function create(subject: string, ...flags: string[]): Promise<{ id: string; blocked: boolean; [k: string]: unknown }> {
  return json(project, ['tasks', 'create', subject, ...flags, '--json']);
}

describe('synapse tasks', () => {
  it('creates, lists, claims, completes and unblocks through the CLI', async () => {
    const a = await create('Write parser', '-d', 'the tokenizer first', '--priority', '4', '--component', 'core', '--milestone', 'v1', '--ref', 'GH-7');
    const b = await create('Ship', '--blocked-by', a.id.slice(0, 6), '--group', 'rel', '--group-title', 'Release', '--milestone', 'v1');
    expect(b.blocked).toBe(true);

    const blocked = await synapse(project, ['tasks', 'claim', b.id.slice(0, 8), '--as', 'bob']);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain(`blocked by ${a.id.slice(0, 8)} "Write parser" (pending)`);

    expect((await synapse(project, ['tasks', 'claim', a.id, '--as', 'alice'])).stdout).toContain('claimed');
    const taken = await synapse(project, ['tasks', 'claim', a.id, '--as', 'bob']);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('already claimed by alice');

    const done = await synapse(project, ['tasks', 'complete', a.id.slice(0, 8)]);
    expect(done.stdout).toContain(`unblocked ${b.id.slice(0, 8)}`);
    await synapse(project, ['tasks', 'claim', b.id, '--as', 'bob']);

    const list = await synapse(project, ['tasks', 'list']);
    expect(list.stdout).toMatch(/ID\s+STATUS\s+PRI\s+SUBJECT\s+ASSIGNEE\s+BLOCKED BY/);
    expect(list.stdout).toMatch(new RegExp(`${b.id.slice(0, 8)}\\s+in_progress\\s+3\\s+Ship\\s+bob`));

    const grouped = await json(project, ['tasks', 'list', '--group-by', 'milestone', '--format', 'json']);
    expect(grouped.groups.map((g: { key: string; tasks: unknown[] }) => [g.key, g.tasks.length])).toEqual([['v1', 2]]);
    const byGroup = await synapse(project, ['tasks', 'list', '--group-by', 'group_id', '--verbose']);
    expect(byGroup.stdout).toContain('== rel: Release (0/1 completed) ==');
    expect(byGroup.stdout).toContain('(no group_id)');
    expect((await json(project, ['tasks', 'list', '--status', 'completed', '--json'])).map((t: { id: string }) => t.id)).toEqual([a.id]);
    expect((await json(project, ['tasks', 'list', '--assignee', 'bob', '--json'])).map((t: { id: string }) => t.id)).toEqual([b.id]);

    const shown = await synapse(project, ['tasks', 'show', b.id.slice(0, 8)]);
    expect(shown.stdout).toContain('group:        rel (Release)');
    expect(shown.stdout).toContain('blocked by (0 unfinished of 1)');
    const showA = await json(project, ['tasks', 'show', a.id, '--json']);
    expect(showA.task).toMatchObject({ description: 'the tokenizer first', external_ref: 'GH-7', status: 'completed' });
    expect(showA.dependants.map((d: { id: string }) => d.id)).toEqual([b.id]);
  });

  it('fails, reopens, assigns and purges', async () => {
    const t = await create('flaky');
    const failed = await synapse(project, ['tasks', 'fail', t.id, '--reason', 'network down']);
    expect(failed.stdout).toContain('network down');
    const noReason = await synapse(project, ['tasks', 'fail', t.id]);
    expect(noReason.code).toBe(1);
    expect(noReason.stderr).toContain("required option '--reason <text>'");
    expect((await json(project, ['tasks', 'reopen', t.id, '--json'])).status).toBe('pending');
    expect((await json(project, ['tasks', 'assign', t.id, 'carol', '--json'])).assignee).toBe('carol');
    await synapse(project, ['tasks', 'complete', t.id]);
    const keep = await create('still open');
    const dry = await json(project, ['tasks', 'purge', '--dry-run', '--json']);
    expect(dry.purged.map((x: { id: string }) => x.id)).toEqual([t.id]);
    expect((await synapse(project, ['tasks', 'purge', '--older-than', '7d'])).stdout).toContain('purged 0 task(s)');
    expect((await synapse(project, ['tasks', 'purge'])).stdout).toContain('purged 1 task(s)');
    expect((await json(project, ['tasks', 'list', '--json'])).map((x: { id: string }) => x.id)).toEqual([keep.id]);
  });

  it('shows registered agents by name and resolves names given to assign and claim', async () => {
    const sleeper = spawn('sleep', ['60']);
    children.push(sleeper);
    registerAgent(project, { agent_id: 'synapse-claude-8100', name: 'alice', pid: sleeper.pid!, port: 8100, working_dir: project.dir });
    fs.writeFileSync(path.join(project.registry, 'broken.json'), '{ not json');
    const t = await create('named');
    await synapse(project, ['tasks', 'claim', t.id, '--as', 'alice']);
    const stored = await json(project, ['tasks', 'list', '--json']);
    expect(stored[0]).toMatchObject({ claimed_by: 'synapse-claude-8100', claimed_by_name: 'alice' });
    const table = await synapse(project, ['tasks', 'list']);
    expect(table.stdout).toMatch(/in_progress\s+3\s+named\s+alice/);
    expect((await json(project, ['tasks', 'list', '--assignee', 'alice', '--json'])).length).toBe(1);
    const created = await json(project, ['tasks', 'create', 'by agent', '--json'], { SYNAPSE_AGENT_ID: 'synapse-claude-8100' });
    expect(created.created_by).toBe('synapse-claude-8100');
  });

  it('reports bad input as usage errors and unknown or ambiguous ids with the candidates', async () => {
    const badPriority = await synapse(project, ['tasks', 'create', 'x', '--priority', '6']);
    expect(badPriority.code).toBe(1);
    expect(badPriority.stderr).toContain('--priority must be a whole number from 1 to 5');
    expect((await synapse(project, ['tasks', 'purge', '--older-than', 'soon'])).stderr).toContain("invalid --older-than 'soon'");
    expect((await synapse(project, ['tasks', 'list', '--status', 'done'])).stderr).toContain("unknown status 'done'");
    expect((await synapse(project, ['tasks', 'list', '--group-by', 'owner'])).stderr).toContain('Allowed choices are group_id, component, milestone, status');
    expect((await synapse(project, ['tasks', 'show', 'deadbeef'])).stderr).toContain("no task matches 'deadbeef'");
    const db = path.join(project.dir, '.synapse', 'task_board.db');
    const raw = new Database(db);
    const ins = raw.prepare(`INSERT INTO tasks (id, subject, created_at, updated_at) VALUES (?, ?, 'x', 'x')`);
    ins.run('abcd0000-0000-4000-8000-000000000001', 'one');
    ins.run('abcd0000-0000-4000-8000-000000000002', 'two');
    raw.close();
    const amb = await synapse(project, ['tasks', 'claim', 'abcd']);
    expect(amb.code).toBe(1);
    expect(amb.stderr).toContain("'abcd' matches 2 tasks");
    expect(amb.stderr).toContain('abcd0000-0000-4000-8000-000000000002  pending  two');
  });

  it('has --help with an example on every subcommand', async () => {
    for (const sub of ['create', 'list', 'show', 'assign', 'claim', 'complete', 'fail', 'reopen', 'purge']) {
      const help = await synapse(project, ['tasks', sub, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('Examples:');
      expect(help.stdout).toContain(`synapse tasks ${sub}`);
    }
  });
});

describe('board database failures', () => {
  it('names a corrupt file instead of showing an empty board', async () => {
    const file = path.join(project.dir, '.synapse', 'task_board.db');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'definitely not sqlite '.repeat(300));
    const r = await synapse(project, ['tasks', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toContain('file is not a database');
    expect(r.stdout).toBe('');
  });

  it('names a file that stays locked by another process past the busy timeout', async () => {
    await create('exists');
    const file = path.join(project.dir, '.synapse', 'task_board.db');
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
    await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));
    const r = await synapse(project, ['tasks', 'create', 'blocked out']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(file);
    expect(r.stderr).toMatch(/locked|busy/);
  }, 30_000);

  it('upgrades a v1 board file the first time a command opens it', async () => {
    const file = path.join(project.dir, '.synapse', 'task_board.db');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const { BOARD_MIGRATIONS } = await import('../../../src/store/board-schema.js');
    const raw = new Database(file);
    raw.exec(BOARD_MIGRATIONS[0]!.sql);
    raw.pragma('user_version = 1');
    raw.prepare(`INSERT INTO tasks (id, subject, created_at, updated_at) VALUES ('f0000000-0000-4000-8000-000000000001', 'legacy', 'x', 'x')`).run();
    raw.close();
    expect((await json(project, ['tasks', 'list', '--json'])).map((t: { subject: string }) => t.subject)).toEqual(['legacy']);
    const check = new Database(file, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(2);
    check.close();
  });
});
