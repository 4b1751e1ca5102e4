import { parsePlanDialog, type PlanPrompt } from '../profiles/plan.js';
import { answerKeys, parseNumberedDialog, parseRowDialog, pickChoice, type PermissionPrompt } from '../profiles/permission.js';
import type { PermissionChoice, PlanSpec, Profile } from '../profiles/types.js';
import { SynapseError } from '../errors.js';
import type { Clock } from '../clock.js';
import type { Injector } from './injector.js';
import type { Screen } from './screen.js';
import type { TaskManager } from './tasks.js';

/** Between two keys of one answer, so the TUI sees separate key presses. */
const KEY_GAP_MS = 40;
/** How often, and how long, a plan rejection waits for the reject choice to show selected. */
const CONFIRM_POLL_MS = 50;
const CONFIRM_WAIT_MS = 5000;

/**
 * The CLI's approval dialog for the task in flight: read off the screen with the profile's
 * rules, shown as the task's input-required state, and answered with the keys that pick a choice.
 */
export class ApprovalDialog {
  /** The task whose plan was just answered: until its screen leaves, a second answer is refused (its keys would land in the prompt). */
  private planAnswered: string | null = null;

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
    if (this.planAnswered === taskId) this.planAnswered = null;
    const task = this.deps.tasks.store.get(taskId);
    if (task?.status.state === 'input-required') this.deps.tasks.transition(taskId, 'working', { metadata: { permission: null, plan: null } });
  }

  /**
   * Approves or rejects the plan on the screen with the profile's keys (reject: without feedback;
   * the caller sends the reason as the next message).
   */
  answerPlan(taskId: string, decision: 'approve' | 'reject'): void {
    const spec = this.deps.profile.plan;
    if (!spec || !this.readPlan()) throw new SynapseError('not_awaiting_plan', 'no plan-approval screen is on the screen any more');
    if (this.planAnswered === taskId)
      throw new SynapseError('not_awaiting_plan', `the plan of task ${taskId} was answered already; the CLI is taking the answer`);
    this.planAnswered = taskId;
    const keys = decision === 'approve' ? spec.approveKeys : spec.rejectKeys;
    keys.forEach((k, i) => this.deps.clock.setTimeout(() => this.deps.injector.keys(k), i * KEY_GAP_MS));
    if (decision === 'reject' && spec.rejectConfirm) this.confirmWhenSelected(spec.rejectConfirm, this.deps.clock.now() + CONFIRM_WAIT_MS);
  }

  /**
   * Presses `confirm.key` once the plan screen shows the reject choice selected; gives up (the
   * task stays input-required) when the screen leaves or the choice does not show in time.
   */
  private confirmWhenSelected(confirm: NonNullable<PlanSpec['rejectConfirm']>, deadline: number): void {
    this.deps.clock.setTimeout(() => {
      if (!this.readPlan()) return;
      if (this.deps.screen.viewport().some((row) => confirm.selected.test(row))) {
        this.deps.injector.keys(confirm.key);
        return;
      }
      if (this.deps.clock.now() < deadline) this.confirmWhenSelected(confirm, deadline);
    }, CONFIRM_POLL_MS);
  }

  /**
   * The plan screen on view: its question must be in the viewport; a long plan's heading may have
   * scrolled up, so the plan is read from the scrollback then.
   */
  private readPlan(): PlanPrompt | null {
    const spec = this.deps.profile.plan;
    if (!spec) return null;
    const view = this.deps.screen.viewport();
    if (!view.some((row) => spec.question.test(row))) return null;
    return parsePlanDialog(view, spec) ?? parsePlanDialog(this.deps.screen.allLines(), spec);
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
