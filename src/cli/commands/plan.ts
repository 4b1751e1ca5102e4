import { requestJson } from '../../a2a/http-json.js';
import { apiKeyHeaders } from '../../config/auth-keys.js';
import { peerTls } from '../../a2a/peer-tls.js';
import { parsePeerTask } from '../../a2a/wire-client.js';
import type { Env } from '../../config/paths.js';
import { SynapseError, type ErrorCode } from '../../errors.js';
import { findAgent, liveAgents } from '../../registry/lookup.js';
import type { RegistryEntry } from '../../registry/entry.js';
import type { CommandIo } from '../io.js';

const LOOKUP_TIMEOUT_MS = 1500;

interface PlanFlags {
  agent?: string;
  json?: boolean;
}

/** The running agent that holds task `id` (`--agent` narrows the search to one). */
async function agentWithTask(id: string, env: Env, agent: string | undefined): Promise<{ entry: RegistryEntry; taskId: string }> {
  const agents = agent ? [findAgent(agent, env).entry] : liveAgents(env);
  const tls = peerTls(env);
  const hits = await Promise.all(
    agents.map(async (entry) => {
      try {
        const res = await requestJson(`${entry.endpoint}/tasks/${encodeURIComponent(id)}`, { timeoutMs: LOOKUP_TIMEOUT_MS, headers: apiKeyHeaders(env), tls });
        const task = res.status === 200 ? parsePeerTask(res.body) : null;
        return task ? { entry, taskId: task.id } : null;
      } catch {
        return null;
      }
    }),
  );
  const found = hits.filter((h) => h !== null);
  if (found.length > 1) {
    throw new SynapseError(
      'ambiguous_task',
      `'${id}' matches tasks on several agents; add --agent:\n${found.map((h) => `  ${h.taskId}  ${h.entry.name ?? h.entry.agent_id}`).join('\n')}`,
    );
  }
  if (!found[0]) throw new SynapseError('task_not_found', `no running agent has a task '${id}'${agent ? ` (asked ${agent})` : ''}; see \`synapse list\``);
  return found[0];
}

/** An error body from the agent (`{error: {code, message}}`) as the same error here. */
function agentError(status: number, body: unknown): SynapseError {
  const err = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const code = typeof err?.code === 'string' ? (err.code as ErrorCode) : 'internal';
  return new SynapseError(code, typeof err?.message === 'string' ? err.message : `the agent answered HTTP ${status}`);
}

/**
 * `synapse approve <task>` / `synapse reject <task> [--reason R]`: answers the plan-approval
 * screen the task's agent shows (its task is input-required with metadata.plan).
 */
export async function planCommand(decision: 'approve' | 'reject', id: string, flags: PlanFlags & { reason?: string }, io: CommandIo): Promise<void> {
  const { entry, taskId } = await agentWithTask(id, io.env, flags.agent);
  const res = await requestJson<{ task_id?: string; reason_task_id?: string | null }>(`${entry.endpoint}/tasks/${encodeURIComponent(taskId)}/${decision}`, {
    method: 'POST',
    body: decision === 'reject' && flags.reason !== undefined ? { reason: flags.reason } : {},
    headers: apiKeyHeaders(io.env),
    tls: peerTls(io.env),
  });
  if (res.status !== 200) throw agentError(res.status, res.body);
  const who = entry.name ?? entry.agent_id;
  const reasonTask = res.body.reason_task_id ?? null;
  if (flags.json) {
    io.out(
      `${JSON.stringify({ status: decision === 'approve' ? 'approved' : 'rejected', task_id: taskId, agent_id: entry.agent_id, ...(decision === 'reject' ? { reason_task_id: reasonTask } : {}) })}\n`,
    );
    return;
  }
  if (decision === 'approve') io.out(`approved the plan of task ${taskId.slice(0, 8)} on ${who}\n`);
  else
    io.out(
      `rejected the plan of task ${taskId.slice(0, 8)} on ${who}${reasonTask ? `; the reason goes in as its next message (task ${reasonTask.slice(0, 8)})` : ''}\n`,
    );
}
