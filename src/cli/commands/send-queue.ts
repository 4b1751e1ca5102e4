import { randomUUID } from 'node:crypto';
import { noteSenders } from '../../a2a/queue-notes.js';
import type { PeerTask } from '../../a2a/wire-client.js';
import type { Part, ResponseMode, TaskMetadata } from '../../agent-api/task.js';
import { envSetting } from '../../config/env-setting.js';
import type { Env } from '../../config/paths.js';
import { SynapseError } from '../../errors.js';
import { secretRedactor } from '../../redact.js';
import { findProfile } from '../../profiles/index.js';
import type { RegistryEntry } from '../../registry/entry.js';
import { liveAgents } from '../../registry/lookup.js';
import { sameProject } from '../../registry/project.js';
import { canonicalType } from '../../registry/targets.js';
import type { MessageQueue, QueuedMessage, TargetKind } from '../../store/message-queue.js';
import { ExitRequest } from '../exit.js';
import type { CommandIo } from '../io.js';
import { attachments, currentTaskOf, label, senderMetadata, senderOf, spinner, waitForAnswer } from './send-common.js';

/** What `synapse send` passes on when its target is not running. */
export interface QueueOptions {
  priority: number;
  mode: ResponseMode;
  timeoutMs: number | null;
  attach?: string[];
  from?: string;
  task?: boolean | string;
  coordination?: boolean;
  json?: boolean;
  /** `--queue` was given: any target may wait; without it only a saved agent or a name seen here. */
  explicit: boolean;
}

export interface QueuedSend {
  message: QueuedMessage;
  /** With `--wait`: the task once the agent that took it finished it (its artifact is the answer). */
  done: PeerTask | null;
  answeredBy: Pick<RegistryEntry, 'agent_id' | 'name' | 'endpoint'> | null;
}

/** How the target is named in the queue, and why it may wait. */
interface QueueTarget {
  kind: TargetKind;
  key: string;
  reason: string;
}

const POLL_MS = 250;
/** Names are shown in lists and typed into notes: no controls, a sane length. */
const MAX_TARGET = 200;

/** Whether an agent with this custom name finished tasks in this project (the user's history says). */
async function seenInProject(name: string, projectDir: string, env: Env): Promise<boolean> {
  const { openExistingHistory } = await import('../../store/history-open.js');
  const history = await openExistingHistory(projectDir, { env });
  if (!history) return false;
  try {
    return (await history.workingDirsOfName(name)).some((dir) => sameProject(dir, projectDir));
  } finally {
    await history.close();
  }
}

/**
 * Whether (and as what) a target that is not running may wait: a saved agent (by id or name: its
 * name), or a name seen in this project, always; with `--queue` anything: an agent id
 * (`synapse-claude-8100`, or `claude-8100`), a profile type (the next agent of that type), or a name.
 */
async function queueTarget(query: string, projectDir: string, io: CommandIo, explicit: boolean): Promise<QueueTarget | null> {
  const q = query.trim();
  if (q === '' || q.length > MAX_TARGET || /\p{Cc}/u.test(q))
    throw new SynapseError('invalid_input', `a target name must be 1-${MAX_TARGET} printable characters`);
  const { findSavedAgent } = await import('../../team/saved-agents.js');
  const saved = findSavedAgent(q, io.cwd, io.env);
  if (saved) return { kind: 'name', key: saved.name, reason: `saved agent ${saved.id}` };
  if (await seenInProject(q, projectDir, io.env)) return { kind: 'name', key: q, reason: 'a name seen in this project' };
  if (!explicit) return null;
  if (/^synapse-[a-z][a-z0-9_-]*-\d+$/i.test(q)) return { kind: 'id', key: q, reason: '--queue' };
  const typePort = /^([a-z][a-z0-9_-]*)-(\d+)$/i.exec(q);
  if (typePort && findProfile(typePort[1]!)) return { kind: 'id', key: `synapse-${canonicalType(typePort[1]!)}-${typePort[2]}`, reason: '--queue' };
  if (findProfile(q)) return { kind: 'type', key: canonicalType(q), reason: '--queue' };
  return { kind: 'name', key: q, reason: '--queue' };
}

