import type { Clock } from '../../src/clock.js';

/** A clock that moves only when the test advances it; its timers fire as it passes their time. */
export function manualClock() {
  let now = 1_000_000;
  let timers: Array<{ fn: () => void; at: number; id: object }> = [];
  const clock: Clock = {
    now: () => now,
    setTimeout: (fn, ms) => {
      const id = { unref() {} };
      timers.push({ fn, at: now + ms, id });
      return id as unknown as NodeJS.Timeout;
    },
    clearTimeout: (t) => void (timers = timers.filter((x) => x.id !== (t as unknown))),
  };
  return {
    clock,
    pending: () => timers.length,
    advance: (ms: number) => {
      now += ms;
      const due = timers.filter((x) => x.at <= now);
      timers = timers.filter((x) => x.at > now);
      for (const x of due) x.fn();
    },
  };
}
