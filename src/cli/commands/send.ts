import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { requestJson } from '../../a2a/http-json.js';
import { apiKeyHeaders } from '../../config/auth-keys.js';
import { peerTls } from '../../a2a/peer-tls.js';
import { parsePeerTask, peerTaskText, type PeerTask } from '../../a2a/wire-client.js';
import type { Part, ResponseMode } from '../../agent-api/task.js';
import { loadSettings } from '../../config/settings.js';
import { SynapseError } from '../../errors.js';
import { writtenByOriginal, type RegistryEntry } from '../../registry/entry.js';
import { liveAgents } from '../../registry/lookup.js';
import { sameProject, sameWorkingDir } from '../../registry/project.js';
import type { resolveSender } from '../../registry/sender.js';
import { isOfType, resolveTarget } from '../../registry/targets.js';
import { ExitRequest } from '../exit.js';
import type { CommandIo } from '../io.js';
import { checkReachable, checkRemoteProject, remoteSender } from './send-remote.js';
import { attachments, currentTaskOf, label, senderMetadata, senderOf, waitForAnswer } from './send-common.js';

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
  /** `-T, --task [id]`: create a linked board task (true), or link this existing one. */
  task?: boolean | string;
  /**
   * `--queue` (true): a target that is not running gets the message when it starts; `--no-queue`
   * (false): it is an error (exit 3). Unset: queued for a saved agent or a name seen in this project.
   */
  queue?: boolean;
}

const READY_WAIT_DEFAULT_MS = 120_000;
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

export function parseTimeoutMs(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new SynapseError('usage', `--timeout must be a number of seconds > 0, not "${raw}"`);
  return n * 1000;
}

/** What a refusal says: ours `{error: {message}}`, the original's `{detail}`. */
function refusal(body: unknown): string {
  const b = (typeof body === 'object' && body !== null ? body : {}) as { error?: { message?: unknown }; detail?: unknown };
  if (typeof b.error?.message === 'string') return b.error.message;
  if (typeof b.detail === 'string') return b.detail;
  return JSON.stringify(body);
}

/**
 * The target's inbox already holds as many of this sender's messages as it takes
 * (`SYNAPSE_MAX_QUEUED_PER_SENDER`): not retried here, the sender decides. The error carries the
 * queue depth the target reported; `send --json` prints it as a receipt.
 */
