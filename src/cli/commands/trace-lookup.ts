import type { Task } from '../../agent-api/task.js';
import { internalState, WIRE_TASK_STATES, type WireTaskState } from '../../agent-api/wire.js';
import { requestJson } from '../../a2a/http-json.js';
import { apiKeyHeaders } from '../../config/auth-keys.js';
import { peerTls } from '../../a2a/peer-tls.js';
import { parsePeerTask, peerTaskText } from '../../a2a/wire-client.js';
import type { Env } from '../../config/paths.js';
import { isSynapseError, SynapseError } from '../../errors.js';
import type { FileChange } from '../../store/file-safety-schema.js';
import { changesForTask } from '../../store/file-safety-store.js';
import { entryFromTask, type HistoryEntry } from '../../store/history.js';
import { liveAgents } from '../../registry/lookup.js';
import { agentsNamed } from '../../registry/targets.js';
import type { Trace } from './history-format.js';
import { compareCodeUnits } from '../../text-order.js';

const LIVE_TIMEOUT_MS = 1500;

/**
 * A running agent's task (`GET /tasks/:id`, the original's wire shape) as the model the history
 * entry is made from. It needs only the original's fields; ours (priority, receipt, the status
 * message and its time) are used when present.
 */
function asTask(body: unknown): Task | null {
  const peer = parsePeerTask(body);
  const t = body as Record<string, unknown>;
  if (!peer || typeof t.created_at !== 'string' || !(WIRE_TASK_STATES as readonly string[]).includes(peer.status)) return null;
  const updated = typeof t.updated_at === 'string' ? t.updated_at : t.created_at;
  const message = t.message as Task['message'] | null;
  const output = peerTaskText(peer);
  const why = peer.status_message ?? peer.error?.message;
  return {
    id: peer.id,
    context_id: typeof t.context_id === 'string' ? t.context_id : '',
    status: {
      state: internalState(peer.status as WireTaskState),
      timestamp: typeof t.status_timestamp === 'string' ? t.status_timestamp : updated,
      ...(why ? { message: why } : {}),
    },
    message: message && Array.isArray(message.parts) ? message : { role: 'user', parts: [] },
    artifacts: output ? [{ artifact_id: `${peer.id}-output`, name: 'response', parts: [{ type: 'text', text: output }] }] : [],
    metadata: peer.metadata,
    priority: typeof t.priority === 'number' ? t.priority : 3,
    receipt: peer.receipt ?? { state: 'queued', queued_at: t.created_at },
    created_at: t.created_at,
    updated_at: updated,
  };
}

/**
 * A task not in the history yet (still queued or running) is asked from the running agents
 * that may hold it, all at once with a short timeout. Only loopback agents of this user are
 * asked: the registry lists nothing else.
 */
async function findLive(env: Env, id: string, agent: string | undefined): Promise<HistoryEntry | null> {
  const live = liveAgents(env);
  const tls = peerTls(env);
  const agents = agent ? agentsNamed(live, agent) : live;
  const found = await Promise.all(
    agents.map(async (a) => {
      try {
        const res = await requestJson(`${a.endpoint}/tasks/${encodeURIComponent(id)}`, {
          timeoutMs: LIVE_TIMEOUT_MS,
          headers: apiKeyHeaders(env),
          tls,
        });
        const task = res.status === 200 ? asTask(res.body) : null;
        return task ? entryFromTask(task, { agent_id: a.agent_id, name: a.name, agent_type: a.agent_type, working_dir: a.working_dir }) : null;
      } catch {
        return null;
      }
    }),
  );
  const hits = found.filter((e): e is HistoryEntry => e !== null);
  if (hits.length > 1) {
    throw new SynapseError(
      'ambiguous_task',
      `'${id}' matches tasks on several running agents; add --agent:\n${hits.map((h) => `  ${h.task_id}  ${h.agent_name ?? h.agent_id}`).join('\n')}`,
    );
  }
  return hits[0] ?? null;
}

/**
 * File changes recorded with this task, in the current project and in the agent's own
 * working directory. Changes recorded with the 8-character short id (what lists show) count too.
 */
async function fileChanges(env: Env, dirs: string[], taskId: string, warnings: string[]): Promise<FileChange[]> {
  const seen = new Map<string, FileChange>();
  for (const dir of [...new Set(dirs.filter((d) => d.length > 0))]) {
    try {
      for (const id of [...new Set([taskId, taskId.slice(0, 8)])]) {
        for (const c of await changesForTask(dir, id, env)) seen.set(`${dir}\0${c.id}`, c);
      }
    } catch (err) {
      warnings.push(`file changes in ${dir} could not be read: ${(err as Error).message}`);
    }
  }
  return [...seen.values()].sort((a, b) => compareCodeUnits(a.recorded_at, b.recorded_at) || a.id - b.id);
}

/** Everything `synapse trace` shows about one task. */
export async function gatherTrace(id: string, opts: { env: Env; projectDir: string; agent?: string }): Promise<Trace> {
  const warnings: string[] = [];
  let entry: HistoryEntry | null = null;
  let related: HistoryEntry[] = [];
  let notFound: SynapseError | null = null;
  const { openExistingHistory } = await import('../../store/history-open.js');
  const history = await openExistingHistory(opts.projectDir, { env: opts.env });
  try {
    if (history) {
      try {
        entry = await history.find(id, opts.agent ? { agent: opts.agent } : {});
        related = await history.related(entry);
      } catch (err) {
        if (!isSynapseError(err) || err.code !== 'task_not_found') throw err;
        notFound = err;
      }
    }
  } finally {
    await history?.close();
  }
  let source: Trace['source'] = 'history';
  if (!entry) {
    entry = await findLive(opts.env, id, opts.agent);
    source = 'live';
  }
  if (!entry) {
    throw (
      notFound ??
      new SynapseError('task_not_found', `no task '${id}' in the history (${history ? 'none matches' : 'nothing recorded yet'}) or on a running agent`)
    );
  }
  const file_changes = await fileChanges(opts.env, [opts.projectDir, entry.working_dir ?? ''], entry.task_id, warnings);
  return { source, entry, file_changes, related, warnings };
}
