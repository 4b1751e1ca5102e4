import { SynapseError } from '../errors.js';
import type { BoardTask, TaskRow, TaskStatus } from './board-schema.js';

/** What both board backends share: result shapes and the words of a refusal. */

export const FINISHED: ReadonlySet<TaskStatus> = new Set(['completed', 'failed']);

/** One dependency edge as both backends read it: the task, its blocker and the blocker's status. */
export interface DepRow {
  task_id: string;
  blocked_by: string;
  status: TaskStatus;
}

/** Attaches each row's `blocked_by` ids (in the order given) and whether any of them is unfinished. */
export function attachDeps(rows: TaskRow[], deps: DepRow[]): BoardTask[] {
  const byTask = new Map<string, DepRow[]>();
  for (const d of deps) {
    const list = byTask.get(d.task_id) ?? [];
    list.push(d);
    byTask.set(d.task_id, list);
  }
  return rows.map((r) => {
    const list = byTask.get(r.id) ?? [];
    return { ...r, blocked_by: list.map((d) => d.blocked_by), blocked: list.some((d) => d.status !== 'completed') };
  });
}

export interface CompleteResult {
  task: BoardTask;
  /** Pending dependants whose last unfinished blocker was this task: claimable now. */
  unblocked: BoardTask[];
}

export interface PurgeOptions {
  statuses: TaskStatus[];
  /** Only tasks that finished (or last changed) at least this long ago. */
  olderThanMs?: number;
  dryRun?: boolean;
}

export interface PurgeResult {
  purged: BoardTask[];
  /** Tasks left in place because an unfinished task still waits for them. */
  skipped: { task: BoardTask; waiting: string[] }[];
  dry_run: boolean;
}

export function shortId(id: string): string {
  return id.slice(0, 8);
}

/** Why a claimed or finished task cannot be claimed, and by whom. */
export function refusal(task: BoardTask): SynapseError {
  const id = shortId(task.id);
  if (task.status === 'in_progress') {
    return new SynapseError('conflict', `task ${id} is already claimed by ${task.claimed_by ?? 'someone'} (since ${task.updated_at})`, {
      id: task.id,
      claimed_by: task.claimed_by,
    });
  }
  const detail = task.status === 'failed' ? `failed: ${task.fail_reason ?? 'no reason'}` : 'completed';
  return new SynapseError(
    'conflict',
    `task ${id} is already ${detail} (by ${task.claimed_by ?? 'unknown'} at ${task.completed_at ?? task.updated_at}); reopen it first`,
    {
      id: task.id,
      status: task.status,
      claimed_by: task.claimed_by,
    },
  );
}

/** A claim refused because unfinished tasks come first. */
export function blockedRefusal(id: string, blockers: TaskRow[]): SynapseError {
  const list = blockers.map((b) => `${shortId(b.id)} "${b.subject}" (${b.status}${b.claimed_by ? `, ${b.claimed_by}` : ''})`).join(', ');
  return new SynapseError('blocked', `task ${shortId(id)} is blocked by ${list}`, { id, blocked_by: blockers.map((b) => b.id) });
}

/** Completing a finished task. */
export function completeRefusal(task: BoardTask): SynapseError {
  const id = task.id;
  if (task.status === 'completed')
    return new SynapseError('conflict', `task ${shortId(id)} is already completed (at ${task.completed_at ?? task.updated_at})`, { id });
  return new SynapseError('conflict', `task ${shortId(id)} has failed (${task.fail_reason ?? 'no reason'}); reopen it before completing it`, { id });
}

export function blockedCompletion(id: string, blockers: TaskRow[]): SynapseError {
  const list = blockers.map((b) => `${shortId(b.id)} (${b.status})`).join(', ');
  return new SynapseError('blocked', `task ${shortId(id)} cannot be completed: it is blocked by ${list}`, { id });
}

export function failRefusal(task: BoardTask): SynapseError {
  return new SynapseError('conflict', `task ${shortId(task.id)} is already ${task.status} (at ${task.completed_at ?? task.updated_at}); reopen it first`, {
    id: task.id,
    status: task.status,
  });
}

export function reopenRefusal(task: BoardTask): SynapseError {
  return new SynapseError('conflict', `task ${shortId(task.id)} is already pending`, { id: task.id });
}
