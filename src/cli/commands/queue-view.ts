import { envSetting } from '../../config/env-setting.js';
import { SynapseError } from '../../errors.js';
import { findProfile } from '../../profiles/index.js';
import type { RegistryEntry } from '../../registry/entry.js';
import { projectRoot } from '../../registry/project.js';
import { canonicalType, isOfType } from '../../registry/targets.js';
import { MessageQueue, type Claimant, type QueuedMessage, type WaitingSummary } from '../../store/message-queue.js';
import { findSavedAgent } from '../../team/saved-agents.js';
import type { CommandIo } from '../io.js';
import { preview } from '../table.js';

/*
 * What `synapse list` and `synapse status` show of the project's queue of messages for agents
 * that are not running (issue 21 §2). Reading creates no queue file.
 */

function claimant(e: RegistryEntry): Claimant {
  return { agent_id: e.agent_id, name: e.name, types: [...new Set([e.agent_type, canonicalType(e.agent_type)])] };
}

/** `fn` over the project's queue, or `none` when nothing was ever queued there. */
function withQueue<T>(projectDir: string, none: T, fn: (q: MessageQueue) => T): T {
  const queue = MessageQueue.openExisting(projectDir);
  if (!queue) return none;
  try {
    return fn(queue);
  } finally {
    queue.close();
  }
}

/** How many messages wait in its project's queue for a running agent (they go into its inbox at its next pickup). */
export function waitingForAgent(entry: RegistryEntry): number {
  try {
    return withQueue(entry.working_dir, 0, (q) => q.waitingFor(claimant(entry)));
  } catch {
    // An unreadable queue file is `status`'s to report, not `list`'s: nothing counted.
    return 0;
  }
}

export interface WaitingTarget extends WaitingSummary {
  /** The project (its main checkout) whose queue holds the messages. */
  project: string;
  /** Whether an agent that takes them runs now (it takes them at its next READY). */
  running: boolean;
}

/** Every target messages wait for, in the projects of this directory and of the running agents. */
export function waitingTargets(live: RegistryEntry[], io: CommandIo): WaitingTarget[] {
  const here = envSetting(io.env, 'SYNAPSE_PROJECT_DIR') ?? io.cwd;
  const projects = new Map<string, string>();
  for (const dir of [here, ...live.map((e) => e.working_dir)]) {
    const root = projectRoot(dir);
    if (!projects.has(root)) projects.set(root, dir);
  }
  const out: WaitingTarget[] = [];
  for (const [root, dir] of projects)
    for (const w of withQueue(dir, [] as WaitingSummary[], (q) => q.waiting())) {
      const running = live.some(
        (e) =>
          projectRoot(e.working_dir) === root &&
          (w.target_kind === 'name' ? e.name === w.target_key : w.target_kind === 'id' ? e.agent_id === w.target_key : isOfType(e, w.target_key)),
      );
      out.push({ ...w, project: root, running });
    }
  return out;
}

/** `synapse list`: the lines under the table for messages that wait, or '' when none do. */
export function waitingSection(targets: WaitingTarget[]): string {
  if (targets.length === 0) return '';
  const lines = targets.map(
    (w) =>
      `  ${preview(w.target_key, 40)} (${w.target_kind})  ${w.waiting} waiting since ${w.oldest_at}, next expiry ${w.next_expiry_at}${w.running ? '  (running: taken at its next READY)' : ''}`,
  );
  return `Messages waiting for agents that are not running (synapse status <name>):\n${lines.join('\n')}\n`;
}

/** The names, ids and types a query may have been queued under (as `send --queue` files it). */
function keysOf(query: string, io: CommandIo): string[] {
  const q = query.trim();
  const keys = new Set([q]);
  try {
    const saved = findSavedAgent(q, io.cwd, io.env);
    if (saved) keys.add(saved.name);
  } catch {
    // Two saved agents of that name: the query itself is all there is to look for.
  }
  if (findProfile(q)) keys.add(canonicalType(q));
  const typePort = /^([a-z][a-z0-9_-]*)-(\d+)$/i.exec(q);
  if (typePort && findProfile(typePort[1]!)) keys.add(`synapse-${canonicalType(typePort[1]!)}-${typePort[2]}`);
  return [...keys];
}

/** A queued message as `status --json` shows it. */
function shown(m: QueuedMessage, now: number) {
  // Past its TTL but not yet marked (nobody looked since): it is expired all the same.
  const state = m.state === 'waiting' && Date.parse(m.expires_at) <= now ? 'expired' : m.state;
  return {
    task_id: m.id,
    state,
    target: m.target,
    target_kind: m.target_kind,
    target_key: m.target_key,
    sender_id: m.sender_id,
    sender_name: m.sender_name,
    queued_at: m.created_at,
    expires_at: m.expires_at,
    preview: m.preview,
    delivered_to: m.delivered_to,
    delivered_at: m.delivered_at,
    note: state === 'expired' && !m.note ? 'past its TTL (SYNAPSE_QUEUE_TTL)' : m.note,
    sender_noted: m.sender_noted_at !== null,
  };
}

/**
 * `synapse status <target>` for a target that is not running but has messages in this project's
 * queue: they, and whether each waits, was delivered, expired or was refused. Null when none
 * were ever left for it (then `status` says the target is not found, as before).
 */
export function absentStatus(query: string, io: CommandIo): { text: string; json: object } | null {
  const dir = envSetting(io.env, 'SYNAPSE_PROJECT_DIR') ?? io.cwd;
  const messages = withQueue(dir, [] as QueuedMessage[], (q) => q.forKeys(keysOf(query, io), 20));
  if (messages.length === 0) return null;
  const now = Date.now();
  const list = messages.map((m) => shown(m, now));
  const waiting = list.filter((m) => m.state === 'waiting' || m.state === 'claimed');
  const json = { target: query.trim(), running: false, waiting_messages: waiting.length, queued_messages: list };
  const clean = (s: string | null, n: number) => preview((s ?? '').replace(/\p{Cc}/gu, ' '), n);
  const lines = [
    `${clean(query.trim(), 60)}  not running`,
    `  waiting      ${waiting.length} message(s)${waiting[0] ? `, the first expires ${waiting[0].expires_at}` : ''}`,
    ...list.map(
      (m) =>
        `  ${m.task_id.slice(0, 8)} ${m.state.padEnd(9)} ${m.queued_at}  from ${clean(m.sender_name ?? m.sender_id ?? 'a person', 30)}  "${clean(m.preview, 50)}"` +
        (m.delivered_to ? `  -> ${m.delivered_to}` : '') +
        (m.note && m.state !== 'delivered' ? `  (${clean(m.note, 80)})` : ''),
    ),
  ];
  return { text: `${lines.join('\n')}\n`, json };
}

/** True for the error `status` gives a target that is not running. */
export function isNotFound(err: unknown): boolean {
  return err instanceof SynapseError && err.code === 'target_not_found';
}
