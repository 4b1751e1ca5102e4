import fs from 'node:fs';
import path from 'node:path';
import { requestJson } from '../../a2a/http-json.js';
import { peerTls } from '../../a2a/peer-tls.js';
import { followSse } from '../../a2a/sse-client.js';
import { parseDoneEvent, type PeerTask } from '../../a2a/wire-client.js';
import type { Part, SenderInfo } from '../../agent-api/task.js';
import { apiKeyHeaders } from '../../config/auth-keys.js';
import { envSetting } from '../../config/env-setting.js';
import { SynapseError } from '../../errors.js';
import type { RegistryEntry } from '../../registry/entry.js';
import { resolveSender } from '../../registry/sender.js';
import { ExitRequest } from '../exit.js';
import type { CommandIo } from '../io.js';

/*
 * What a send needs whether its target runs (send.ts) or it waits in the project's queue for an
 * agent that does not yet (send-queue.ts): the parts, the sender, the spinner, the wait for the answer.
 */

const MIME: Record<string, string> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.json': 'application/json',
  '.ts': 'text/x-typescript',
  '.js': 'text/javascript',
  '.py': 'text/x-python',
  '.html': 'text/html',
  '.css': 'text/css',
  '.csv': 'text/csv',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.pdf': 'application/pdf',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
};

/** `--attach` files as file parts (name, mime type, base64), each at most SYNAPSE_SEND_MESSAGE_THRESHOLD bytes. */
export function attachments(files: string[], io: CommandIo): Part[] {
  const limit = envSetting(io.env, 'SYNAPSE_SEND_MESSAGE_THRESHOLD');
  return files.map((file) => {
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(path.resolve(io.cwd, file));
    } catch (err) {
      throw new SynapseError('invalid_input', `cannot read --attach ${file}: ${(err as Error).message}`);
    }
    if (bytes.length > limit) {
      throw new SynapseError('invalid_input', `--attach ${file} is ${bytes.length} bytes, over the limit of ${limit} bytes (SYNAPSE_SEND_MESSAGE_THRESHOLD)`);
    }
    return {
      type: 'file',
      file: { name: path.basename(file), mimeType: MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream', bytes: bytes.toString('base64') },
    };
  });
}

/** `name (id)`, or the id of an agent without a name. */
export function label(e: Pick<RegistryEntry, 'agent_id' | 'name'>): string {
  return e.name ? `${e.name} (${e.agent_id})` : e.agent_id;
}

/** A one-line spinner with elapsed time on stderr, only on a TTY. */
export function spinner(text: string, io: CommandIo): () => void {
  if (!io.isTerminal('stderr')) return () => undefined;
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  const t0 = Date.now();
  let i = 0;
  const timer = setInterval(() => io.err(`\r${frames[i++ % frames.length]} ${text} ${((Date.now() - t0) / 1000).toFixed(1)}s`), 100);
  return () => {
    clearInterval(timer);
    io.err('\r\x1b[2K');
  };
}

/** The agent this command speaks for: --from, $SYNAPSE_AGENT_ID, or the agent whose terminal runs it. */
export function senderOf(live: RegistryEntry[], from: string | undefined, io: CommandIo): ReturnType<typeof resolveSender> {
  const sender = resolveSender(live, { ...(from ? { from } : {}), env: io.env, pid: io.parentPid });
  if (sender.warning) io.err(`warning: ${sender.warning}\n`);
  return sender;
}

/** Who sent it, as the receiving agent reads it from a message's metadata (nothing for a human). */
export function senderMetadata(sender: ReturnType<typeof resolveSender>): { sender?: SenderInfo } {
  if (!sender.id) return {};
  const extra: SenderInfo = sender.entry ? { sender_type: sender.entry.agent_type, sender_endpoint: sender.entry.endpoint } : {};
  return { sender: { sender_id: sender.id, sender_name: sender.entry?.name ?? sender.id, ...extra } };
}

/** The task the sending agent is working on now, so the answer can be tied to it (null when unknown). */
export async function currentTaskOf(sender: RegistryEntry, env: NodeJS.ProcessEnv): Promise<string | null> {
  // A sender that does not answer in a second is just not asked: the message goes anyway.
  const st = await requestJson<{ current_task?: string | null }>(`${sender.endpoint}/status`, {
    timeoutMs: 1000,
    headers: apiKeyHeaders(env),
    tls: peerTls(env),
  }).catch(() => null);
  return st?.body?.current_task ?? null;
}

/**
 * Follows the task over SSE until its `done` event (the original's: a message whose JSON `type`
 * is `done`); Ctrl-C stops waiting, never the task.
 */
export async function waitForAnswer(
  target: Pick<RegistryEntry, 'agent_id' | 'name' | 'endpoint'>,
  taskId: string,
  timeoutMs: number | null,
  io: CommandIo,
): Promise<PeerTask> {
  const controller = new AbortController();
  const stop = spinner(`waiting for ${target.name ?? target.agent_id}`, io);
  let outcome = 'done' as 'done' | 'timeout' | 'interrupted';
  let finished = null as PeerTask | null;
  const timer = timeoutMs ? setTimeout(() => ((outcome = 'timeout'), controller.abort()), timeoutMs) : undefined;
  const onSigint = () => {
    outcome = 'interrupted';
    controller.abort();
  };
  process.once('SIGINT', onSigint);
  try {
    await followSse(
      `${target.endpoint}/tasks/${taskId}/subscribe`,
      (e) => {
        finished = parseDoneEvent(e.data, taskId);
        return finished !== null;
      },
      { signal: controller.signal, headers: apiKeyHeaders(io.env), tls: peerTls(io.env) },
    );
  } finally {
    clearTimeout(timer);
    process.off('SIGINT', onSigint);
    stop();
  }
  if (finished) return finished;
  const later = `Fetch the answer later: curl -s ${target.endpoint}/tasks/${taskId}  (or synapse history show ${taskId.slice(0, 8)})`;
  if (outcome === 'timeout')
    throw new SynapseError('answer_timeout', `no answer from ${label(target)} within ${timeoutMs! / 1000} s; the task goes on. ${later}`);
  io.err(`stopped waiting; the task goes on. ${later}\n`);
  throw new ExitRequest(130);
}
