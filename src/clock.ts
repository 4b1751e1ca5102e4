/**
 * Time, passed in everywhere (runtime, store, dispatchers) so logic can run on a fake clock in
 * tests. One type for the whole code: the store only reads `now()`, the runtime also sets timers.
 */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): NodeJS.Timeout;
  clearTimeout(t: NodeJS.Timeout | undefined): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (t) => {
    if (t) clearTimeout(t);
  },
};

/** A clock that reads `now` from the caller (tests that move time by hand) and uses real timers. */
export function clockFrom(now: () => number): Clock {
  return { ...systemClock, now };
}

/** Milliseconds since the epoch as an ISO-8601 string (what every stored time looks like). */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
