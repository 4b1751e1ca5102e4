/**
 * One running agent, as the registry holds it in memory: `<registry>/<agent_id>.json` read by
 * `checkRegistryEntry`, written through `entryFile`. The directory is shared with the original
 * Python Synapse, so both sides' entries parse, and the file keeps the original's conventions
 * (timestamps in epoch seconds); in memory every timestamp is an ISO string.
 */
import { iso } from '../clock.js';

export interface RegistryEntry {
  agent_id: string;
  agent_type: string;
  /** null when the agent has none (the original then writes no `name` at all). */
  name: string | null;
  role: string | null;
  port: number;
  pid: number;
  /**
   * When `pid` started, in clock ticks since boot (`/proc/<pid>/stat` field 22, Linux), so that a
   * pid reused by another program is not taken for the agent. null where unknown: other
   * systems, and the original's entries (it does not record it).
   */
  pid_starttime: number | null;
  working_dir: string;
  endpoint: string;
  /**
   * Ours: STARTING, READY, PROCESSING, WAITING, DONE, EXITED. The original's agents also show
   * WAITING_FOR_INPUT, RATE_LIMITED, SENDING_REPLY and SHUTTING_DOWN; any status is kept as written.
   */
  status: string;
  status_updated_at: string;
  current_task_preview: string | null;
  task_received_at: string | null;
  registered_at: string;
  /** Ours rewrite it every HEARTBEAT_MS; null for the original's entries, whose liveness rests on the pid. */
  heartbeat_at: string | null;
  /** Log file of a background agent (`synapse start`), null in the foreground. */
  log_file: string | null;
  headless: boolean;
  /** 'unknown' when the entry does not say (the original's). */
  synapse_version: string;
}

/** A time as either side writes it (epoch seconds, fractional, or ISO 8601) → ISO, or null when it is neither. */
function isoTime(v: unknown): string | null {
  const ms = typeof v === 'number' && Number.isFinite(v) ? v * 1000 : typeof v === 'string' ? Date.parse(v) : Number.NaN;
  return Number.isNaN(ms) ? null : iso(Math.round(ms));
}

const isString = (v: unknown) => typeof v === 'string';
const isTime = (v: unknown) => isoTime(v) !== null;
const orNull = (ok: (v: unknown) => boolean) => (v: unknown) => v === null || ok(v);

type Check = [field: string, ok: (v: unknown) => boolean, expected: string];

/**
 * What every entry holds, ours and the original's alike (its `register` always writes these);
 * the order is the order problems are named in.
 */
const REQUIRED: Check[] = [
  ['agent_id', (v) => typeof v === 'string' && /^synapse-[a-z0-9_-]+-\d+$/i.test(v), 'synapse-<type>-<port>'],
  ['agent_type', isString, 'a string'],
  ['port', Number.isInteger, 'an integer'],
  ['pid', Number.isInteger, 'an integer'],
  ['working_dir', isString, 'a string'],
  ['endpoint', isString, 'a string'],
  ['status', (v) => typeof v === 'string' && /^[A-Z][A-Z_]*$/.test(v), 'a status word (READY, PROCESSING …)'],
  ['registered_at', isTime, 'a time (epoch seconds or ISO 8601)'],
];

/** Fields that may be absent (the original leaves out what it has no value for), checked when present. */
const OPTIONAL: Check[] = [
  ['name', orNull(isString), 'a string or null'],
  ['role', orNull(isString), 'a string or null'],
  ['pid_starttime', orNull(Number.isInteger), 'an integer or null'],
  ['status_updated_at', isTime, 'a time'],
  ['current_task_preview', orNull(isString), 'a string or null'],
  ['task_received_at', orNull(isTime), 'a time or null'],
  ['heartbeat_at', orNull(isTime), 'a time or null'],
];

export type EntryCheck = { entry: RegistryEntry; problem?: undefined } | { entry?: undefined; problem: string };

