/** True when a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A live agent rewrites its entry at least every HEARTBEAT_MS; one silent for much longer is
 * gone even when its pid was reused by some other process.
 */
export const HEARTBEAT_MS = 10_000;
export const STALE_AFTER_MS = 30 * HEARTBEAT_MS;

export function isEntryAlive(entry: { pid: number; heartbeat_at: string }, now = Date.now()): boolean {
  if (!isPidAlive(entry.pid)) return false;
  const beat = Date.parse(entry.heartbeat_at);
  return Number.isNaN(beat) || now - beat < STALE_AFTER_MS;
}
