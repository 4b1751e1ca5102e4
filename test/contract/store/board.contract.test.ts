import os from 'node:os';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clockFrom } from '../../../src/clock.js';
import { openBoard, type BoardStore } from '../../../src/store/board-store.js';
import { postgresContract, sqliteContract, postgresUnavailable } from '../../support/pg-db.js';

/**
 * The store contract for the task board (issue 22): the same cases, through the same
 * asynchronous interface, against SQLite (a temp project's .synapse/task_board.db) and a real
 * PostgreSQL server (a fresh database per run; test/support/postgres-setup.ts). Without a server
 * the PostgreSQL half is skipped and says why; in CI it must run.
 */

const unavailable = postgresUnavailable();
const backends = [sqliteContract('board'), postgresContract('board', 'synapse_contract', ['board_tasks'], 'CASCADE')];

for (const backend of backends) {
  describe.skipIf(backend.skip !== '')(`task board contract on ${backend.name}${backend.skip ? ` (SKIPPED: ${backend.skip})` : ''}`, () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    let board: BoardStore;
    const open = () => openBoard(backend.dir(), { target: backend.target(), clock: clockFrom(() => now) });

    beforeAll(() => backend.setup());
    afterAll(() => backend.teardown());
    beforeEach(async () => {
      now = Date.parse('2026-01-01T00:00:00Z');
      await backend.reset();
      board = await open();
    });
    afterEach(async () => {
      await board.close();
    });

    it('names its backend and schema version, and counts rows', async () => {
      expect(board.backend).toBe(backend.name);
      expect(await board.schemaVersion()).toBeGreaterThanOrEqual(1);
      await board.create({ subject: 'a' });
      expect(await board.counts()).toEqual({ tasks: 1, task_deps: 0 });
    });

    it('creates tasks with every field and lists them by status, then priority, with filters', async () => {
      const low = await board.create({ subject: 'low', priority: 1 });
      const high = await board.create({
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
      expect(high).toMatchObject({
        status: 'pending',
        priority: 5,
        component: 'api',
        group_title: 'Group one',
        blocked: false,
        blocked_by: [],
        created_at: '2026-01-01T00:00:00.000Z',
        claimed_by: null,
      });
      await board.claim(low.id, 'bob');
      expect((await board.list()).map((t) => t.subject)).toEqual(['low', 'high']);
      expect((await board.list({ status: ['pending'] })).map((t) => t.subject)).toEqual(['high']);
      expect((await board.list({ assignee: ['bob'] })).map((t) => t.subject)).toEqual(['low']);
      expect(await board.list({ component: 'api', milestone: 'v1', group_id: 'g1', plan_id: 'p1' })).toHaveLength(1);
      expect(await board.get(high.id)).toEqual(high);
    });

    it('refuses bad input with usage errors', async () => {
      await expect(board.create({ subject: '  ' })).rejects.toMatchObject({ code: 'usage' });
      await expect(board.create({ subject: 'x', priority: 6 })).rejects.toMatchObject({ code: 'usage' });
      await expect(board.create({ subject: 'x', id: 'not-a-uuid' })).rejects.toMatchObject({ code: 'invalid_input' });
      const y = await board.create({ subject: 'y' });
      await expect(board.fail(y.id, '')).rejects.toMatchObject({ code: 'usage' });
      await expect(board.create({ subject: 'again', id: y.id })).rejects.toMatchObject({ code: 'conflict' });
    });

    it('resolves unique prefixes and lists the candidates of an ambiguous one', async () => {
      const a = await board.create({ id: 'aaaa1111-0000-4000-8000-000000000001', subject: 'first' });
      await board.create({ id: 'aaaa2222-0000-4000-8000-000000000002', subject: 'second' });
      expect((await board.get('aaaa1')).id).toBe(a.id);
      expect(await board.resolveId('AAAA1111')).toBe(a.id);
      const amb = board.get('aaaa');
      await expect(amb).rejects.toMatchObject({ code: 'ambiguous_task' });
      await expect(board.get('aaaa')).rejects.toThrow(/aaaa1111-0000-4000-8000-000000000001[\s\S]*second/);
      await expect(board.get('bbbb')).rejects.toMatchObject({ code: 'task_not_found' });
      await expect(board.get('zz%')).rejects.toMatchObject({ code: 'task_not_found' });
      await expect(board.claim('aaaa', 'x')).rejects.toMatchObject({ code: 'ambiguous_task' });
    });

    it('makes a task claimable only when every blocker is completed, and reports the unblocked', async () => {
      const a = await board.create({ subject: 'a' });
      const b = await board.create({ subject: 'b' });
      const c = await board.create({ subject: 'c', blocked_by: [a.id, b.id.slice(0, 8)] });
      expect(c).toMatchObject({ blocked: true });
      expect([...c.blocked_by].sort()).toEqual([a.id, b.id].sort());
      await expect(board.claim(c.id, 'x')).rejects.toMatchObject({ code: 'blocked' });
      await expect(board.claim(c.id, 'x')).rejects.toThrow(new RegExp(`${a.id.slice(0, 8)}[\\s\\S]*"b"|"b"[\\s\\S]*${a.id.slice(0, 8)}`));
      expect((await board.blockers(c.id)).map((t) => t.subject).sort()).toEqual(['a', 'b']);
      expect((await board.dependants(a.id)).map((t) => t.id)).toEqual([c.id]);
      expect((await board.complete(a.id)).unblocked).toEqual([]);
      expect((await board.get(c.id)).blocked).toBe(true);
      await expect(board.complete(c.id)).rejects.toMatchObject({ code: 'blocked' });
      const done = await board.complete(b.id);
      expect(done.unblocked.map((t) => t.id)).toEqual([c.id]);
      const claimed = await board.claim(c.id, 'x');
      expect(claimed).toMatchObject({ status: 'in_progress', claimed_by: 'x', assignee: 'x', blocked: false });
      expect(claimed).toEqual(await board.get(c.id));
    });

    it('keeps dependants blocked by a failed task until it is reopened and completed', async () => {
      const a = await board.create({ subject: 'a' });
      const b = await board.create({ subject: 'b', blocked_by: [a.id] });
      await board.fail(a.id, 'broke');
      await expect(board.claim(b.id, 'x')).rejects.toThrow(/failed/);
      await board.reopen(a.id);
      await board.complete(a.id);
      expect((await board.claim(b.id, 'x')).claimed_by).toBe('x');
    });

    it('says who holds a claim and refuses finished tasks', async () => {
      const t = await board.create({ subject: 't' });
      await board.claim(t.id, 'alice');
      expect((await board.claim(t.id, 'alice')).claimed_by).toBe('alice');
      await expect(board.claim(t.id, 'bob')).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('claimed by alice') });
      await board.complete(t.id);
      await expect(board.claim(t.id, 'bob')).rejects.toThrow(/already completed/);
      await expect(board.complete(t.id)).rejects.toMatchObject({ code: 'conflict' });
      await expect(board.fail(t.id, 'late')).rejects.toMatchObject({ code: 'conflict' });
      expect(await board.reopen(t.id)).toMatchObject({ status: 'pending', claimed_by: null, completed_at: null });
      await expect(board.reopen(t.id)).rejects.toMatchObject({ code: 'conflict' });
      expect(await board.assign(t.id, 'carol')).toMatchObject({ assignee: 'carol' });
    });

    it('refuses dependency cycles in a batch and self-dependencies, keeping nothing of the batch', async () => {
      const x = 'aaaaaaaa-0000-4000-8000-00000000000a';
      const y = 'bbbbbbbb-0000-4000-8000-00000000000b';
      const z = 'cccccccc-0000-4000-8000-00000000000c';
      await expect(
        board.createMany([
          { id: x, subject: 'x', blocked_by: [z] },
          { id: y, subject: 'y', blocked_by: [x] },
          { id: z, subject: 'z', blocked_by: [y] },
        ]),
      ).rejects.toMatchObject({ code: 'usage', message: expect.stringMatching(/cycle/) });
      expect(await board.list()).toHaveLength(0);
      await expect(board.create({ id: x, subject: 'x', blocked_by: [x] })).rejects.toThrow(/cycle/);
      const plan = await board.createMany([
        { id: x, subject: 'x' },
        { id: y, subject: 'y', blocked_by: [x] },
        { id: z, subject: 'z', blocked_by: [x, y] },
      ]);
      expect(plan.map((t) => t.blocked)).toEqual([false, true, true]);
      expect(await board.counts()).toEqual({ tasks: 3, task_deps: 3 });
    });

    it('purges old finished tasks but keeps those an unfinished task still waits for', async () => {
      const old = await board.create({ subject: 'old' });
      const blocker = await board.create({ subject: 'blocker' });
      const waiting = await board.create({ subject: 'waiting', blocked_by: [blocker.id] });
      await board.complete(old.id);
      await board.fail(blocker.id, 'nope');
      now += 8 * 86_400_000;
      const recent = await board.create({ subject: 'recent' });
      await board.complete(recent.id);
      const dry = await board.purge({ statuses: ['completed', 'failed'], olderThanMs: 7 * 86_400_000, dryRun: true });
      expect(dry.purged.map((t) => t.subject)).toEqual(['old']);
      expect(dry.skipped.map((s) => [s.task.subject, s.waiting])).toEqual([['blocker', [waiting.id]]]);
      expect(await board.list()).toHaveLength(4);
      const real = await board.purge({ statuses: ['completed', 'failed'], olderThanMs: 7 * 86_400_000 });
      expect(real.dry_run).toBe(false);
      expect((await board.list()).map((t) => t.subject).sort()).toEqual(['blocker', 'recent', 'waiting']);
    });

    it('drives a linked task from its A2A task: claim on start, complete or fail at the end', async () => {
      const t = await board.create({ subject: 'review', assignee: 'codex', a2a_task_id: 'a2a-1', created_by: 'claude' });
      expect(await board.findByA2aTask('a2a-1')).toEqual(t);
      expect((await board.claimByA2aTask('a2a-1', 'codex'))?.status).toBe('in_progress');
      expect((await board.completeByA2aTask('a2a-1'))?.task.status).toBe('completed');
      expect(await board.completeByA2aTask('missing')).toBeNull();
      expect(await board.claimByA2aTask('missing', 'x')).toBeNull();
      await board.create({ subject: 'other', assignee: 'x', a2a_task_id: 'a2a-2' });
      expect(await board.failByA2aTask('a2a-2', 'canceled by user')).toMatchObject({ status: 'failed', fail_reason: 'canceled by user' });
      expect((await board.claimByA2aTask('a2a-2', 'x'))?.status).toBe('failed');
      await expect(board.create({ subject: 'dup', assignee: 'x', a2a_task_id: 'a2a-1' })).rejects.toMatchObject({ code: 'conflict' });
      const later = await board.create({ subject: 'link later' });
      await board.linkA2aTask(later.id.slice(0, 8), 'a2a-3');
      expect((await board.findByA2aTask('a2a-3'))?.id).toBe(later.id);
      await expect(board.linkA2aTask(later.id, 'a2a-1')).rejects.toMatchObject({ code: 'conflict' });
      // A blocked linked task stays pending when its A2A task starts: the A2A work runs regardless.
      const first = await board.create({ subject: 'first' });
      await board.create({ subject: 'then', blocked_by: [first.id], a2a_task_id: 'a2a-4' });
      expect(await board.claimByA2aTask('a2a-4', 'x')).toMatchObject({ status: 'pending', blocked: true });
    });

    it('changes its change token when another connection writes', async () => {
      const before = await board.changeToken();
      const other = await open();
      try {
        await other.create({ subject: 'from elsewhere' });
      } finally {
        await other.close();
      }
      expect(await board.changeToken()).not.toBe(before);
    });

    it('gives a task to exactly one of many concurrent claimers (separate connections)', async () => {
      const tasks = await board.createMany(Array.from({ length: 20 }, (_, i) => ({ subject: `t${i}` })));
      const boards = await Promise.all(Array.from({ length: 4 }, () => open()));
      try {
        const outcomes = await Promise.all(
          boards.flatMap((b, i) =>
            tasks.map((t) =>
              b.claim(t.id, `agent-${i}`).then(
                (won) => ({ id: t.id, who: won.claimed_by }),
                (err: { code: string }) => ({ id: t.id, who: null, code: err.code }),
              ),
            ),
          ),
        );
        const wins = outcomes.filter((o) => o.who !== null);
        expect(wins).toHaveLength(tasks.length);
        expect(new Set(wins.map((w) => w.id)).size).toBe(tasks.length);
        expect(outcomes.filter((o) => o.who === null).every((o) => (o as { code?: string }).code === 'conflict')).toBe(true);
        const stored = new Map((await board.list()).map((t) => [t.id, t.claimed_by]));
        for (const w of wins) expect(stored.get(w.id)).toBe(w.who);
      } finally {
        await Promise.all(boards.map((b) => b.close()));
      }
    });
  });
}

