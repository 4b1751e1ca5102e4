import { describe, expect, it } from 'vitest';
import { isEntryAlive, isPidAlive, STALE_AFTER_MS } from '../../../src/registry/liveness.js';
import { deadPid } from './fixtures.js';

describe('liveness: pid alive and heartbeat fresh', () => {
  const now = Date.parse('2025-01-01T12:00:00Z');
  const beat = (msAgo: number) => new Date(now - msAgo).toISOString();

  it('is alive with a live pid and a fresh heartbeat', () => {
    expect(isEntryAlive({ pid: process.pid, heartbeat_at: beat(1000) }, now)).toBe(true);
  });

  it('is dead with a live pid whose heartbeat is stale (a reused pid lends itself to nothing)', () => {
    expect(isPidAlive(process.pid)).toBe(true);
    expect(isEntryAlive({ pid: process.pid, heartbeat_at: beat(STALE_AFTER_MS) }, now)).toBe(false);
    expect(isEntryAlive({ pid: process.pid, heartbeat_at: beat(STALE_AFTER_MS - 1) }, now)).toBe(true);
  });

  it('is dead with a fresh heartbeat whose pid is gone', () => {
    const pid = deadPid();
    expect(isPidAlive(pid)).toBe(false);
    expect(isEntryAlive({ pid, heartbeat_at: beat(0) }, now)).toBe(false);
  });

  it('treats pids that cannot be a process as dead', () => {
    for (const pid of [0, -1, 1.5, Number.NaN]) expect(isPidAlive(pid)).toBe(false);
  });
});
