import { parsePlanDialog, type PlanPrompt } from '../profiles/plan.js';
import { answerKeys, parseNumberedDialog, parseRowDialog, pickChoice, type PermissionPrompt } from '../profiles/permission.js';
import type { PermissionChoice, Profile } from '../profiles/types.js';
import { SynapseError } from '../errors.js';
import type { Clock } from '../clock.js';
import type { Injector } from './injector.js';
import type { Screen } from './screen.js';
import type { TaskManager } from './tasks.js';

/** Between two keys of one answer, so the TUI sees separate key presses. */
const KEY_GAP_MS = 40;

/**
 * The CLI's approval dialog for the task in flight: read off the screen with the profile's
 * rules, shown as the task's input-required state, and answered with the keys that pick a choice.
 */
export class ApprovalDialog {
  constructor(private readonly deps: { tasks: TaskManager; screen: Screen; injector: Injector; profile: Profile; clock: Clock }) {}

  /**
   * The CLI shows its approval dialog: the task becomes input-required with the choices, or, for
   * a plan-approval screen, with `metadata.plan {text}`.
   */
  shown(taskId: string): void {
    const task = this.deps.tasks.store.get(taskId);
    if (!task || task.status.state !== 'working') return;
    const plan = this.readPlan();
    if (plan) {
      this.deps.tasks.transition(taskId, 'input-required', { message: 'the CLI asks to approve its plan', metadata: { plan: { text: plan.text } } });
      return;
    }
    const permission = this.read() ?? { prompt: 'the CLI is waiting for an answer', choices: [], selected: null };
    this.deps.tasks.transition(taskId, 'input-required', {
      message: permission.prompt,
      metadata: { permission: { prompt: permission.prompt, choices: permission.choices } },
    });
  }

  /** The dialog left the screen: back to working (no sticky WAITING). */
  gone(taskId: string): void {
    const task = this.deps.tasks.store.get(taskId);
    if (task?.status.state === 'input-required') this.deps.tasks.transition(taskId, 'working', { metadata: { permission: null, plan: null } });
  }

  /**
   * Approves or rejects the plan on the screen with the profile's keys (reject: without feedback;
   * the caller sends the reason as the next message).
   */
  answerPlan(decision: 'approve' | 'reject'): void {
    const spec = this.deps.profile.plan;
    if (!spec || !this.readPlan()) throw new SynapseError('not_awaiting_plan', 'no plan-approval screen is on the screen any more');
    const keys = decision === 'approve' ? spec.approveKeys : spec.rejectKeys;
    keys.forEach((k, i) => this.deps.clock.setTimeout(() => this.deps.injector.keys(k), i * KEY_GAP_MS));
  }

  private readPlan(): PlanPrompt | null {
    const spec = this.deps.profile.plan;
    return spec ? parsePlanDialog(this.deps.screen.viewport(), spec) : null;
  }

  /**
   * Types the keys that select `choice` (a key such as "3", or approve/deny) in the dialog on the
   * screen; deny selects the deny option, never a bare Enter.
   */
  answer(choice: string): PermissionChoice {
    const dialog = this.read();
    if (!dialog) throw new SynapseError('conflict', 'no approval dialog is on the screen any more');
    const picked = pickChoice(dialog.choices, choice);
    if (!picked) {
      throw new SynapseError('invalid_input', `"${choice}" is not one of the choices: ${dialog.choices.map((c) => `${c.key}. ${c.label}`).join(' | ')}`);
    }
    const keys = answerKeys(this.deps.profile.permission!, dialog, picked);
    // One key per write, a little apart, so the TUI sees separate key presses.
    keys.forEach((k, i) => this.deps.clock.setTimeout(() => this.deps.injector.keys(k), i * KEY_GAP_MS));
    return picked;
  }

  private read(): PermissionPrompt | null {
    const permission = this.deps.profile.permission;
    if (!permission) return null;
    const lines = this.deps.screen.viewport();
    return permission.select === 'row'
      ? parseRowDialog(lines, permission.question, (row) => this.deps.screen.backgrounds(row))
      : parseNumberedDialog(lines, permission.question);
  }
}
