import { SynapseError } from '../errors.js';

/** Rules both history backends share: statistics helpers, search terms, what a cleanup removes. */

function median(sorted: number[]): number | null {
  if (sorted.length === 0) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
}

function rate(completed: number, total: number): number | null {
  return total > 0 ? completed / total : null;
}

/** The trimmed keywords of a search; each must hold a letter or digit. */
export function searchTerms(keywords: string[]): string[] {
  const terms = keywords.map((k) => k.trim()).filter((k) => k.length > 0);
  if (terms.length === 0 || terms.some((t) => !/[\p{L}\p{N}]/u.test(t))) {
    throw new SynapseError('usage', 'search needs keywords with letters or digits, e.g. synapse history search parser error');
  }
  return terms;
}

export function checkCleanup(options: { days?: number; maxBytes?: number }): void {
  if (options.days === undefined && options.maxBytes === undefined) throw new SynapseError('usage', 'cleanup needs --days N or --max-size MB');
}

/** An entry as a cleanup sees it, newest first. */
export interface SizedEntry {
  seq: number;
  finished_at: string;
  bytes: number;
}

/**
 * Which entries a cleanup removes: finished before `cutoff`, then the oldest of the rest beyond
 * the size budget. `ratio` is what one payload byte costs in storage (at least 1).
 */
export function pickDoomed(
  newestFirst: readonly SizedEntry[],
  cutoff: string | null,
  maxBytes: number | undefined,
  ratio: number,
): { seqs: number[]; estimatedBytes: number } {
  const seqs: number[] = [];
  let kept = 0;
  let estimated = 0;
  for (const r of newestFirst) {
    const size = r.bytes * ratio;
    const tooOld = cutoff !== null && r.finished_at < cutoff;
    const overBudget = maxBytes !== undefined && kept + size > maxBytes;
    if (tooOld || overBudget) {
      seqs.push(r.seq);
      estimated += size;
    } else {
      kept += size;
    }
  }
  return { seqs, estimatedBytes: Math.round(estimated) };
}

/** What `oneMatch` needs of a history row (either backend's). */
interface MatchRow {
  task_id: string;
  agent_id: string;
  agent_name: string | null;
  status: string;
  finished_at: unknown;
}

/**
 * The one row that a task id or prefix names among `rows` (at most 11, newest first), or the
 * error that says why not: none (`task_not_found`) or several (`ambiguous_task`, with the first 10).
 */
export function oneMatch<R extends MatchRow>(rows: R[], prefix: string, agent: string | undefined): R {
  if (rows.length === 1) return rows[0]!;
  if (rows.length === 0) {
    throw new SynapseError('task_not_found', `no task in the history matches '${prefix}'${agent ? ` for agent '${agent}'` : ''}; see synapse history list`, {
      prefix,
    });
  }
  const shown = rows.slice(0, 10).map((r) => `  ${r.task_id}  ${r.agent_name ?? r.agent_id}  ${r.status}  ${String(r.finished_at)}`);
  const sameId = rows.every((r) => r.task_id === rows[0]!.task_id);
  throw new SynapseError(
    'ambiguous_task',
    `'${prefix}' matches ${rows.length > 10 ? 'more than 10' : rows.length} entries; ${sameId ? 'add --agent to pick one' : 'use a longer prefix'}:\n${shown.join('\n')}`,
    { prefix, matches: rows.slice(0, 10).map((r) => ({ task_id: r.task_id, agent_id: r.agent_id })) },
  );
}

/**
 * Queues a finished task for writing: a later update of the same task (an explicit reply)
 * replaces the waiting one, and past `max` the oldest go. Returns how many were dropped.
 */
export function enqueueFinished<P extends { task: { id: string }; agent: { agent_id: string } }>(backlog: P[], item: P, max: number): number {
  const same = backlog.findIndex((p) => p.task.id === item.task.id && p.agent.agent_id === item.agent.agent_id);
  if (same >= 0) backlog.splice(same, 1);
  backlog.push(item);
  let dropped = 0;
  while (backlog.length > max) {
    backlog.shift();
    dropped++;
  }
  return dropped;
}

/** One agent's counts, as both history backends group them. */
interface AgentCounts {
  agent_id: string;
  total: number;
  completed: number;
  failed: number;
  canceled: number;
}

/**
 * `history stats` from what either backend counted: each agent's rates, median turn and token
 * usage, and the totals over every agent.
 */
export function summarizeAgents<A extends AgentCounts, U>(
  perAgent: A[],
  turns: Map<string, number[]>,
  allTurns: number[],
  usage: { perAgent: Map<string, U> },
) {
  const agents = perAgent.map((a) => ({
    ...a,
    success_rate: rate(a.completed, a.total),
    median_turn_ms: median(turns.get(a.agent_id) ?? []),
    usage: usage.perAgent.get(a.agent_id) ?? null,
  }));
  const sum = (k: 'total' | 'completed' | 'failed' | 'canceled') => agents.reduce((n, a) => n + a[k], 0);
  return {
    total: sum('total'),
    completed: sum('completed'),
    failed: sum('failed'),
    canceled: sum('canceled'),
    success_rate: rate(sum('completed'), sum('total')),
    median_turn_ms: median(allTurns),
    agents,
  };
}
