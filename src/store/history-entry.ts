import { isDerived } from '../agent-api/output-parse.js';
import { messageText, TERMINAL_STATES, type Task, type TaskState } from '../agent-api/task.js';
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
  };
}

export function rowToEntry(row: HistoryRow): HistoryEntry {
  const { seq: _seq, receipt, metadata, status, ...rest } = row;
  return {
    ...rest,
    status: status as TaskState,
    receipt: parseJson(receipt, { state: 'queued', queued_at: row.created_at }),
    metadata: parseJson(metadata, {}),
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
