import { requestJson } from '../../a2a/http-json.js';
import { apiKeyHeaders } from '../../config/auth-keys.js';
import { peerTls } from '../../a2a/peer-tls.js';
import { parsePeerTask } from '../../a2a/wire-client.js';
import { SynapseError } from '../../errors.js';
import { findAgent } from '../../registry/lookup.js';
import type { CommandIo } from '../io.js';

/** `synapse respond <target> <choice>`: answers the approval dialog the target's CLI shows. */
export async function respondCommand(target: string, choice: string, flags: { task?: string; json?: boolean }, io: CommandIo): Promise<void> {
  const { entry } = findAgent(target, io.env);
  const tls = peerTls(io.env);
  let taskId = flags.task;
  if (!taskId) {
    const waiting = await requestJson<unknown>(`${entry.endpoint}/tasks?state=input_required&limit=2`, {
      headers: apiKeyHeaders(io.env),
      tls,
    });
    const tasks = Array.isArray(waiting.body) ? waiting.body.map((t) => parsePeerTask(t)).filter((t) => t !== null) : [];
    if (tasks.length === 0) throw new SynapseError('conflict', `${entry.name ?? entry.agent_id} has no task waiting for an answer`);
    taskId = tasks[0]!.id;
  }
  const res = await requestJson<{ task?: unknown; choice?: { key: string; label: string }; error?: { message: string } }>(
    `${entry.endpoint}/tasks/${taskId}/respond`,
    { body: { choice }, headers: apiKeyHeaders(io.env), tls },
  );
  const task = res.status === 200 ? parsePeerTask(res.body.task) : null;
  if (!task || !res.body.choice)
    throw new SynapseError(res.status === 400 ? 'invalid_input' : 'conflict', res.body.error?.message ?? `respond failed: ${res.status}`);
  if (flags.json) io.out(`${JSON.stringify({ task_id: task.id, choice: res.body.choice })}\n`);
  else io.out(`answered "${res.body.choice.key}. ${res.body.choice.label}" for task ${task.id.slice(0, 8)}\n`);
}
