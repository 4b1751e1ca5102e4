import type { AgentStatus } from '../profiles/types.js';

/** One running agent, as written to `<registry>/<agent_id>.json`. */
export interface RegistryEntry {
  agent_id: string;
  agent_type: string;
  name: string | null;
  role: string | null;
  port: number;
  pid: number;
  working_dir: string;
  endpoint: string;
  status: AgentStatus;
  status_updated_at: string;
  current_task_preview: string | null;
  task_received_at: string | null;
  registered_at: string;
  heartbeat_at: string;
  /** Log file of a background agent (`synapse start`), null in the foreground. */
  log_file: string | null;
  headless: boolean;
  synapse_version: string;
}

const STATUSES = new Set(['STARTING', 'READY', 'PROCESSING', 'WAITING', 'DONE', 'EXITED']);

const isString = (v: unknown) => typeof v === 'string';
const isStringOrNull = (v: unknown) => v === null || typeof v === 'string';

/** Each required field and what it must hold; the order is the order problems are named in. */
const REQUIRED: Array<[field: string, ok: (v: unknown) => boolean, expected: string]> = [
  ['agent_id', (v) => typeof v === 'string' && /^synapse-[a-z0-9-]+-\d+$/.test(v), 'synapse-<type>-<port>'],
  ['agent_type', isString, 'a string'],
  ['name', isStringOrNull, 'a string or null'],
  ['role', isStringOrNull, 'a string or null'],
  ['port', Number.isInteger, 'an integer'],
  ['pid', Number.isInteger, 'an integer'],
  ['working_dir', isString, 'a string'],
  ['endpoint', isString, 'a string'],
  ['status', (v) => typeof v === 'string' && STATUSES.has(v), [...STATUSES].join('|')],
  ['status_updated_at', isString, 'a string'],
  ['current_task_preview', isStringOrNull, 'a string or null'],
  ['task_received_at', isStringOrNull, 'a string or null'],
  ['registered_at', isString, 'a string'],
  ['heartbeat_at', isString, 'a string'],
];

export type EntryCheck = { entry: RegistryEntry; problem?: undefined } | { entry?: undefined; problem: string };

/**
 * The one parser of the registry file, checked by hand: every CLI command reads these files,
 * and a schema library would cost more start-up time than the whole command (measured: ~240 ms).
 * Says what is wrong with anything that is not a well-formed entry.
 */
export function checkRegistryEntry(raw: unknown): EntryCheck {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { problem: 'not a JSON object' };
  const e = raw as Record<string, unknown>;
  const bad = REQUIRED.filter(([field, ok]) => !ok(e[field]));
  if (bad.length > 0) {
    const shown = bad.slice(0, 3).map(([field, , expected]) => (field in e ? `${field} is not ${expected}` : `${field} is missing`));
    return { problem: `not a Synapse registry entry: ${shown.join(', ')}${bad.length > 3 ? ` (+${bad.length - 3} more)` : ''}` };
  }
  return {
    entry: {
      ...(e as unknown as RegistryEntry),
      log_file: typeof e.log_file === 'string' ? e.log_file : null,
      headless: e.headless === true,
      synapse_version: typeof e.synapse_version === 'string' ? e.synapse_version : 'unknown',
    },
  };
}
