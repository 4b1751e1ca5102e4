import { isDerived } from './output-parse.js';
import type { ReplyEntry } from '../registry/reply-stack.js';
import type { Artifact, Message, Receipt, Task, TaskError, TaskState } from './task.js';

/**
 * Synapse's own wire format: how the Synapse routes (`/tasks/*`, `/reply-stack/*`, the task SSE
 * stream, webhooks) show a task, in the original Python Synapse's shapes, so that its clients,
 * scripts and skills work against this implementation unchanged. The one mapping from the
 * internal model; every Synapse route, SSE event and webhook payload goes through it. What this
 * implementation adds (priority, receipt, the status message and its time) rides along as extra
 * fields, never in place of one of the original's.
 */

/** The original's task states: `input_required` with an underscore. */
export type WireTaskState = 'submitted' | 'working' | 'input_required' | 'completed' | 'failed' | 'canceled';

export const WIRE_TASK_STATES: readonly WireTaskState[] = ['submitted', 'working', 'input_required', 'completed', 'failed', 'canceled'];

/** An artifact as the original has it: `{"type": "text", "data": "…"}`. */
export interface WireArtifact {
  type: string;
  data: unknown;
}

export interface WireTask {
  id: string;
  status: WireTaskState;
  message: Message;
  artifacts: WireArtifact[];
  error: TaskError | null;
  created_at: string;
  updated_at: string;
  context_id: string;
  metadata: Record<string, unknown>;
  // Synapse's additions.
  priority: number;
  receipt: Receipt;
  /** Why it failed or was canceled, in words (the error carries the code). */
  status_message: string | null;
  /** When the task entered its current state. */
  status_timestamp: string;
}

export function wireState(state: TaskState): WireTaskState {
  return state === 'input-required' ? 'input_required' : state;
}

/** A state named in a request: the original's `input_required`, or our older `input-required`. */
export function internalState(state: WireTaskState | TaskState): TaskState {
  return state === 'input_required' ? 'input-required' : state;
}

/** What the original's `GET /status` says besides `status` (synapse/status.py `evaluate_readiness`). */
export interface WireReadiness {
  lifecycle: 'IDLE' | 'RUNNING' | 'WAITING_INPUT' | 'FAILED';
  ready: boolean;
  readiness_reason: 'ready' | 'agent_running' | 'waiting_for_input' | 'agent_failed';
}

/**
 * The original's readiness for an agent status: READY and DONE are IDLE (ready), WAITING is
 * WAITING_INPUT, an exited agent FAILED, anything else (STARTING, PROCESSING) RUNNING.
 */
export function wireReadiness(status: string): WireReadiness {
  if (status === 'READY' || status === 'DONE') return { lifecycle: 'IDLE', ready: true, readiness_reason: 'ready' };
  if (status === 'WAITING') return { lifecycle: 'WAITING_INPUT', ready: false, readiness_reason: 'waiting_for_input' };
  if (status === 'EXITED') return { lifecycle: 'FAILED', ready: false, readiness_reason: 'agent_failed' };
  return { lifecycle: 'RUNNING', ready: false, readiness_reason: 'agent_running' };
}

/**
 * One wire artifact per part: text as a string, a file as its `{name, mimeType, bytes|uri}`, data
 * as itself. What output parsing derived from the answer takes the original's segment shapes:
 * `{type: "code", data: {content, metadata: {language}}}` and one `{type: "file", data: {content:
 * path, metadata: {action}}}` per file, marked `derived: true` so a reader shows the answer once.
 */
export function wireArtifacts(artifacts: readonly Artifact[]): WireArtifact[] {
  return artifacts.flatMap((a): WireArtifact[] => {
    if (isDerived(a)) return derivedWire(a);
    return a.parts.map((p): WireArtifact => (p.type === 'text' ? { type: 'text', data: p.text } : p.type === 'file' ? { type: 'file', data: p.file } : p));
  });
}