function queueFull(target: RegistryEntry, body: unknown, retryAfter: string | string[] | undefined): SynapseError {
  const details = (body as { error?: { details?: Record<string, unknown> } } | null)?.error?.details ?? {};
  const after = Number(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
  const queued = typeof details.queued === 'number' ? details.queued : null;
  const limit = typeof details.limit === 'number' ? details.limit : null;
  return new SynapseError(
    'queue_full',
    `${label(target)} did not queue the message: ${queued ?? 'too many'} of your messages are waiting in its inbox${limit !== null ? ` (limit ${limit})` : ''}; send it again in ${Number.isFinite(after) ? after : 5} s, or once it has caught up`,
    { target: target.agent_id, queued, limit, retry_after: Number.isFinite(after) ? after : null },
  );
}

/** Seconds from a Retry-After header (delta-seconds); 1 when absent or a date. */
function retryAfterMs(header: string | string[] | undefined): number {
  const s = Number(Array.isArray(header) ? header[0] : header);
  return Number.isFinite(s) && s >= 0 ? Math.max(s, 0.2) * 1000 : 1000;
}

/** How many times a send whose connection broke is sent again (with its idempotency key). */
const NETWORK_RETRIES = 3;
/** Connection failures after which the request may have arrived: a retry is only safe with a key. */
const MAYBE_ARRIVED = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED']);

/** The request may have reached an agent of ours, which takes `Idempotency-Key`: send it again. */
function retryableBreak(err: unknown, target: RegistryEntry): boolean {
  const errno = err instanceof SynapseError && err.code === 'agent_unreachable' ? err.details?.errno : null;
  // The original Python Synapse does not read the key: a second POST there could be a second task.
  return typeof errno === 'string' && MAYBE_ARRIVED.has(errno) && !writtenByOriginal(target);
}

/**
 * POSTs the message and reads the task from `{task: …}` (the original answers 200, ours 202,
 * and 200 for a send whose `Idempotency-Key` it has seen: the first task).
 * Retried until `deadline`, honouring Retry-After: our 503 (an agent in the instant before it
 * serves, or shutting down; one that starts takes the message) and the original's 409 with
 * Retry-After (it takes one task at a time: "Agent already has a working task"). A connection
 * that breaks after the request went out (reset, timeout) is retried too, a few times, with the
 * same `idempotencyKey`: the agent answers with the task the first attempt made, never a second one.
 */
async function post(target: RegistryEntry, priority: number, body: unknown, deadline: number, io: CommandIo, idempotencyKey: string): Promise<PeerTask> {
  let announced = false;
  let breaks = 0;
  for (;;) {
    let res;
    try {
      res = await requestJson(`${target.endpoint}/tasks/send-priority?priority=${priority}`, {
        body,
        timeoutMs: 10_000,
        headers: { ...apiKeyHeaders(io.env), 'idempotency-key': idempotencyKey },
        tls: peerTls(io.env),
      });
    } catch (err) {
      if (!retryableBreak(err, target) || ++breaks > NETWORK_RETRIES || Date.now() >= deadline) throw err;
      io.err(`the connection to ${label(target)} broke (${(err as Error).message}); sending again with the same idempotency key…\n`);
      await new Promise((r) => setTimeout(r, Math.min(250 * breaks, Math.max(0, deadline - Date.now()))));
      continue;
    }
    const task = res.status >= 200 && res.status < 300 ? parsePeerTask((res.body as { task?: unknown } | null)?.task) : null;
    if (task) return task;
    const busy = res.status === 409 && res.headers['retry-after'] !== undefined;
    if (res.status === 429) throw queueFull(target, res.body, res.headers['retry-after']);
    if (res.status !== 503 && !busy) throw new SynapseError('delivery_failed', `${label(target)} refused the message: ${res.status} ${refusal(res.body)}`);
    if (Date.now() >= deadline) {
      const why = busy ? `still busy with another task (${refusal(res.body)})` : 'still not ready to take messages';
      throw new SynapseError('agent_not_ready', `${label(target)} was ${why}; try again later${busy ? ', or interrupt it with --priority 5' : ''}`);
    }
    if (!announced) io.err(busy ? `${label(target)} is busy with another task; waiting to deliver…\n` : `waiting for ${label(target)} to be ready…\n`);
    announced = true;
    await new Promise((r) => setTimeout(r, Math.min(retryAfterMs(res.headers['retry-after']), Math.max(0, deadline - Date.now()))));
  }
}

/**
 * A message goes to an agent of the sender's own working directory unless --force says
 * otherwise. Worktrees of one repository share a project (its board, locks, memory) but not a
 * working tree: a message across them needs --force too, and the error says that is the reason.
 */
function checkSameProject(live: RegistryEntry[], sender: ReturnType<typeof resolveSender>, target: RegistryEntry, cwd: string): void {
  const senderDir = sender.entry?.working_dir ?? cwd;
  if (sameWorkingDir(senderDir, target.working_dir)) return;
  const here = live.filter((e) => sameWorkingDir(e.working_dir, senderDir) && e.agent_id !== sender.id);
  const list = here.length
    ? `Agents in ${senderDir}:\n  ${here.map(label).join('\n  ')}`
    : `No agent runs in ${senderDir}; start one there with \`synapse start ${target.agent_type}\`.`;
  const where = sameProject(senderDir, target.working_dir)
    ? `${label(target)} works in another worktree of this repository (${target.working_dir}, not ${senderDir}); sends across worktrees need --force.`
    : `${label(target)} works in ${target.working_dir}, not in ${senderDir}.`;
  throw new SynapseError('working_dir_mismatch', `${where} ${list}\nUse --force to send anyway.`);
}

/** How one message goes: what `synapse send` takes besides the text (the workflow runner sends with it too). */
export interface DeliveryOptions {
  priority: number;
  /** Default: the settings' a2a.flow, as `synapse send` without --wait/--notify/--silent. */
  mode?: ResponseMode;
  timeoutMs: number | null;
  attach?: string[];
  from?: string;
  force?: boolean;
  /** Create a linked board task (true), or link this existing one (its id or prefix). */
  task?: boolean | string;
  /** `synapse interrupt`: a manager in delegate mode may interrupt without a board task (it hands out no work). */
  coordination?: boolean;
  /** `--json`: a backpressure refusal is printed as a JSON receipt before the error. */
  json?: boolean;
  /** With mode `wait`: false leaves following the task to the caller (`synapse shell` follows several at once). */
  follow?: boolean;
}

export interface Delivery {
  target: RegistryEntry;
  mode: ResponseMode;
  /** The task as the target took it. */
  task: PeerTask;
  /** With mode `wait`: the finished task (its artifact is the answer); otherwise null. */
  done: PeerTask | null;
  /** Whether it went from an agent (a `notify` answer arrives in that agent's terminal). */
  fromAgent: boolean;
}

/**
 * Resolves the target, checks the project, posts the message and, with mode `wait`, follows the
 * task to its end. Errors are `SynapseError`s with the codes `synapse send` exits by.
 */
export async function deliverMessage(targetArg: string, text: string, opts: DeliveryOptions, io: CommandIo): Promise<Delivery> {
  const parts: Part[] = [{ type: 'text', text }, ...attachments(opts.attach ?? [], io)];
  const { priority, timeoutMs } = opts;
  const mode = opts.mode ?? responseMode({}, io);

  // This host's agents and, with a PostgreSQL store, every other host's (store/discovery.ts).
  const { discoverAgents } = await import('../../store/discovery.js');
  const found = await discoverAgents(io.cwd, io.env);
  if (found.remoteError) io.err(`warning: agents on other hosts cannot be found now: ${found.remoteError}\n`);
  const target = resolveTarget(found.entries, targetArg, found.problems);
  // The sender is always of this host (its pid is an ancestor of this process, or it is named here).
  const live = found.entries.filter((e) => !e.remote);
  const sender = senderOf(live, opts.from, io);
  if (sender.id === target.agent_id) throw new SynapseError('usage', `${label(target)} is you: an agent cannot send a message to itself`);
  const senderDir = sender.entry?.working_dir ?? io.cwd;
  if (target.remote) checkReachable(target);
  if (!opts.force) {
    if (target.remote) checkRemoteProject(target, senderDir);
    else checkSameProject(live, sender, target, io.cwd);
  }
  // A remote agent's directory is another machine's: the board is the one this side's project names.
  const boardDir = target.remote ? senderDir : target.working_dir;
  const { applyBoardLink, boardLinkFor } = await import('./delegate-link.js');
  const link = await boardLinkFor(opts.coordination ? null : sender.entry, { ...target, working_dir: boardDir }, opts.task, text, targetArg, io.env);
  const senderTaskId = sender.entry ? await currentTaskOf(sender.entry, io.env) : null;
  const taskId = randomUUID();
  await applyBoardLink(link, boardDir, { a2aTaskId: taskId, text, assignee: target.agent_id, createdBy: sender.id, priority }, io.env);
  const body = {
    task_id: taskId,
    message: { role: 'user', parts },
    metadata: {
      response_mode: mode,
      ...remoteSender(senderMetadata(sender), target, io.env, (line) => io.err(line)),
      ...(senderTaskId ? { sender_task_id: senderTaskId } : {}),
      ...(link.kind !== 'none' ? { board_task: true } : {}),
    },
  };
  const readyDeadline = Date.now() + (timeoutMs ?? READY_WAIT_DEFAULT_MS);
  // One idempotency key per invocation (the task id): every retry of this send carries it.
  const task = await post(target, priority, body, readyDeadline, io, taskId).catch((err: unknown) => {
    // A refusal for backpressure is a receipt too: --json prints it before the error ends the command.
    if (opts.json && err instanceof SynapseError && err.code === 'queue_full')
      io.out(`${JSON.stringify({ task_id: null, target: target.agent_id, status: 'refused', receipt: 'queue_full', ...err.details })}\n`);
    throw err;
  });
  const done = mode === 'wait' && opts.follow !== false ? await waitForAnswer(target, task.id, timeoutMs, io) : null;
  return { target, mode, task, done, fromAgent: Boolean(sender.entry) };
}

/** `synapse send <target> [message]` (and `interrupt`, with its own defaults). */
export async function sendCommand(
  targetArg: string,
  arg: string | undefined,
  flags: SendFlags,
  io: CommandIo,
  defaults: { priority?: number; mode?: ResponseMode; coordination?: boolean; queue?: false } = {},
): Promise<void> {
  const text = await messageText(arg, flags, io);
  const options: DeliveryOptions & { mode: ResponseMode } = {
    priority: defaults.priority ?? parsePriority(flags.priority),
    mode: defaults.mode ?? responseMode(flags, io),
    timeoutMs: parseTimeoutMs(flags.timeout),
    ...(flags.attach ? { attach: flags.attach } : {}),
    ...(flags.from !== undefined ? { from: flags.from } : {}),
    ...(flags.force ? { force: true } : {}),
    ...(flags.task !== undefined ? { task: flags.task } : {}),
    ...(defaults.coordination ? { coordination: true } : {}),
    ...(flags.json ? { json: true } : {}),
  };
  let delivery: Delivery;
  try {
    delivery = await deliverMessage(targetArg, text, options, io);
  } catch (err) {
    // Not running: the message may wait for it in the project's queue (issue 21 §2).
    const queue = defaults.queue ?? flags.queue;
    if (!(err instanceof SynapseError && err.code === 'target_not_found') || queue === false) throw err;
    const { queueForAbsent } = await import('./send-queue.js');
    const queued = await queueForAbsent(targetArg, text, { ...options, explicit: queue === true }, err, io);
    if (queued.done) printAnswer(queued.done, queued.answeredBy!.agent_id, flags, io);
    return;
  }
  const { target, mode, task, done, fromAgent } = delivery;

  if (!done) {
    if (flags.json)
      io.out(`${JSON.stringify({ task_id: task.id, target: target.agent_id, status: task.status, receipt: task.receipt, response_mode: mode })}\n`);
    else
      io.out(
        `sent to ${label(target)}: task ${task.id.slice(0, 8)} ${task.status}${mode === 'notify' && fromAgent ? ' (the answer will arrive in your terminal)' : ''}\n`,
      );
    return;
  }
  printAnswer(done, target.agent_id, flags, io);
}

/** `--wait`: the answer on stdout (or the receipt with it, as JSON); exit 5 when the task did not complete. */
function printAnswer(done: PeerTask, targetId: string, flags: SendFlags, io: CommandIo): void {
  const answer = peerTaskText(done);
  if (flags.json) {
    const replySource = typeof done.metadata.reply_source === 'string' ? done.metadata.reply_source : null;
    io.out(
      `${JSON.stringify({ task_id: done.id, target: targetId, status: done.status, receipt: done.receipt, answer, error: done.error, reply_source: replySource })}\n`,
    );
  } else {
    io.out(answer.endsWith('\n') || answer === '' ? answer : `${answer}\n`);
  }
  if (done.status !== 'completed') {
    const why = done.error ? `${done.error.code} - ${done.error.message}` : done.status_message;
    io.err(`task ${done.id} ended ${done.status}${why ? `: ${why}` : ''}\n`);
    throw new ExitRequest(5);
  }
}

/** `synapse broadcast [message]`: every other agent in this project (or everywhere with --all). */
export async function broadcastCommand(arg: string | undefined, flags: SendFlags & { type?: string; all?: boolean }, io: CommandIo): Promise<void> {
  const text = await messageText(arg, flags, io);
  const live = liveAgents(io.env);
  const sender = senderOf(live, flags.from, io);
  const dir = sender.entry?.working_dir ?? io.cwd;
  const targets = live.filter((e) => e.agent_id !== sender.id && (flags.all || sameWorkingDir(e.working_dir, dir)) && (!flags.type || isOfType(e, flags.type)));
  if (targets.length === 0)
    throw new SynapseError('target_not_found', `no other agent runs ${flags.all ? 'anywhere' : `in ${dir}`}${flags.type ? ` of type ${flags.type}` : ''}`);
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
          randomUUID(),
        );
        return { target: t.agent_id, name: t.name, task_id: task.id, status: task.status, receipt: task.receipt, error: null };
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