/** "an agent named reviewer" / "an agent of type claude" / "synapse-claude-8100". */
function whoTakesIt(t: { kind: TargetKind; key: string }): string {
  return t.kind === 'name' ? `an agent named ${t.key}` : t.kind === 'type' ? `an agent of type ${t.key}` : t.key;
}

/** Expires what is past its TTL and tells the senders that run now (the sender of this one may be among them). */
async function expireDue(queue: MessageQueue, env: Env): Promise<void> {
  const expired = queue.expireDue();
  if (expired.length > 0) queue.noted(await noteSenders(expired, { env, live: liveAgents(env) }));
}

/**
 * The target is not running: leave the message in the project's queue, for the agent that has the
 * name (id, type) when it next reaches READY (issue 21 §2). Prints "queued for NAME (not running)"
 * (or a JSON receipt); with `--wait`, waits for the delivery and the answer and returns it.
 * `notFound` is the resolution error: it is what a target that may not wait ends with.
 */
export async function queueForAbsent(targetArg: string, text: string, opts: QueueOptions, notFound: SynapseError, io: CommandIo): Promise<QueuedSend> {
  const parts: Part[] = [{ type: 'text', text }, ...attachments(opts.attach ?? [], io)];
  const live = liveAgents(io.env);
  const sender = senderOf(live, opts.from, io);
  const projectDir = sender.entry?.working_dir ?? envSetting(io.env, 'SYNAPSE_PROJECT_DIR') ?? io.cwd;
  const target = await queueTarget(targetArg, projectDir, io, opts.explicit);
  if (!target)
    throw new SynapseError(
      'target_not_found',
      `${notFound.message}\nTo leave it a message that waits until an agent named ${targetArg.trim()} starts in this project, add --queue.`,
      notFound.details,
    );

  const taskId = randomUUID();
  // What is kept (the board, the queue's preview, the text once delivered) has credentials redacted (issue 21 §4).
  const redact = secretRedactor(io.env);
  const stand = { agent_id: target.key, name: target.kind === 'name' ? target.key : null, working_dir: projectDir };
  const { applyBoardLink, boardLinkFor } = await import('./delegate-link.js');
  const link = await boardLinkFor(opts.coordination ? null : sender.entry, stand, opts.task, text, targetArg, io.env);
  await applyBoardLink(link, projectDir, { a2aTaskId: taskId, text, assignee: target.key, createdBy: sender.id, priority: opts.priority }, io.env);
  const senderTaskId = sender.entry ? await currentTaskOf(sender.entry, io.env) : null;
  const metadata: TaskMetadata = {
    response_mode: opts.mode,
    ...senderMetadata(sender),
    ...(senderTaskId ? { sender_task_id: senderTaskId } : {}),
    ...(link.kind !== 'none' ? { board_task: true } : {}),
  };

  const { MessageQueue } = await import('../../store/message-queue.js');
  const queue = MessageQueue.forProject(projectDir, { redact });
  try {
    await expireDue(queue, io.env);
    const { message, waiting } = enqueueOrReceipt(queue, opts.json === true, io, {
      id: taskId,
      target: targetArg.trim(),
      target_kind: target.kind,
      target_key: target.key,
      sender: metadata.sender ?? null,
      priority: opts.priority,
      message: { role: 'user', parts },
      metadata,
      ttlMs: envSetting(io.env, 'SYNAPSE_QUEUE_TTL') * 1000,
      maxPerSender: envSetting(io.env, 'SYNAPSE_MAX_QUEUED_PER_SENDER'),
    });
    const receipt = {
      task_id: message.id,
      target: message.target,
      status: 'queued',
      receipt: 'waiting_for_agent',
      response_mode: opts.mode,
      queued: {
        target_kind: target.kind,
        target_key: target.key,
        reason: target.reason,
        waiting,
        expires_at: message.expires_at,
        queued_at: message.created_at,
      },
    };
    const line = `queued for ${message.target} (not running): task ${message.id.slice(0, 8)} waits until ${whoTakesIt(target)} starts in this project (${waiting} waiting; expires ${message.expires_at})`;
    if (opts.mode !== 'wait') {
      if (opts.json) io.out(`${JSON.stringify(receipt)}\n`);
      else io.out(`${line}${opts.mode === 'notify' && sender.entry ? '; the answer will arrive in your terminal' : ''}\n`);
      return { message, done: null, answeredBy: null };
    }
    io.err(`${line}\n`);
    return await waitForDelivery(queue, message, opts, io, receipt);
  } finally {
    queue.close();
  }
}

