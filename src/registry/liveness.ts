import { readProcStat } from './proc-stat.js';

/** kill(pid, 0): the process exists (EPERM: it exists but belongs to someone else). */
function signalZero(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * True when `pid` is a running process and, when `startTicks` is given, the very process that
 * recorded it. On Linux this reads `/proc/<pid>/stat`: a zombie (`Z`: killed, but its parent has
 * not reaped it, as under a container's PID 1 that does not reap, where kill(pid, 0) still
 * succeeds) is dead, and so is a pid whose start time differs from the recorded one (the pid now
 * belongs to another program). Where /proc cannot tell (other systems, a hidden pid):
 * kill(pid, 0).
 */
export function isPidAlive(pid: number, startTicks: number | null = null): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  const stat = readProcStat(pid);
  if (stat === null) return signalZero(pid);
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return startTicks === null || stat.startTicks === startTicks;
}

/** When this process started (clock ticks since boot), for its registry entry; null without /proc. */
export function ownStartTicks(): number | null {
  return readProcStat(process.pid)?.startTicks ?? null;
}

/**
 * A live agent rewrites its entry at least every HEARTBEAT_MS; one silent for much longer is
 * gone even when its pid was reused by some other process.
 */
export const HEARTBEAT_MS = 10_000;
export const STALE_AFTER_MS = 30 * HEARTBEAT_MS;

/**
 * An entry is live while its process is (same pid, same start time where recorded, not a
 * zombie) and its heartbeat is fresh. The original Synapse writes no heartbeat: its entries
 * live by their pid alone, as they do for the original itself.
 */
export function isEntryAlive(entry: { pid: number; pid_starttime: number | null; heartbeat_at: string | null }, now = Date.now()): boolean {
  if (!isPidAlive(entry.pid, entry.pid_starttime)) return false;
  if (entry.heartbeat_at === null) return true;
  const beat = Date.parse(entry.heartbeat_at);
  return Number.isNaN(beat) || now - beat < STALE_AFTER_MS;
}
