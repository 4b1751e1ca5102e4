/**
 * True when a process with this pid exists. EPERM means it exists but belongs to someone
 * else, which still counts as alive: a lock must not be stolen from a live owner.
 */
export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
