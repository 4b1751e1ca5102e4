import { clockFrom } from '../../../src/clock.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FILE_SAFETY_MIGRATIONS,
  FileSafetyStore,
  changesForTask,
  hasActiveLocks,
  locksHeldBy,
  normalizeFilePath,
  validateWrite,
} from '../../../src/store/file-safety.js';
import { openDatabase } from '../../../src/store/sqlite.js';

let root: string;
let now: number;
const dead = new Set<number>();
let store: FileSafetyStore;
const env = {};

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fs-unit-')));
  now = Date.parse('2026-01-01T00:00:00Z');
  dead.clear();
  store = FileSafetyStore.forProject(root, env, { clock: clockFrom(() => now), isAlive: (pid) => !dead.has(pid) });
});

afterEach(() => {
  store.close();
  fs.rmSync(root, { recursive: true, force: true });
});

function errorOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error('expected an error');
}

describe('path normalisation', () => {
  it('gives relative, absolute and dotted spellings one canonical path', () => {
    fs.writeFileSync(path.join(root, 'a.ts'), '');
    const canonical = path.join(root, 'a.ts');
    expect(normalizeFilePath('./a.ts', root)).toBe(canonical);
    expect(normalizeFilePath(canonical, root)).toBe(canonical);
    expect(normalizeFilePath('sub/../a.ts', root)).toBe(canonical);
  });

  it('resolves symlinks, and the nearest existing parent of a file not created yet', () => {
    fs.mkdirSync(path.join(root, 'real'));
    fs.symlinkSync(path.join(root, 'real'), path.join(root, 'link'));
    fs.writeFileSync(path.join(root, 'real', 'x.ts'), '');
    expect(normalizeFilePath('link/x.ts', root)).toBe(path.join(root, 'real', 'x.ts'));
    expect(normalizeFilePath('link/new/deeper/y.ts', root)).toBe(path.join(root, 'real', 'new', 'deeper', 'y.ts'));
  });
});

describe('locks', () => {
  it('has one holder per file and tells others who holds it', () => {
    const first = store.lock({ path: './a.ts', agent: 'alice', pid: 100, intent: 'refactor', ttlMs: 60_000 });
    expect(first.renewed).toBe(false);
    expect(first.lock.path).toBe(path.join(root, 'a.ts'));
    const held = errorOf(() => store.lock({ path: path.join(root, 'a.ts'), agent: 'bob', pid: 200, ttlMs: 60_000 }));
    expect(held.code).toBe('lock_held');
    expect(held.message).toContain('alice');
    expect(held.message).toContain('refactor');
    expect(store.check('a.ts', 'bob')).toMatchObject({ allowed: false, holder: { agent_id: 'alice' } });
    expect(store.check('a.ts', 'alice').allowed).toBe(true);
    expect(store.lock({ path: 'a.ts', agent: 'alice', pid: 100, ttlMs: 120_000 }).renewed).toBe(true);
  });

  it('expires at its TTL', () => {
    store.lock({ path: 'a.ts', agent: 'alice', pid: 100, ttlMs: 60_000 });
    now += 59_999;
    expect(store.check('a.ts', 'bob').allowed).toBe(false);
    now += 1;
    expect(store.check('a.ts', 'bob').allowed).toBe(true);
    expect(store.locks()).toEqual([]);
    expect(store.lock({ path: 'a.ts', agent: 'bob', pid: 200, ttlMs: 60_000 }).lock.agent_id).toBe('bob');
  });

  it('is reaped as soon as its owner pid is dead', () => {
    store.lock({ path: 'a.ts', agent: 'alice', pid: 100, ttlMs: 3_600_000 });
    dead.add(100);
    expect(store.status()).toMatchObject({ active_locks: 0, stale_locks: 1 });
    const taken = store.lock({ path: 'a.ts', agent: 'bob', pid: 200, ttlMs: 60_000 });
    expect(taken.reaped?.agent_id).toBe('alice');
    expect(taken.lock.agent_id).toBe('bob');
  });

  it('lets only the owner unlock a live lock', () => {
    store.lock({ path: 'a.ts', agent: 'alice', pid: null, ttlMs: 60_000 });
    const refused = errorOf(() => store.unlock('a.ts', 'bob'));
    expect(refused.code).toBe('lock_held');
    expect(refused.message).toContain('only the owner');
    expect(store.unlock('a.ts', 'alice').released).toBe(true);
    expect(store.unlock('a.ts', 'alice').released).toBe(false);
  });

  it('waits for a release with --wait semantics and gives up at the timeout', async () => {
    const real = FileSafetyStore.forProject(root, env);
    try {
      real.lock({ path: 'w.ts', agent: 'alice', pid: null, ttlMs: 60_000 });
      let waits = 0;
      const waiting = real.lockWait(
        { path: 'w.ts', agent: 'bob', pid: null, ttlMs: 60_000 },
        {
          timeoutMs: 5_000,
          intervalMs: 10,
          onWait: () => {
            if (++waits === 2) real.unlock('w.ts', 'alice');
          },
        },
      );
      expect((await waiting).lock.agent_id).toBe('bob');
      await expect(real.lockWait({ path: 'w.ts', agent: 'carol', pid: null, ttlMs: 1000 }, { timeoutMs: 50, intervalMs: 10 })).rejects.toMatchObject({
        code: 'lock_held',
        message: expect.stringContaining('gave up'),
      });
    } finally {
      real.close();
    }
  });

  it('lists locks per agent and answers hasActiveLocks without creating a database', () => {
    const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'fs-fresh-'));
    try {
      expect(hasActiveLocks(fresh, 'alice', {})).toBe(false);
      expect(fs.existsSync(path.join(fresh, '.synapse'))).toBe(false);
      const s = FileSafetyStore.forProject(fresh, {});
      s.lock({ path: 'a.ts', agent: 'alice', pid: process.pid, ttlMs: 60_000 });
      s.close();
      expect(hasActiveLocks(fresh, 'alice', {})).toBe(true);
      expect(locksHeldBy(fresh, 'alice', {}).map((l) => path.basename(l.path))).toEqual(['a.ts']);
      expect(hasActiveLocks(fresh, 'bob', {})).toBe(false);
      expect(hasActiveLocks(fresh, 'alice', { SYNAPSE_FILE_SAFETY_ENABLED: 'false' })).toBe(false);
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true });
    }
  });
});

