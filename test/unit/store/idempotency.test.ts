import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clockFrom } from '../../../src/clock.js';
import { AGENT_DB_MIGRATIONS } from '../../../src/store/agent-db-migrations.js';
import { IDEMPOTENCY_WINDOW_MS, IdempotencyKeys, messageFingerprint } from '../../../src/store/idempotency.js';
import { openDatabase, type Db } from '../../../src/store/sqlite.js';

let dir: string;
let db: Db;
let now: number;
let keys: IdempotencyKeys;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idempotency-unit-'));
  db = openDatabase(path.join(dir, 'agent.db'), AGENT_DB_MIGRATIONS);
  now = Date.parse('2026-02-01T00:00:00Z');
  keys = new IdempotencyKeys(
    db,
    clockFrom(() => now),
  );
});

afterEach(() => {
  if (db.open) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const text = (t: string) => ({ role: 'user' as const, parts: [{ type: 'text' as const, text: t }] });

describe('idempotency keys (agent database migration 4)', () => {
  it('names its task for 24 h, then no more; the sweep deletes only keys past the window', () => {
    keys.remember('k1', 'task-1', messageFingerprint(text('a')));
    now += 1000;
    keys.remember('k2', 'task-2', messageFingerprint(text('b')));
    expect(keys.find('k1')).toMatchObject({ task_id: 'task-1' });
    now += IDEMPOTENCY_WINDOW_MS - 1000;
    expect(keys.find('k1')).toBeNull();
    expect(keys.find('k2')).toMatchObject({ task_id: 'task-2' });
    expect(keys.sweep()).toBe(1);
    expect((db.prepare('SELECT key FROM idempotency_keys').all() as { key: string }[]).map((r) => r.key)).toEqual(['k2']);
  });

  it('a key past its window may name a new task; forget drops a key', () => {
    keys.remember('k', 'old', 'f');
    now += IDEMPOTENCY_WINDOW_MS;
    keys.remember('k', 'new', 'f');
    expect(keys.find('k')?.task_id).toBe('new');
    keys.forget('k');
    expect(keys.find('k')).toBeNull();
  });

  it('the fingerprint tells a retry (same role and parts, in order) from another message', () => {
    expect(messageFingerprint(text('a'))).toBe(messageFingerprint(text('a')));
    expect(messageFingerprint(text('a'))).not.toBe(messageFingerprint(text('b')));
    expect(messageFingerprint({ role: 'agent', parts: text('a').parts })).not.toBe(messageFingerprint(text('a')));
  });
});