function problems(e: Record<string, unknown>): string[] {
  const missing = REQUIRED.filter(([field, ok]) => !ok(e[field])).map(([field, , expected]) =>
    field in e ? `${field} is not ${expected}` : `${field} is missing`,
  );
  const wrong = OPTIONAL.filter(([field, ok]) => field in e && e[field] !== undefined && !ok(e[field])).map(
    ([field, , expected]) => `${field} is not ${expected}`,
  );
  return [...missing, ...wrong];
}

const stringOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * The one parser of the registry file, checked by hand: every CLI command reads these files,
 * and a schema library would cost more start-up time than the whole command (measured: ~240 ms).
 * Takes ours and the original's entries; says what is wrong with anything else. Fields it does
 * not know (the original's `uds_path`, `skill_set`, `transport` …) are kept as they are.
 */
export function checkRegistryEntry(raw: unknown): EntryCheck {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { problem: 'not a JSON object' };
  const e = raw as Record<string, unknown>;
  const bad = problems(e);
  if (bad.length > 0) {
    return { problem: `not a Synapse registry entry: ${bad.slice(0, 3).join(', ')}${bad.length > 3 ? ` (+${bad.length - 3} more)` : ''}` };
  }
  const registeredAt = isoTime(e.registered_at)!;
  const entry: RegistryEntry = {
    agent_id: e.agent_id as string,
    agent_type: e.agent_type as string,
    name: stringOrNull(e.name),
    role: stringOrNull(e.role),
    port: e.port as number,
    pid: e.pid as number,
    pid_starttime: typeof e.pid_starttime === 'number' ? e.pid_starttime : null,
    working_dir: e.working_dir as string,
    endpoint: e.endpoint as string,
    status: e.status as string,
    status_updated_at: isoTime(e.status_updated_at) ?? registeredAt,
    current_task_preview: stringOrNull(e.current_task_preview),
    task_received_at: isoTime(e.task_received_at),
    registered_at: registeredAt,
    heartbeat_at: isoTime(e.heartbeat_at),
    log_file: stringOrNull(e.log_file),
    headless: e.headless === true,
    synapse_version: typeof e.synapse_version === 'string' ? e.synapse_version : 'unknown',
  };
  // What this parser does not know stays, after the fields it does (`synapse list --json` shows it).
  return { entry: Object.assign(entry, Object.fromEntries(Object.entries(e).filter(([k]) => !(k in entry) && k !== '__proto__'))) };
}

/**
 * Started with `--delegate-mode` (the entry's `delegate_mode: true`): a manager that coordinates
 * and does not edit. Its sends of work need a board task; file-safety denies its writes.
 */
export function inDelegateMode(entry: RegistryEntry): boolean {
  return (entry as RegistryEntry & { delegate_mode?: unknown }).delegate_mode === true;
}

/** An entry of the original Python Synapse: ours always carry a heartbeat, its entries never do. */
export function writtenByOriginal(entry: Pick<RegistryEntry, 'heartbeat_at'>): boolean {
  return entry.heartbeat_at === null;
}

/** ISO → epoch seconds, as the original writes `time.time()`. */
function epochSeconds(iso: string): number {
  return Date.parse(iso) / 1000;
}

/**
 * The entry as written to its file, in the original's conventions so that its `synapse list`,
 * `status` and `send` read ours: timestamps in epoch seconds (it subtracts them from
 * `time.time()`). Everything else is written as it is; the original ignores what it does not
 * know (`heartbeat_at`, `pid_starttime` …).
 */
export function entryFile(entry: RegistryEntry): Record<string, unknown> {
  return {
    ...entry,
    status_updated_at: epochSeconds(entry.status_updated_at),
    task_received_at: entry.task_received_at === null ? null : epochSeconds(entry.task_received_at),
    registered_at: epochSeconds(entry.registered_at),
    heartbeat_at: entry.heartbeat_at === null ? null : epochSeconds(entry.heartbeat_at),
  };
}
