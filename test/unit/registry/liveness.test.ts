import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isEntryAlive, isPidAlive, ownStartTicks, STALE_AFTER_MS } from '../../../src/registry/liveness.js';
import { readProcStat } from '../../../src/registry/proc-stat.js';
import { deadPid } from './fixtures.js';

const linux = fs.existsSync('/proc/self/stat');

/**
 * A zombie: perl forks a child that exits at once and, until its stdin closes, never reaps it
 * (SIGCHLD left at its default), like a container's PID 1 without an init. `release` closes
 * stdin: perl reaps the zombie and exits.
 */
async function zombie(): Promise<{ pid: number; release: () => Promise<void> }> {
  const parent = spawn('perl', ['-e', '$| = 1; my $p = fork() // die; exit 0 unless $p; print "$p\\n"; <STDIN>; waitpid($p, 0);'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const closed = new Promise((r) => parent.once('close', r));
  const pid = await new Promise<number>((resolve, reject) => {
    parent.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    parent.once('error', reject);
  });
  for (let i = 0; i < 500 && readProcStat(pid)?.state !== 'Z'; i++) await new Promise((r) => setTimeout(r, 10));
  return {
    pid,
    release: async () => {
      parent.stdin.end();
      await closed;
    },
  };
}

describe('liveness: the process runs, is the one that registered, and its heartbeat is fresh', () => {
  const now = Date.parse('2025-01-01T12:00:00Z');
  const beat = (msAgo: number) => new Date(now - msAgo).toISOString();
  const self = (heartbeat_at: string | null, pid_starttime: number | null = null) => ({ pid: process.pid, pid_starttime, heartbeat_at });

  it('is alive with a live pid and a fresh heartbeat', () => {
    expect(isEntryAlive(self(beat(1000)), now)).toBe(true);
  });

  it('is dead with a live pid whose heartbeat is stale (a reused pid lends itself to nothing)', () => {
    expect(isPidAlive(process.pid)).toBe(true);
    expect(isEntryAlive(self(beat(STALE_AFTER_MS)), now)).toBe(false);
    expect(isEntryAlive(self(beat(STALE_AFTER_MS - 1)), now)).toBe(true);
  });

  it('is dead with a fresh heartbeat whose pid is gone', () => {
    const pid = deadPid();
    expect(isPidAlive(pid)).toBe(false);
    expect(isEntryAlive({ pid, pid_starttime: null, heartbeat_at: beat(0) }, now)).toBe(false);
  });

  it('treats pids that cannot be a process as dead', () => {
    for (const pid of [0, -1, 1.5, Number.NaN]) expect(isPidAlive(pid)).toBe(false);
  });

  it("lives by its pid alone without a heartbeat (the original Synapse's entries have none)", () => {
    expect(isEntryAlive(self(null), now)).toBe(true);
    expect(isEntryAlive({ pid: deadPid(), pid_starttime: null, heartbeat_at: null }, now)).toBe(false);
  });

  it.skipIf(!linux)('is dead when the pid now belongs to a process started at another time (a reused pid)', () => {
    const mine = ownStartTicks();
    expect(mine).toEqual(expect.any(Number));
    expect(isPidAlive(process.pid, mine)).toBe(true);
    expect(isPidAlive(process.pid, mine! + 1)).toBe(false);
    expect(isEntryAlive(self(beat(0), mine! - 1), now)).toBe(false);
    expect(isEntryAlive(self(beat(0), mine), now)).toBe(true);
  });

  it.skipIf(!linux)('is dead as a zombie that its parent never reaps, although kill(pid, 0) still succeeds', async () => {
    const z = await zombie();
    try {
      expect(readProcStat(z.pid)?.state).toBe('Z');
      expect(() => process.kill(z.pid, 0)).not.toThrow();
      expect(isPidAlive(z.pid)).toBe(false);
      expect(isEntryAlive({ pid: z.pid, pid_starttime: null, heartbeat_at: beat(0) }, now)).toBe(false);
    } finally {
      await z.release();
    }
    expect(readProcStat(z.pid)).toBeNull();
  });
});