describe.skipIf(unavailable !== '')(`a PostgreSQL store that cannot be reached${unavailable ? ` (SKIPPED: ${unavailable})` : ''}`, () => {
  it('fails with store_unavailable after retrying, names the server without its password, and writes nothing', async () => {
    // A port nothing listens on: the connection is refused every time.
    const srv = await import('node:net').then(
      (net) =>
        new Promise<number>((resolve) => {
          const s = net.createServer().listen(0, '127.0.0.1', () => {
            const port = (s.address() as { port: number }).port;
            s.close(() => resolve(port));
          });
        }),
    );
    const url = `postgres://synapse:sekret-pass-123@127.0.0.1:${srv}/nowhere`;
    const err = await openBoard(os.tmpdir(), { target: { backend: 'postgres', url, shown: '' }, retryForMs: 400 }).then(
      () => null,
      (e: unknown) => e as { code: string; message: string; details: Record<string, unknown> },
    );
    expect(err).toMatchObject({ code: 'store_unavailable' });
    expect(err!.message).toMatch(/cannot reach the PostgreSQL store at postgres:\/\/synapse:\*\*\*@127\.0\.0\.1:\d+\/nowhere/);
    expect(err!.message).toMatch(/tried \d+ times/);
    expect(err!.message).toMatch(/nothing was written/);
    expect(JSON.stringify(err!.details)).not.toContain('sekret-pass-123');
    expect(err!.message).not.toContain('sekret-pass-123');
    expect((err!.details.attempts as number) > 1).toBe(true);
  });
});
