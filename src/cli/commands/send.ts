import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { requestJson } from '../../a2a/http-json.js';
import { followSse } from '../../a2a/sse-client.js';
import type { Part, ResponseMode, SenderInfo, Task } from '../../agent-api/task.js';
import { numberSetting } from '../../config/env-number.js';
import { loadSettings } from '../../config/settings.js';
import { SynapseError } from '../../errors.js';
import type { RegistryEntry } from '../../registry/entry.js';
import { liveAgents, openRegistry } from '../../registry/lookup.js';
import { sameProject } from '../../registry/project.js';
import { resolveSender } from '../../registry/sender.js';
import { canonicalType, resolveTarget } from '../../registry/targets.js';
import { ExitRequest } from '../exit.js';
import type { CommandIo } from '../io.js';

export interface SendFlags {
  messageFile?: string;
  stdin?: boolean;
  attach?: string[];
  priority?: string;
  wait?: boolean;
  notify?: boolean;
  silent?: boolean;
  timeout?: string;
  from?: string;
  force?: boolean;
  json?: boolean;
  task?: boolean;
}

const DEFAULT_ATTACH_LIMIT = 100 * 1024;
const READY_WAIT_DEFAULT_MS = 120_000;
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

async function messageText(arg: string | undefined, flags: SendFlags, io: CommandIo): Promise<string> {
  const sources = [arg !== undefined, flags.messageFile !== undefined, flags.stdin === true].filter(Boolean).length;
  if (sources > 1) throw new SynapseError('usage', 'give the message once: as an argument, with --message-file, or with --stdin');
  let text = arg ?? '';
  if (flags.messageFile !== undefined) {
    try {
      text = fs.readFileSync(path.resolve(io.cwd, flags.messageFile), 'utf8');
    } catch (err) {
      throw new SynapseError('invalid_input', `cannot read --message-file ${flags.messageFile}: ${(err as Error).message}`);
    }
  }
  if (flags.stdin) text = await io.readStdin();
  if (text.trim() === '') throw new SynapseError('usage', 'the message is empty: give it as an argument, with --message-file F or with --stdin');
  return text;
}

function attachments(files: string[], io: CommandIo): Part[] {
  const limit = numberSetting(io.env, 'SYNAPSE_SEND_MESSAGE_THRESHOLD', { default: DEFAULT_ATTACH_LIMIT, integer: true, min: 0, unit: 'bytes' });
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

function responseMode(flags: SendFlags, io: CommandIo): ResponseMode {
  const chosen = [flags.wait && 'wait', flags.notify && 'notify', flags.silent && 'silent'].filter(Boolean) as ResponseMode[];
  if (chosen.length > 1) throw new SynapseError('usage', 'choose one of --wait, --notify, --silent');
  if (chosen[0]) return chosen[0];
  const flow = loadSettings(io.cwd, io.env).a2a.flow;
  return flow === 'roundtrip' ? 'wait' : flow === 'oneway' ? 'silent' : 'notify';
}

function parsePriority(raw: string | undefined): number {
  if (raw === undefined) return 3;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 5) throw new SynapseError('usage', `--priority must be 1-5, not "${raw}"`);
  return n;
}

function parseTimeoutMs(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new SynapseError('usage', `--timeout must be a number of seconds > 0, not "${raw}"`);
  return n * 1000;
}

function label(e: RegistryEntry): string {
  return e.name ? `${e.name} (${e.agent_id})` : e.agent_id;
}

