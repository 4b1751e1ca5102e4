import type { ListColumn } from '../config/keys.js';
import type { RegistryEntry } from '../registry/entry.js';

/*
 * What each column of `synapse list` says about one agent, as plain one-line text. Pure: the
 * printed table (cli/commands/lifecycle.ts) takes TRANSPORT and SKILL_SET from here, the live
 * monitor every cell. Registry entries hold text from peers and from other programs (the original
 * Synapse writes the same directory), so every cell loses its control characters here: no escape
 * sequence in an entry can reach the terminal.
 */

/** The file an agent holds a lock on (store/file-safety.ts `editingFileOf`), none, or why unknown. */
export type Editing = { file: string; more: number } | null | 'unreadable';

/** One agent as the monitor shows it: its registry entry and what it edits. */
export interface AgentRow {
  entry: RegistryEntry;
  editing: Editing;
}

/** C0/C1 controls (ESC, BEL, CSI …), bidi and other format characters: never printed as they are. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}]/gu;

/** Text as one clean line: whitespace runs become one space, control and format characters go. */
export function oneLine(text: string | null | undefined): string {
  if (!text) return '';
  return text.replace(/\s+/g, ' ').replace(UNPRINTABLE, '').trim();
}

/** EDITING_FILE: `src/a.ts`, `src/a.ts (+2)` when it holds more locks, `-` when none. */
export function editingText(editing: Editing): string {
  if (editing === null) return '-';
  if (editing === 'unreadable') return '(file-safety db unreadable)';
  return `${oneLine(editing.file)}${editing.more > 0 ? ` (+${editing.more})` : ''}`;
}

/** How long the original Synapse keeps showing a finished transfer (its `get_transport_display`). */
const TRANSPORT_RETENTION_MS = 3000;

/**
 * TRANSPORT: how peers reach the agent. Ours: `HTTP`, or `HTTPS` with TLS on. An agent of the
 * original Synapse writes the message in flight (`UDS→`, `→TCP` …) as `active_transport`, and
 * shows the last one for 3 s after; otherwise `-`.
 */
export function transportOf(entry: RegistryEntry, nowMs: number): string {
  const e = entry as RegistryEntry & { active_transport?: unknown; last_transport?: unknown; transport_updated_at?: unknown };
  if (typeof e.active_transport === 'string' && e.active_transport) return oneLine(e.active_transport) || '-';
  const updated = typeof e.transport_updated_at === 'number' ? e.transport_updated_at * 1000 : Number.NaN;
  if (typeof e.last_transport === 'string' && e.last_transport && nowMs - updated <= TRANSPORT_RETENTION_MS) return oneLine(e.last_transport) || '-';
  if (entry.heartbeat_at === null) return '-'; // the original's, idle
  return entry.endpoint.startsWith('https:') ? 'HTTPS' : 'HTTP';
}

/** HOST: the host an agent runs on (discovery across hosts, store/discovery.ts), `-` where the entry does not say. */
export function hostOf(entry: RegistryEntry): string {
  const host = (entry as RegistryEntry & { host?: unknown }).host;
  return (typeof host === 'string' && oneLine(host)) || '-';
}

/** With a shared (PostgreSQL) registry the table names each agent's host: HOST after ID, unless the columns already have it. */
export function withHost(columns: readonly ListColumn[], shared: boolean): ListColumn[] {
  if (!shared || columns.includes('HOST')) return [...columns];
  const at = columns[0] === 'ID' ? 1 : 0;
  return [...columns.slice(0, at), 'HOST', ...columns.slice(at)];
}

/** SKILL_SET: the set `synapse spawn --skill-set` gave the agent, or `-`. */
export function skillSetOf(entry: RegistryEntry): string {
  const set = (entry as RegistryEntry & { skill_set?: unknown }).skill_set;
  return (typeof set === 'string' && oneLine(set)) || '-';
}

/** `9s`, `2m05s`, `1h02m`: time since `fromIso`. */
export function elapsed(fromIso: string, nowMs: number): string {
  const s = Math.max(0, Math.floor((nowMs - Date.parse(fromIso)) / 1000));
  if (Number.isNaN(s)) return '';
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** CURRENT in the monitor: the task preview and how long it has run, `fix the login (2m05s)`; `-` when idle. */
export function currentText(entry: RegistryEntry, nowMs: number): string {
  const task = oneLine(entry.current_task_preview);
  if (!task) return '-';
  return entry.task_received_at ? `${task} (${elapsed(entry.task_received_at, nowMs)})` : task;
}

/** WORKING_DIR with the home directory as `~`. */
export function shortDir(dir: string, home: string | undefined): string {
  const clean = oneLine(dir);
  if (home && home !== '/' && (clean === home || clean.startsWith(`${home}/`))) return `~${clean.slice(home.length)}`;
  return clean;
}

/** Every column's text for one agent, as the monitor shows it (the layout truncates to fit). */
export function monitorCells(row: AgentRow, nowMs: number, home: string | undefined): Record<ListColumn, string> {
  const e = row.entry;
  return {
    ID: oneLine(e.agent_id),
    HOST: hostOf(e),
    NAME: oneLine(e.name) || '-',
    TYPE: oneLine(e.agent_type),
    ROLE: oneLine(e.role) || '-',
    STATUS: oneLine(e.status),
    CURRENT: currentText(e, nowMs),
    PORT: String(e.port),
    TRANSPORT: transportOf(e, nowMs),
    EDITING_FILE: editingText(row.editing),
    WORKING_DIR: shortDir(e.working_dir, home),
    SKILL_SET: skillSetOf(e),
  };
}

/** A colour per status (Ink colour names); statuses the original adds fall back to the nearest. */
const STATUS_COLOURS: Record<string, string> = {
  STARTING: 'gray',
  READY: 'green',
  PROCESSING: 'yellow',
  SENDING_REPLY: 'yellow',
  WAITING: 'magenta',
  WAITING_FOR_INPUT: 'magenta',
  DONE: 'cyan',
  RATE_LIMITED: 'red',
  EXITED: 'red',
  SHUTTING_DOWN: 'red',
};

export function statusColour(status: string): string | undefined {
  return STATUS_COLOURS[status];
}
