import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clockFrom } from '../../../src/clock.js';
import { openFileSafety, type FileSafety } from '../../../src/store/file-safety-store.js';
import { postgresContract, sqliteContract } from '../../support/pg-db.js';

/** The file-safety contract (issue 22): locks and change records, the same cases on SQLite and PostgreSQL. */

for (const backend of [sqliteContract('file-safety'), postgresContract('file-safety', 'synapse_fs', ['file_locks', 'file_changes'], 'RESTART IDENTITY')]) {
  describe.skipIf(backend.skip !== '')(`file-safety contract on ${backend.name}${backend.skip ? ` (SKIPPED: ${backend.skip})` : ''}`, () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    let dir = '';
    let alive = new Set<number>();
    let store: FileSafety;
    const opened: FileSafety[] = [];
    const open = async (host?: string) => {
      const s = await openFileSafety(dir, { env: {}, clock: clockFrom(() => now), target: backend.target(), isAlive: (pid) => alive.has(pid), host });
      opened.push(s);
      return s;
    };
    const file = (rel: string) => path.join(fs.realpathSync(dir), rel);

    beforeAll(() => backend.setup());
    afterAll(() => backend.teardown());
    beforeEach(async () => {
      now = Date.parse('2026-01-01T00:00:00Z');
      alive = new Set([1001, 1002]);
      dir = fs.mkdtempSync(path.join(os.tmpdir(), `fs-contract-${backend.name}-`));
      await backend.reset();
      store = await open('host-a');
    });
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close()));
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('locks, renews, refuses another agent, and lets only the owner unlock', async () => {
      expect(store.backend).toBe(backend.name);
      const first = await store.lock({ path: 'src/app.ts', agent: 'alice', pid: 1001, intent: 'refactor', ttlMs: 60_000 });
      expect(first).toMatchObject({ renewed: false, reaped: null });
      expect(first.lock).toMatchObject({
        path: file('src/app.ts'),
        kind: 'file',
        agent_id: 'alice',
        pid: 1001,
        intent: 'refactor',
        expires_at: '2026-01-01T00:01:00.000Z',
      });
      now += 10_000;
      const again = await store.lock({ path: './src/../src/app.ts', agent: 'alice', pid: 1001, ttlMs: 60_000 });
      expect(again).toMatchObject({ renewed: true, lock: { intent: 'refactor', expires_at: '2026-01-01T00:01:10.000Z' } });
      await expect(store.lock({ path: 'src/app.ts', agent: 'bob', pid: 1002, ttlMs: 60_000 })).rejects.toMatchObject({
        code: 'lock_held',
        message: expect.stringContaining('locked by alice, pid 1001'),
      });
      expect(await store.check('src/app.ts', 'bob')).toMatchObject({ allowed: false, holder: { agent_id: 'alice' } });
      expect(await store.check('src/app.ts', 'alice')).toMatchObject({ allowed: true });
      await expect(store.unlock('src/app.ts', 'bob')).rejects.toMatchObject({ code: 'lock_held' });
      expect((await store.locks()).map((l) => l.agent_id)).toEqual(['alice']);
      expect(await store.locks({ agent: 'bob' })).toEqual([]);
      expect(await store.unlock('src/app.ts', 'alice')).toMatchObject({ path: file('src/app.ts'), released: true });
      expect(await store.unlock('src/app.ts', 'alice')).toMatchObject({ released: false, lock: null });
      expect(await store.locks()).toEqual([]);
    });

    it('tree locks cover the files under them both ways; globs and paths outside the project are refused', async () => {
      await store.lock({ path: 'src/auth/**', agent: 'alice', pid: null, ttlMs: 60_000 });
      await expect(store.lock({ path: 'src/auth/login.ts', agent: 'bob', pid: null, ttlMs: 60_000 })).rejects.toMatchObject({ code: 'lock_held' });
      expect(await store.check('src/auth/deep/x.ts', 'bob')).toMatchObject({ allowed: false });
      expect(await store.check('src/other.ts', 'bob')).toMatchObject({ allowed: true });
      await store.lock({ path: 'lib/a.ts', agent: 'bob', pid: null, ttlMs: 60_000 });
      await expect(store.lock({ path: 'lib/**', agent: 'alice', pid: null, ttlMs: 60_000 })).rejects.toMatchObject({ code: 'lock_held' });
      expect(await store.lock({ path: 'src/auth/login.ts', agent: 'alice', pid: null, ttlMs: 60_000 })).toMatchObject({ renewed: false });
      await expect(store.lock({ path: 'src/*.ts', agent: 'alice', pid: null, ttlMs: 1 })).rejects.toMatchObject({ code: 'invalid_input' });
      await expect(store.lock({ path: '../outside.ts', agent: 'alice', pid: null, ttlMs: 1 })).rejects.toMatchObject({ code: 'invalid_input' });
      await expect(store.lock({ path: 'a.ts', agent: ' ', pid: null, ttlMs: 1 })).rejects.toMatchObject({ code: 'usage' });
      await expect(store.lock({ path: 'a.ts', agent: 'a', pid: null, ttlMs: 0 })).rejects.toMatchObject({ code: 'usage' });
    });

    it('an expired lock or one whose owner pid died on this host is stale: ignored, then reaped', async () => {
      await store.lock({ path: 'a.ts', agent: 'alice', pid: 1001, ttlMs: 60_000 });
      await store.lock({ path: 'b.ts', agent: 'alice', pid: null, ttlMs: 5_000 });
      alive.delete(1001);
      now += 6_000;
      expect(await store.locks()).toEqual([]);
      expect(await store.check('a.ts', 'bob')).toMatchObject({ allowed: true });
      const taken = await store.lock({ path: 'a.ts', agent: 'bob', pid: 1002, ttlMs: 60_000 });
      expect(taken).toMatchObject({ renewed: false, reaped: { agent_id: 'alice', path: file('a.ts') }, lock: { agent_id: 'bob' } });
      const st = await store.status();
      expect(st).toMatchObject({ active_locks: 1, agents: { bob: 1 } });
      expect(await store.reap()).toBe(st.stale_locks);
      expect((await store.allLocks()).map((l) => [l.agent_id, l.live])).toEqual([['bob', true]]);
    });

    it('N concurrent acquirers of one path: exactly one wins', async () => {
      const stores = await Promise.all(Array.from({ length: 8 }, () => open('host-a')));
      const results = await Promise.allSettled(stores.map((s, i) => s.lock({ path: 'race.ts', agent: `agent-${i}`, pid: null, ttlMs: 60_000 })));
      const won = results.filter((r) => r.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'lock_held' });
      const winner = (won[0] as PromiseFulfilledResult<{ lock: { agent_id: string } }>).value.lock.agent_id;
      expect((await store.locks()).map((l) => l.agent_id)).toEqual([winner]);
    });

    it('records changes and reads them by file, recency and task; cleanup drops old ones', async () => {
      const a = await store.record({ path: 'src/a.ts', agent: 'alice', type: 'create', intent: 'new', taskId: 't1' });
      expect(a).toMatchObject({
        path: file('src/a.ts'),
        agent_id: 'alice',
        change_type: 'create',
        intent: 'new',
        task_id: 't1',
        recorded_at: '2026-01-01T00:00:00.000Z',
      });
      now += 1_000;
      const b = await store.record({ path: 'src/a.ts', agent: 'bob', type: 'modify' });
      now += 1_000;
      const c = await store.record({ path: 'src/b.ts', agent: 'bob', type: 'delete', taskId: 't1' });
      await expect(store.record({ path: 'x', agent: 'bob', type: 'rename' as never })).rejects.toMatchObject({ code: 'usage' });
      expect((await store.history('src/a.ts')).map((x) => x.id)).toEqual([b.id, a.id]);
      expect((await store.recent(2)).map((x) => x.id)).toEqual([c.id, b.id]);
      expect((await store.changesForTask('t1')).map((x) => x.id)).toEqual([a.id, c.id]);
      expect(await store.status()).toMatchObject({ changes_total: 3, changes_last_24h: 3 });
      now += 2 * 86_400_000;
      await store.record({ path: 'src/c.ts', agent: 'carol', type: 'create' });
      expect(await store.cleanup(1)).toEqual({ changes_deleted: 3, locks_reaped: 0 });
      expect((await store.recent()).map((x) => x.agent_id)).toEqual(['carol']);
      await expect(store.cleanup(-1)).rejects.toMatchObject({ code: 'usage' });
    });

    // SQLite is one machine's file: there is no other host to ask about.
    if (backend.name === 'postgres')
      it('across hosts: another host’s pid is not checked, its lock lives until its TTL', async () => {
        const other = await open('host-b');
        await other.lock({ path: 'shared.ts', agent: 'remote', pid: 4242, ttlMs: 30_000 });
        // 4242 is not alive here, but it runs on host-b: this host cannot tell, so the TTL decides.
        expect(await store.check('shared.ts', 'local')).toMatchObject({ allowed: false, holder: { agent_id: 'remote', host: 'host-b' } });
        await expect(store.lock({ path: 'shared.ts', agent: 'local', pid: 1001, ttlMs: 30_000 })).rejects.toMatchObject({ code: 'lock_held' });
        // On host-b itself the dead pid makes the lock stale.
        expect(await other.check('shared.ts', 'local')).toMatchObject({ allowed: true });
        now += 31_000;
        expect(await store.lock({ path: 'shared.ts', agent: 'local', pid: 1001, ttlMs: 30_000 })).toMatchObject({
          lock: { agent_id: 'local', host: 'host-a' },
        });
      });
  });
}