function artifactText(task: Task): string {
  return task.artifacts.map((a) => a.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')).join('\n');
}

/** A one-line spinner with elapsed time on stderr, only on a TTY. */
function spinner(text: string, io: CommandIo): () => void {
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

/** POSTs the message; a 503 (an agent in the instant before it serves, or shutting down) is retried honouring Retry-After. */
async function post(target: RegistryEntry, priority: number, body: unknown, readyDeadline: number, io: CommandIo): Promise<Task> {
  let announced = false;
  for (;;) {
    const res = await requestJson<{ task?: Task; error?: { code: string; message: string } }>(`${target.endpoint}/tasks/send-priority?priority=${priority}`, {
      body,
      timeoutMs: 10_000,
    });
    if (res.status === 202 && res.body.task) return res.body.task;
    if (res.status === 503) {
      const retryS = Number(res.headers['retry-after'] ?? 1);
      const waitMs = Math.min(Math.max(retryS, 0.2) * 1000, Math.max(0, readyDeadline - Date.now()));
      if (Date.now() >= readyDeadline) throw new SynapseError('agent_not_ready', `${label(target)} was still not ready to take messages; try again later`);
      if (!announced) io.err(`waiting for ${label(target)} to be ready…\n`);
      announced = true;
      await new Promise((r) => setTimeout(r, waitMs));
      continue;
    }
    throw new SynapseError('delivery_failed', `${label(target)} refused the message: ${res.status} ${res.body.error?.message ?? JSON.stringify(res.body)}`);
  }
}

/** The agent this command speaks for: --from, $SYNAPSE_AGENT_ID, or the agent whose terminal runs it. */
function senderOf(live: RegistryEntry[], from: string | undefined, io: CommandIo): ReturnType<typeof resolveSender> {
  const sender = resolveSender(live, { ...(from ? { from } : {}), env: io.env, pid: io.parentPid });
  if (sender.warning) io.err(`warning: ${sender.warning}\n`);
  return sender;
}

/** Who sent it, as the receiving agent reads it from a message's metadata (nothing for a human). */
function senderMetadata(sender: ReturnType<typeof resolveSender>): { sender?: SenderInfo } {
  if (!sender.id) return {};
  const extra: SenderInfo = sender.entry ? { sender_type: sender.entry.agent_type, sender_endpoint: sender.entry.endpoint } : {};
  return { sender: { sender_id: sender.id, sender_name: sender.entry?.name ?? sender.id, ...extra } };
}

/** A message goes to an agent of the sender's own project unless --force says otherwise. */
function checkSameProject(live: RegistryEntry[], sender: ReturnType<typeof resolveSender>, target: RegistryEntry, cwd: string): void {
  const senderDir = sender.entry?.working_dir ?? cwd;
  if (sameProject(senderDir, target.working_dir)) return;
  const here = live.filter((e) => sameProject(e.working_dir, senderDir) && e.agent_id !== sender.id);
  const list = here.length
    ? `Agents in ${senderDir}:\n  ${here.map(label).join('\n  ')}`
    : `No agent runs in ${senderDir}; start one there with \`synapse start ${target.agent_type}\`.`;
  throw new SynapseError('working_dir_mismatch', `${label(target)} works in ${target.working_dir}, not in ${senderDir}. ${list}\nUse --force to send anyway.`);
}

/** The task the sending agent is working on now, so the answer can be tied to it (null when unknown). */
async function currentTaskOf(sender: RegistryEntry): Promise<string | null> {
  // A sender that does not answer in a second is just not asked: the message goes anyway.
  const st = await requestJson<{ current_task?: string | null }>(`${sender.endpoint}/status`, { timeoutMs: 1000 }).catch(() => null);
  return st?.body?.current_task ?? null;
}

/** `synapse send <target> [message]` (and `interrupt`, with its own defaults). */
export async function sendCommand(
  targetArg: string,
  arg: string | undefined,
  flags: SendFlags,
  io: CommandIo,
  defaults: { priority?: number; mode?: ResponseMode } = {},
): Promise<void> {
  const text = await messageText(arg, flags, io);
  const parts: Part[] = [{ type: 'text', text }, ...attachments(flags.attach ?? [], io)];
  const priority = defaults.priority ?? parsePriority(flags.priority);
  const cwd = io.cwd;
  const mode = defaults.mode ?? responseMode(flags, io);
  const timeoutMs = parseTimeoutMs(flags.timeout);

  const { entries: live, problems } = openRegistry(io.env).scanLive();
  const target = resolveTarget(live, targetArg, problems);
  const sender = senderOf(live, flags.from, io);
  if (sender.id === target.agent_id) throw new SynapseError('usage', `${label(target)} is you: an agent cannot send a message to itself`);

  if (!flags.force) checkSameProject(live, sender, target, cwd);
  const senderTaskId = sender.entry ? await currentTaskOf(sender.entry) : null;
  const taskId = randomUUID();
  if (flags.task) {
    const { createLinkedTask } = await import('../../store/board.js');
    createLinkedTask(target.working_dir, {
      subject: text.split('\n')[0]!.slice(0, 200),
      description: text,
      assignee: target.agent_id,
      a2a_task_id: taskId,
      created_by: sender.id,
      priority,
    });
  }
  const body = {
    task_id: taskId,
    message: { role: 'user', parts },
    metadata: {
      response_mode: mode,
      ...senderMetadata(sender),
      ...(senderTaskId ? { sender_task_id: senderTaskId } : {}),
      ...(flags.task ? { board_task: true } : {}),
    },
  };
  const readyDeadline = Date.now() + (timeoutMs ?? READY_WAIT_DEFAULT_MS);
  const task = await post(target, priority, body, readyDeadline, io);

  if (mode !== 'wait') {
    if (flags.json)
      io.out(`${JSON.stringify({ task_id: task.id, target: target.agent_id, status: task.status.state, receipt: task.receipt, response_mode: mode })}\n`);
    else
      io.out(
        `sent to ${label(target)}: task ${task.id.slice(0, 8)} ${task.status.state}${mode === 'notify' && sender.entry ? ' (the answer will arrive in your terminal)' : ''}\n`,
      );
    return;
  }

  const done = await waitForAnswer(target, task, timeoutMs, io);
  if (flags.json) {
    io.out(
      `${JSON.stringify({ task_id: done.id, target: target.agent_id, status: done.status.state, receipt: done.receipt, answer: artifactText(done), reply_source: done.metadata.reply_source ?? null })}\n`,
    );
  } else {
    const answer = artifactText(done);
    io.out(answer.endsWith('\n') || answer === '' ? answer : `${answer}\n`);
  }
  if (done.status.state !== 'completed') {
    io.err(`task ${done.id} ended ${done.status.state}${done.status.message ? `: ${done.status.message}` : ''}\n`);
    throw new ExitRequest(5);
  }
}

/** Follows the task over SSE until it is done; Ctrl-C stops waiting, never the task. */
async function waitForAnswer(target: RegistryEntry, task: Task, timeoutMs: number | null, io: CommandIo): Promise<Task> {
  const controller = new AbortController();
  const stop = spinner(`waiting for ${target.name ?? target.agent_id}`, io);
  let outcome = 'done' as 'done' | 'timeout' | 'interrupted';
  let finished = null as Task | null;
  const timer = timeoutMs ? setTimeout(() => ((outcome = 'timeout'), controller.abort()), timeoutMs) : undefined;
  const onSigint = () => {
    outcome = 'interrupted';
    controller.abort();
  };
  process.once('SIGINT', onSigint);
  try {
    await followSse(
      `${target.endpoint}/tasks/${task.id}/subscribe`,
      (e) => {
        if (e.event === 'done') {
          finished = (e.data as { task: Task }).task;
          return true;
        }
        return false;
      },
      { signal: controller.signal },
    );
  } finally {
    clearTimeout(timer);
    process.off('SIGINT', onSigint);
    stop();
  }
  if (finished) return finished;
  const later = `Fetch the answer later: curl -s ${target.endpoint}/tasks/${task.id}  (or synapse history show ${task.id.slice(0, 8)})`;
  if (outcome === 'timeout')
    throw new SynapseError('answer_timeout', `no answer from ${label(target)} within ${timeoutMs! / 1000} s; the task goes on. ${later}`);
  io.err(`stopped waiting; the task goes on. ${later}\n`);
  throw new ExitRequest(130);
}

/** `synapse broadcast [message]`: every other agent in this project (or everywhere with --all). */
export async function broadcastCommand(arg: string | undefined, flags: SendFlags & { type?: string; all?: boolean }, io: CommandIo): Promise<void> {
  const text = await messageText(arg, flags, io);
  const live = liveAgents(io.env);
  const sender = senderOf(live, flags.from, io);
  const dir = sender.entry?.working_dir ?? io.cwd;
  const type = flags.type ? canonicalType(flags.type) : null;
  const targets = live.filter((e) => e.agent_id !== sender.id && (flags.all || sameProject(e.working_dir, dir)) && (!type || e.agent_type === type));
  if (targets.length === 0)
    throw new SynapseError('target_not_found', `no other agent runs ${flags.all ? 'anywhere' : `in ${dir}`}${type ? ` of type ${type}` : ''}`);
  const priority = parsePriority(flags.priority);
  const mode: ResponseMode = flags.notify ? 'notify' : 'silent';
  const results = await Promise.all(
    targets.map(async (t) => {
      try {
        const task = await post(
          t,
          priority,
          {
            message: { role: 'user', parts: [{ type: 'text', text }] },
            metadata: {
              response_mode: mode,
              broadcast: true,
              ...senderMetadata(sender),
            },
          },
          Date.now() + 10_000,
          io,
        );
        return { target: t.agent_id, name: t.name, task_id: task.id, status: task.status.state, receipt: task.receipt, error: null };
      } catch (err) {
        return { target: t.agent_id, name: t.name, task_id: null, status: 'failed', receipt: null, error: (err as Error).message };
      }
    }),
  );
  if (flags.json) io.out(`${JSON.stringify(results, null, 2)}\n`);
  else
    for (const r of results)
      io.out(r.error ? `${r.target}: FAILED ${r.error}\n` : `${r.target}${r.name ? ` (${r.name})` : ''}: task ${r.task_id!.slice(0, 8)} ${r.status}\n`);
  if (results.some((r) => r.error)) throw new ExitRequest(5);
}
