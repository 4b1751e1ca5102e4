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

const DAY_MS = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the times with a four-digit year. */
const FIRST_MS = -62_167_219_200_000;
const LAST_MS = 253_402_300_799_999;
const pad = (n: number, width: number) => String(n).padStart(width, '0');
const inRange = (ms: number) => ms >= FIRST_MS && ms <= LAST_MS;

/** A time's UTC calendar fields (a four-digit year), worked out without a Date. */
interface Civil {
  year: number;
  month: number; // 1-12
  day: number;
  weekday: number; // 0 = Sunday
  h: number;
  min: number;
  s: number;
  ms: number;
}

function civil(time: number): Civil {
  const t = Math.trunc(time) + 0; // a Date's time is an integer, cut toward zero; + 0 turns -0 into 0
  const days = Math.floor(t / DAY_MS);
  const inDay = t - days * DAY_MS;
  // The civil date of a day count (days since 1970-01-01), in 400-year eras of 146,097 days that
  // start on 1 March, so that a leap day is the last day of its year.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const m = Math.floor((5 * dayOfYear + 2) / 153); // 0 = March
  const month = m < 10 ? m + 3 : m - 9;
  return {
    year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0),
    month,
    day: dayOfYear - Math.floor((153 * m + 2) / 5) + 1,
    weekday: (((days + 4) % 7) + 7) % 7, // 1970-01-01 was a Thursday
    h: Math.floor(inDay / 3_600_000),
    min: Math.floor(inDay / 60_000) % 60,
    s: Math.floor(inDay / 1000) % 60,
    ms: inDay % 1000,
  };
}

/**
 * Milliseconds since the epoch as an ISO-8601 string (what every stored time looks like), as
 * `Date#toISOString` writes it. Worked out here, not by a Date: V8 sets up ICU's time zones on the
 * first Date turned into text (it reads /etc/localtime), ~1 MiB of RSS an agent then keeps
 * though it only ever writes UTC (guides/agent-runtime.md, "Memory"). Other years, NaN and the
 * infinities go to `toISOString` (which throws for the last three, as before).
 */
export function iso(ms: number): string {
  if (!inRange(ms)) return new Date(ms).toISOString();
  const c = civil(ms);
  return `${pad(c.year, 4)}-${pad(c.month, 2)}-${pad(c.day, 2)}T${pad(c.h, 2)}:${pad(c.min, 2)}:${pad(c.s, 2)}.${pad(c.ms, 3)}Z`;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * An HTTP `Date` header's value (IMF-fixdate, RFC 9110 §5.6.7), as `Date#toUTCString` writes it,
 * for the same reason as `iso`: node's HTTP server stamps every response by a Date made into text.
 */
export function httpDate(ms: number): string {
  if (!inRange(ms)) return new Date(ms).toUTCString();
  const c = civil(ms);
  return `${WEEKDAYS[c.weekday]}, ${pad(c.day, 2)} ${MONTHS[c.month - 1]} ${pad(c.year, 4)} ${pad(c.h, 2)}:${pad(c.min, 2)}:${pad(c.s, 2)} GMT`;
}
