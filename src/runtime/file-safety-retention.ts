import type { Env } from '../config/paths.js';
import { purgeFileSafety } from '../store/file-safety-store.js';

const DAY_MS = 86_400_000;
/** The first purge waits until the agent has started: nothing that can wait runs before the HTTP face answers. */
const FIRST_AFTER_MS = 5_000;

/**
 * Purges the project's file-safety history older than `days` (and stale locks) soon after start
 * and then daily, as the original does. Returns the function that stops it.
 */
export function startFileSafetyRetention(projectDir: string, env: Env, days: number, log: (line: string) => void, firstAfterMs = FIRST_AFTER_MS): () => void {
  const run = async (): Promise<void> => {
    try {
      const r = await purgeFileSafety(projectDir, env, days);
      if (r && (r.changes_deleted || r.locks_reaped))
        log(`file-safety retention (${days} d): deleted ${r.changes_deleted} change record(s), removed ${r.locks_reaped} stale lock(s)`);
    } catch (err) {
      // Another agent may hold the database for a moment; tomorrow's run tries again.
      log(`file-safety retention: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const first = setTimeout(() => void run(), firstAfterMs);
  first.unref();
  const daily = setInterval(() => void run(), DAY_MS);
  daily.unref();
  return () => {
    clearTimeout(first);
    clearInterval(daily);
  };
}
