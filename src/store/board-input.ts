import { randomUuid } from '../uuid.js';
import { SynapseError } from '../errors.js';
import { TASK_STATUSES, type NewTask, type TaskStatus } from './board-schema.js';

/** Validation of what callers hand the board, shared by the CLI and HTTP paths. */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A NewTask after validation: every optional field filled in (null when absent). */
export type PreparedTask = { [K in keyof NewTask]-?: Exclude<NewTask[K], undefined> };

export function validateNewTask(input: NewTask): PreparedTask {
  const id = input.id === undefined ? randomUuid() : input.id.trim().toLowerCase();
  if (!UUID.test(id)) throw new SynapseError('invalid_input', `task id '${input.id}' is not a uuid`, { id: input.id });
  const priority = input.priority ?? 3;
  if (!Number.isInteger(priority) || priority < 1 || priority > 5) {
    throw new SynapseError('usage', `priority must be an integer from 1 (lowest) to 5 (highest), got ${String(input.priority)}`, { priority: input.priority });
  }
  const opt = (v: string | null | undefined, what: string) => (v === undefined || v === null || v.trim() === '' ? null : requireText(v, what, 500));
  return {
    id,
    subject: requireText(input.subject, 'subject', 500),
    description: input.description === undefined ? '' : requireText(input.description, 'description', 20_000, true),
    priority,
    created_by: opt(input.created_by, 'created_by'),
    assignee: opt(input.assignee, 'assignee'),
    blocked_by: input.blocked_by ?? [],
    group_id: opt(input.group_id, 'group_id'),
    group_title: opt(input.group_title, 'group_title'),
    plan_id: opt(input.plan_id, 'plan_id'),
    component: opt(input.component, 'component'),
    milestone: opt(input.milestone, 'milestone'),
    external_ref: opt(input.external_ref, 'external_ref'),
    a2a_task_id: opt(input.a2a_task_id, 'a2a_task_id'),
  };
}

export function requireText(value: string, what: string, max: number, allowEmpty = false): string {
  const text = typeof value === 'string' ? value.trim() : '';
  if (!allowEmpty && text.length === 0) throw new SynapseError('usage', `${what} must not be empty`);
  if (text.length > max) throw new SynapseError('invalid_input', `${what} is too long (${text.length} > ${max} characters)`);
  return text;
}

export function requireName(value: string, what: string): string {
  return requireText(value, what, 200);
}

export function parseTaskStatus(value: string): TaskStatus {
  const v = value.trim().toLowerCase().replace('-', '_') as TaskStatus;
  if (!(TASK_STATUSES as readonly string[]).includes(v)) {
    throw new SynapseError('usage', `unknown status '${value}': use one of ${TASK_STATUSES.join(', ')}`, { value });
  }
  return v;
}