function derivedWire(a: Artifact): WireArtifact[] {
  if (a.name === 'code') {
    const code = a.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
    return [{ type: 'code', data: { content: code, metadata: { language: a.metadata?.language ?? 'text', derived: true } } }];
  }
  const files = a.parts.flatMap((p) => (p.type === 'data' && Array.isArray(p.data.files) ? (p.data.files as Array<{ path: string; action: string }>) : []));
  return files.map((f) => ({ type: 'file', data: { content: f.path, metadata: { action: f.action, derived: true } } }));
}

/** The task's error; a failed task stored before errors had codes gets `TASK_FAILED`. */
export function wireError(task: Task): TaskError | null {
  if (task.error) return task.error;
  if (task.status.state !== 'failed') return null;
  return { code: 'TASK_FAILED', message: task.status.message ?? 'the task failed', data: null };
}

export function toWireTask(task: Task): WireTask {
  return {
    id: task.id,
    status: wireState(task.status.state),
    message: task.message,
    artifacts: wireArtifacts(task.artifacts),
    error: wireError(task),
    created_at: task.created_at,
    updated_at: task.updated_at,
    context_id: task.context_id,
    metadata: task.metadata,
    priority: task.priority,
    receipt: task.receipt,
    status_message: task.status.message ?? null,
    status_timestamp: task.status.timestamp,
  };
}

/** `GET /reply-stack/get` and `/pop`: the original's ReplyTarget, plus who sent it. */
export interface WireReplyTarget {
  sender_endpoint: string | null;
  sender_uds_path: string | null;
  sender_task_id: string | null;
  receiver_task_id: string;
  message_preview: string | null;
  received_at: string;
  sender_id: string | null;
  sender_name: string | null;
}

/** The original previews the first 80 characters of the message. */
const PREVIEW_CHARS = 80;

export function wireReplyTarget(entry: ReplyEntry, messageText: string | null): WireReplyTarget {
  return {
    sender_endpoint: entry.sender_endpoint,
    sender_uds_path: null,
    sender_task_id: entry.sender_task_id,
    receiver_task_id: entry.task_id,
    message_preview: messageText === null ? null : messageText.slice(0, PREVIEW_CHARS),
    received_at: entry.received_at,
    sender_id: entry.sender_id,
    sender_name: entry.sender_name,
  };
}

/**
 * The events of `GET /tasks/{id}/subscribe`, as the original sends them: one JSON object per
 * `data:` line whose `type` says what it is (`status`, `output`, `done`).
 */
export function statusEvent(task: Task): Record<string, unknown> {
  return {
    type: 'status',
    status: wireState(task.status.state),
    task_id: task.id,
    timestamp: task.status.timestamp,
    message: task.status.message ?? null,
    receipt: task.receipt,
  };
}

/** New output lines; `data` is the text as the original sends it, `lines` the same split. */
export function outputEvent(taskId: string, lines: string[]): Record<string, unknown> {
  return { type: 'output', data: lines.map((l) => `${l}\n`).join(''), task_id: taskId, lines };
}

/** The last event: the final state, artifacts and error (when failed), and the whole task. */
export function doneEvent(task: Task): Record<string, unknown> {
  const error = wireError(task);
  const wire = toWireTask(task);
  return { type: 'done', status: wire.status, artifacts: wire.artifacts, ...(error ? { error } : {}), task: wire };
}

/**
 * A webhook's body as the original posts it: `{event, event_id, timestamp, data}` with the task
 * id (and the error of a failed task) in `data`; the whole task and the agent ride along.
 */
export function webhookPayload(event: string, eventId: string, timestamp: string, task: Task, agentId?: string): Record<string, unknown> {
  const error = wireError(task);
  return {
    event,
    event_id: eventId,
    timestamp,
    data: { task_id: task.id, status: wireState(task.status.state), ...(error ? { error } : {}), task: toWireTask(task) },
    ...(agentId ? { agent_id: agentId } : {}),
  };
}
