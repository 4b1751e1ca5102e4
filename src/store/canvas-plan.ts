import { randomUUID } from 'node:crypto';
import { iso, systemClock, type Clock } from '../clock.js';
import { SynapseError } from '../errors.js';
import type { BoardStore, TaskStatus } from './board-store.js';
import type { Card, CanvasStore } from './canvas.js';
import type { PlanBody, StepStatus } from './canvas-cards.js';

/**
 * Plan cards and the task board. `acceptPlan` turns a plan card's steps into board tasks (one
 * group per plan, dependencies kept) and writes each task's id back into its step; `syncPlan`
 * moves each step's status to follow its task.
 */

export interface PlanResult {
  card: Card;
  /** Steps whose task this call created (accept) or whose status it changed (sync). */
  changed: { step: string; task_id: string; status: StepStatus }[];
}

function planCard(canvas: CanvasStore, planId: string): { card: Card; plan: PlanBody } {
  const card = canvas.get(planId);
  if (card.type !== 'plan') throw new SynapseError('invalid_input', `card ${planId} is a ${card.type} card, not a plan`, { id: planId });
  return { card, plan: card.body as PlanBody };
}

/** A board task's status as the step status a plan card shows. */
function stepStatusOf(task: TaskStatus | null): StepStatus {
  switch (task) {
    case 'in_progress':
      return 'active';
    case 'completed':
      return 'completed';
    case 'failed':
    case null:
      return 'cancelled';
    default:
      return 'proposed';
  }
}

export async function acceptPlan(canvas: CanvasStore, board: BoardStore, planId: string, opts: { by: string; clock?: Clock }): Promise<PlanResult> {
  const { card, plan } = planCard(canvas, planId);
  if (plan.steps.some((s) => s.task_id)) {
    throw new SynapseError('conflict', `plan ${planId} was already accepted; run synapse tasks sync-plan ${planId} to update its steps`, { id: planId });
  }
  const open = plan.steps.filter((s) => s.status !== 'cancelled' && s.status !== 'completed');
  const ids = new Map(open.map((s) => [s.id, randomUUID()]));
  await board.createMany(
    open.map((s) => ({
      id: ids.get(s.id)!,
      subject: s.title,
      description: s.description ?? '',
      priority: s.priority ?? 3,
      blocked_by: (s.depends_on ?? []).flatMap((d) => (ids.has(d) ? [ids.get(d)!] : [])),
      plan_id: planId,
      group_id: planId,
      group_title: card.title || `plan ${planId}`,
      component: s.component ?? null,
      assignee: s.assignee ?? null,
      created_by: opts.by,
    })),
  );
  const steps = plan.steps.map((s) => (ids.has(s.id) ? { ...s, task_id: ids.get(s.id)!, status: 'proposed' as const } : s));
  const accepted_at = iso((opts.clock ?? systemClock).now());
  const { card: updated } = canvas.post({
    id: planId,
    type: 'plan',
    title: card.title,
    body: { ...plan, steps, accepted_at },
    agent_id: card.agent_id,
    tags: card.tags,
  });
  return { card: updated, changed: steps.flatMap((s) => (ids.has(s.id) ? [{ step: s.id, task_id: s.task_id!, status: 'proposed' as const }] : [])) };
}

/** Moves the plan's step states to its tasks' states; writes the card only when something moved. */
export async function syncPlan(canvas: CanvasStore, board: BoardStore, planId: string): Promise<PlanResult> {
  const { card, plan } = planCard(canvas, planId);
  if (!plan.steps.some((s) => s.task_id)) {
    throw new SynapseError('conflict', `plan ${planId} has not been accepted yet: run synapse tasks accept-plan ${planId} first`, { id: planId });
  }
  const tasks = new Map((await board.list({ plan_id: planId })).map((t) => [t.id, t.status]));
  const changed: PlanResult['changed'] = [];
  const steps = plan.steps.map((s) => {
    if (!s.task_id) return s;
    const status = stepStatusOf(tasks.get(s.task_id) ?? null);
    if (status === (s.status ?? 'proposed')) return s;
    changed.push({ step: s.id, task_id: s.task_id, status });
    return { ...s, status };
  });
  if (changed.length === 0) return { card, changed };
  const { card: updated } = canvas.post({ id: planId, type: 'plan', title: card.title, body: { ...plan, steps }, agent_id: card.agent_id, tags: card.tags });
  return { card: updated, changed };
}

/** The ids of the plan cards with steps on the board (the server syncs these when the board changes). */
export async function acceptedPlanIds(board: BoardStore): Promise<string[]> {
  return [...new Set((await board.list()).flatMap((t) => (t.plan_id ? [t.plan_id] : [])))];
}