/** Enqueues; a refusal for backpressure is a receipt too: `--json` prints it before the error ends the command. */
function enqueueOrReceipt(
  queue: MessageQueue,
  json: boolean,
  io: CommandIo,
  input: Parameters<MessageQueue['enqueue']>[0],
): ReturnType<MessageQueue['enqueue']> {
  try {
    return queue.enqueue(input);
  } catch (err) {
    if (json && err instanceof SynapseError && err.code === 'queue_full')
      io.out(`${JSON.stringify({ task_id: null, target: input.target, status: 'refused', receipt: 'queue_full', ...err.details })}\n`);
    throw err;
  }
}

/**
 * `--wait` on a queued message: until an agent takes it (then its answer, over SSE as for any
 * send), it expires or is refused (exit 5, `message_expired`, with why), or `--timeout` passes
 * (exit 6; the message stays queued). Ctrl-C stops waiting; the message stays queued.
 */
async function waitForDelivery(queue: MessageQueue, queued: QueuedMessage, opts: QueueOptions, io: CommandIo, receipt: object): Promise<QueuedSend> {
  const started = Date.now();
  const deadline = opts.timeoutMs === null ? Infinity : started + opts.timeoutMs;
  const stop = spinner(`waiting for ${queued.target} to start`, io);
  let interrupted = false;
  const onSigint = () => (interrupted = true);
  process.once('SIGINT', onSigint);
  let now: QueuedMessage = queued;
  try {
    while (now.state === 'waiting' || now.state === 'claimed') {
      if (interrupted) {
        io.err(`stopped waiting; the message stays queued for ${queued.target} until ${queued.expires_at} (synapse status ${queued.target})\n`);
        throw new ExitRequest(130);
      }
      if (Date.now() >= deadline) {
        if (opts.json) io.out(`${JSON.stringify(receipt)}\n`);
        throw new SynapseError(
          'answer_timeout',
          `${queued.target} did not start within ${opts.timeoutMs! / 1000} s; the message stays queued until ${queued.expires_at} (synapse status ${queued.target})`,
          { task_id: queued.id },
        );
      }
      if (Date.parse(now.expires_at) <= Date.now()) await expireDue(queue, io.env);
      await new Promise((r) => setTimeout(r, Math.min(POLL_MS, Math.max(0, deadline - Date.now()))));
      now = queue.get(queued.id) ?? now;
    }
  } finally {
    process.off('SIGINT', onSigint);
    stop();
  }
  if (now.state !== 'delivered') {
    if (opts.json) io.out(`${JSON.stringify({ ...receipt, status: now.state, receipt: now.state, note: now.note })}\n`);
    throw new SynapseError(
      'message_expired',
      `your message to ${queued.target} (task ${queued.id.slice(0, 8)}) ${now.state === 'refused' ? 'was refused' : 'expired'}: ${now.note ?? 'no reason given'}`,
      {
        task_id: queued.id,
        state: now.state,
      },
    );
  }
  const agent = liveAgents(io.env).find((e) => e.agent_id === now.delivered_to) ?? {
    agent_id: now.delivered_to!,
    name: null,
    endpoint: now.delivered_endpoint!,
  };
  io.err(`delivered to ${label(agent)}\n`);
  const left = deadline === Infinity ? null : Math.max(1, deadline - Date.now());
  const done = await waitForAnswer(agent, queued.id, left, io);
  return { message: now, done, answeredBy: agent };
}
