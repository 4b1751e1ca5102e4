import type { Receipt } from '../agent-api/task.js';
import type { WireArtifact } from '../agent-api/wire.js';

/**
 * A task as a Synapse agent's routes answer it, read by a client (our CLI, the demo). It needs
 * only the original Synapse's fields (`id`, `status` as a string, `artifacts` as `{type, data}`,
 * `error`), so it reads the Python agents as well as ours; what ours add is optional.
 */
export interface PeerTask {
  id: string;
  /** `submitted`, `working`, `input_required`, `completed`, `failed`, `canceled`. */
  status: string;
  artifacts: WireArtifact[];
  error: { code: string; message: string } | null;
  metadata: Record<string, unknown>;
  receipt: Receipt | null;
  status_message: string | null;
}

export const FINISHED_STATES: ReadonlySet<string> = new Set(['completed', 'failed', 'canceled']);

function record(v: unknown): Record<string, unknown> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function parseError(v: unknown): PeerTask['error'] {
  const e = record(v);
  if (!e) return null;
  return { code: typeof e.code === 'string' ? e.code : 'UNKNOWN_ERROR', message: typeof e.message === 'string' ? e.message : 'Task failed' };
}

function parseArtifacts(v: unknown): WireArtifact[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((a) => {
    const r = record(a);
    return r ? [{ type: typeof r.type === 'string' ? r.type : 'unknown', data: r.data }] : [];
  });
}

/**
 * A wire task, from a body or an SSE event; null when it lacks an id or a status string.
 * `fallbackId` names the task when the body does not (the original's SSE `done` event).
 */
export function parsePeerTask(body: unknown, fallbackId?: string): PeerTask | null {
  const t = record(body);
  if (!t) return null;
  const id = typeof t.id === 'string' ? t.id : fallbackId;
  if (typeof id !== 'string' || typeof t.status !== 'string') return null;
  const receipt = record(t.receipt);
  return {
    id,
    status: t.status,
    artifacts: parseArtifacts(t.artifacts),
    error: parseError(t.error),
    metadata: record(t.metadata) ?? {},
    receipt: receipt && typeof receipt.state === 'string' ? (receipt as unknown as Receipt) : null,
    status_message: typeof t.status_message === 'string' ? t.status_message : null,
  };
}

/**
 * The finished task from the last event of `GET /tasks/{id}/subscribe` (`{"type": "done",
 * status, artifacts, error?}`); ours also carries the whole task. Null for any other event.
 */
export function parseDoneEvent(data: unknown, taskId: string): PeerTask | null {
  const d = record(data);
  if (d?.type !== 'done') return null;
  return parsePeerTask(d.task, taskId) ?? parsePeerTask(d, taskId);
}

/** An artifact's text as the original shows it: `data` itself, or its `content`. */
function artifactText(a: WireArtifact): string {
  const data = record(a.data);
  if (data && 'content' in data) return String(data.content);
  if (typeof a.data === 'string') return a.data;
  if (a.type === 'file' && data) {
    const name = [data.name, data.uri].find((v): v is string => typeof v === 'string') ?? 'attachment';
    return `[file: ${name}]`;
  }
  return a.data === undefined || a.data === null ? '' : JSON.stringify(a.data);
}

/** What an agent derived from its answer (code blocks, files): not shown again as answer text. */
export function derivedWireArtifact(a: { data?: unknown }): boolean {
  const meta = record(record(a.data)?.metadata);
  return meta?.derived === true;
}

/** The answer a task carries: the text of its artifacts, one per line (not what was derived from it). */
export function peerTaskText(task: PeerTask): string {
  return task.artifacts
    .filter((a) => !derivedWireArtifact(a))
    .map(artifactText)
    .join('\n');
}
