import { isDerived } from '../agent-api/output-parse.js';
import { messageText, TERMINAL_STATES, type Task, type TaskState } from '../agent-api/task.js';
import type { TokenCounts } from '../config/pricing.js';
import type { TokenUsage } from '../profiles/usage-records.js';
import type { HistoryAgent, HistoryEntry, HistoryRow } from './history-schema.js';

/** Longest input or output kept per entry; a runaway paste must not bloat everyone's history. */
const MAX_TEXT_CHARS = 1_000_000;

function cap(text: string): string {
  if (text.length <= MAX_TEXT_CHARS) return text;
  return `${text.slice(0, MAX_TEXT_CHARS)}\n… [truncated ${text.length - MAX_TEXT_CHARS} characters]`;
}

function between(from: string | undefined, to: string): number | null {
  if (!from) return null;
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) ? Math.max(0, ms) : null;
}

/**
 * Which finished tasks history keeps: the messages an agent handled. The agent's own start-up
 * instruction and the copies of answers it received for `--wait` (the answering agent's task
 * already holds that answer) would only be noise in lists and statistics.
 */
export function isRecordable(task: Task): boolean {
  return TERMINAL_STATES.has(task.status.state) && task.metadata.kind !== 'bootstrap' && task.metadata.kind !== 'answer';
}

/** The history entry for a task as `agent` sees it (also used for live tasks by `trace`). */
export function entryFromTask(task: Task, agent: HistoryAgent): HistoryEntry {
  const sender = task.metadata.sender ?? {};
  const finished = task.status.timestamp;
  const output = task.artifacts
    .filter((a) => !isDerived(a))
    .map((a) => messageText({ role: 'agent', parts: a.parts }))
    .filter((t) => t.length > 0)
    .join('\n\n');
  return {
    task_id: task.id,
    agent_id: agent.agent_id,
    agent_name: agent.name,
    agent_type: agent.agent_type,
    working_dir: agent.working_dir || null,
    sender_id: sender.sender_id ?? null,
    sender_name: sender.sender_name ?? null,
    sender_type: sender.sender_type ?? null,
    input: cap(messageText(task.message)),
    output: cap(output),
    status: task.status.state,
    status_message: task.status.message ?? null,
    priority: task.priority,
    context_id: task.context_id ?? null,
    reply_source: typeof task.metadata.reply_source === 'string' ? task.metadata.reply_source : null,
    receipt: task.receipt,
    metadata: task.metadata,
    created_at: task.created_at,
    finished_at: finished,
    duration_ms: between(task.receipt.queued_at ?? task.created_at, finished),
    turn_ms: between(task.receipt.delivered_at, finished),
    usage: usageOf(task.metadata.usage),
  };
}

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);

function countsOf(v: Record<string, unknown>): TokenCounts {
  return {
    input_tokens: count(v.input_tokens),
    output_tokens: count(v.output_tokens),
    cache_read_tokens: count(v.cache_read_tokens),
    cache_write_tokens: count(v.cache_write_tokens),
  };
}

/** The usage the agent put on the task (`metadata.usage`, usage-tracker.ts), checked; null when there is none. */
function usageOf(v: unknown): TokenUsage | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const u = v as Record<string, unknown>;
  const byModel: Record<string, TokenCounts> = {};
  if (typeof u.by_model === 'object' && u.by_model !== null && !Array.isArray(u.by_model)) {
    for (const [model, c] of Object.entries(u.by_model as Record<string, unknown>))
      if (typeof c === 'object' && c !== null && !Array.isArray(c)) byModel[model] = countsOf(c as Record<string, unknown>);
  }
  return { ...countsOf(u), records: count(u.records), by_model: byModel };
}

/** The row of an entry, as both backends store it (without SQLite's `seq`): receipt, metadata and usage as JSON text; the inverse of rowToEntry. */
export function entryToRow(e: HistoryEntry): Omit<HistoryRow, 'seq'> {
  const u = e.usage;
  const { usage: _usage, host: _host, ...rest } = e;
  return {
    ...rest,
    receipt: JSON.stringify(e.receipt),
    metadata: JSON.stringify(e.metadata),
    input_tokens: u?.input_tokens ?? null,
    output_tokens: u?.output_tokens ?? null,
    cache_read_tokens: u?.cache_read_tokens ?? null,
    cache_write_tokens: u?.cache_write_tokens ?? null,
    usage: u ? JSON.stringify({ records: u.records, by_model: u.by_model }) : null,
  };
}

export function rowToEntry(row: HistoryRow): HistoryEntry {
  const { seq: _seq, receipt, metadata, status, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, usage, ...rest } = row;
  const detail = usage === null ? null : parseJson<Record<string, unknown>>(usage, {});
  return {
    ...rest,
    status: status as TaskState,
    receipt: parseJson(receipt, { state: 'queued', queued_at: row.created_at }),
    metadata: parseJson(metadata, {}),
    usage:
      input_tokens === null || input_tokens === undefined ? null : usageOf({ ...detail, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens }),
  };
}

function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    // A damaged row still shows its texts and times.
    return fallback;
  }
}
