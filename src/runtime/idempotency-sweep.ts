import type { IdempotencyKeys } from '../store/idempotency.js';

const HOUR_MS = 3_600_000;
/** The first sweep waits until the agent has started: nothing that can wait runs before the HTTP face answers. */
const FIRST_AFTER_MS = 5_000;

/**
 * Deletes idempotency keys older than 24 h soon after start and then hourly (a key is only
 * looked up within its 24 h anyway; this keeps the table small). Returns the function that stops it.
 */
export function startIdempotencySweep(keys: IdempotencyKeys, log: (line: string) => void): () => void {
  const run = (): void => {
    try {
      const n = keys.sweep();
      if (n > 0) log(`idempotency keys: ${n} older than 24 h deleted`);
    } catch (err) {
      // The database may be busy for a moment (or closing): the next run tries again.
      log(`idempotency keys: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const first = setTimeout(run, FIRST_AFTER_MS);
  first.unref();
  const hourly = setInterval(run, HOUR_MS);
  hourly.unref();
  return () => {
    clearTimeout(first);
    clearInterval(hourly);
  };
}