describe('change log', () => {
  it('records changes, per file, per task and recent-first, and cleans up old ones', () => {
    store.record({ path: 'a.ts', agent: 'alice', type: 'create', taskId: 'T1' });
    now += 86_400_000 * 3;
    store.record({ path: './a.ts', agent: 'alice', type: 'modify', intent: 'fix', taskId: 'T1' });
    store.record({ path: 'b.ts', agent: 'bob', type: 'delete' });
    expect(store.history('a.ts').map((c) => c.change_type)).toEqual(['modify', 'create']);
    expect(store.recent(2).map((c) => path.basename(c.path))).toEqual(['b.ts', 'a.ts']);
    expect(changesForTask(root, 'T1', env).map((c) => c.change_type)).toEqual(['create', 'modify']);
    expect(errorOf(() => store.record({ path: 'a.ts', agent: 'x', type: 'rename' as never })).code).toBe('usage');
    expect(store.cleanup(2)).toEqual({ changes_deleted: 1, locks_reaped: 0 });
    expect(store.history('a.ts')).toHaveLength(1);
  });
});

describe('fail closed', () => {
  it('denies writes, with the reason, when the database cannot be read', () => {
    const file = path.join(root, '.synapse', 'file_safety.db');
    store.close();
    fs.writeFileSync(file, 'garbage, not a database'.repeat(200));
    const verdict = validateWrite(root, 'a.ts', 'alice', env);
    expect(verdict.allowed).toBe(false);
    expect(verdict.reason).toContain(file);
    expect(() => locksHeldBy(root, 'alice', env)).toThrow(/file_safety\.db/);
  });

  it('allows writes when nothing was ever locked (no database yet)', () => {
    const fresh = fs.mkdtempSync(path.join(root, 'fresh-'));
    expect(validateWrite(fresh, 'a.ts', 'alice', env).allowed).toBe(true);
  });
});

describe('file-safety schema', () => {
  it('upgrades a v1 file, keeping its locks', () => {
    const file = path.join(root, 'v1.db');
    const v1 = openDatabase(file, FILE_SAFETY_MIGRATIONS.slice(0, 1));
    v1.prepare(`INSERT INTO locks VALUES (?, 'alice', NULL, 'old', '2026-01-01T00:00:00.000Z', '2099-01-01T00:00:00.000Z')`).run(path.join(root, 'a.ts'));
    v1.close();
    const s = new FileSafetyStore(file, { baseDir: root });
    expect(s.schemaVersion()).toBe(3);
    // A lock from before tree locks is a file lock.
    expect(s.locks().map((l) => [l.intent, l.kind])).toEqual([['old', 'file']]);
    s.close();
  });
});
