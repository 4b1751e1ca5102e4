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

function isStringOrNull(v: unknown): v is string | null {
  return v === null || typeof v === 'string';
}

/**
 * The registry file's schema, checked by hand: every CLI command reads these files, and a
 * schema library would cost more start-up time than the whole command (measured: ~240 ms).
 * Returns null for anything that is not a well-formed entry.
 */
export function parseRegistryEntry(raw: unknown): RegistryEntry | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const e = raw as Record<string, unknown>;
  const ok =
    typeof e.agent_id === 'string' &&
    /^synapse-[a-z0-9-]+-\d+$/.test(e.agent_id) &&
    typeof e.agent_type === 'string' &&
    isStringOrNull(e.name) &&
    isStringOrNull(e.role) &&
    Number.isInteger(e.port) &&
    Number.isInteger(e.pid) &&
    typeof e.working_dir === 'string' &&
    typeof e.endpoint === 'string' &&
    typeof e.status === 'string' &&
    STATUSES.has(e.status) &&
    typeof e.status_updated_at === 'string' &&
    isStringOrNull(e.current_task_preview) &&
    isStringOrNull(e.task_received_at) &&
    typeof e.registered_at === 'string' &&
    typeof e.heartbeat_at === 'string';
  if (!ok) return null;
  return {
    ...(e as unknown as RegistryEntry),
    log_file: typeof e.log_file === 'string' ? e.log_file : null,
    headless: e.headless === true,
    synapse_version: typeof e.synapse_version === 'string' ? e.synapse_version : 'unknown',
  };
}
