/** Time, passed in so status and delivery logic can run on fake timers in tests. */
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
