import { EventEmitter } from 'node:events';
import { taskError, TERMINAL_STATES, type Task } from '../agent-api/task.js';
import { viewOf } from '../profiles/screen-rules.js';
import type { PermissionChoice, Profile } from '../profiles/types.js';
import { SynapseError } from '../errors.js';
import type { Clock } from '../clock.js';
import { ApprovalDialog } from './approval.js';
import { frameMessage, type FramingOptions } from './framing.js';
import type { Injector } from './injector.js';
import type { LinesAt, Screen } from './screen.js';
import type { ScreenReading, ScreenStatusTracker } from './screen-status.js';
import type { TaskManager } from './tasks.js';
import { TurnWatch } from './turn-watch.js';
import { iso } from '../clock.js';

interface InFlight {
  taskId: string;
  /** All screen lines just before the message was typed in. */
  before: LinesAt;
  /** The turn, from the moment the submit key is written (unset while still typing it in). */
  turn?: TurnWatch;
  confirmed: boolean;
  resubmitted: boolean;
  echoTimer: NodeJS.Timeout | undefined;
  interruptAfterSubmit?: boolean;
}

/** Between a submit key and an interrupt key, so the CLI reads them as two key presses. */
const SUBMIT_TO_INTERRUPT_MS = 50;
/**
 * After an interrupt, deliveries wait for a reading of a newer screen. A CLI that was idle
 * already (its turn ended as the cancel came) draws nothing for the interrupt key: a screen still
 * unchanged this long after it is the CLI's answer, and the last reading of it holds again.
 */
const INTERRUPT_QUIET_MS = 1000;

export interface DeliveryDeps {
  tasks: TaskManager;
  screen: Screen;
  tracker: ScreenStatusTracker;
  injector: Injector;
  profile: Profile;
  clock: Clock;
  framing: FramingOptions;
  /** The CLI is idle again after a task's turn: the caller completes the task (now or later). */
  /** The turn is over: its reply read off the screen, and everything it drew (`transcript`). */
  turnDone: (taskId: string, output: string, transcript: string) => void;
  /**
   * Foreground only: how long to hold deliveries for the human (unsent text in the input box,
   * or typing in the last moments); 0 = go ahead.
   */
  holdForUser?: () => number;
  /**
   * May this task be typed in now? During start-up only the start-up instruction may (the
   * others wait in the inbox, and a priority-5 one does not interrupt it). Default: every task.
   */
  admits?: (task: Task) => boolean;
}

/** How often a delivery held for the human is retried. */
const USER_HOLD_RECHECK_MS = 250;

/**
 * The inbox pump. Delivers one queued task at a time, only on a fresh READY reading; proves the
 * delivery on screen (echo check, one resubmit); holds the task in flight until its turn is over
 * (the profile's turn strategy decides, a `TurnWatch` runs its windows); then hands over the
 * cleaned output delta. Priority 5 interrupts whatever runs and goes first. Nothing here names a
 * CLI: what one CLI's screen means lives in its profile.
 */
export class DeliveryLoop extends EventEmitter {
  private inflight: InFlight | null = null;
  /** After an interrupt or cancel, wait for a reading newer than this before delivering. */
  private holdUntilSeq = -1;
  private exited = false;
  private userHoldTimer: NodeJS.Timeout | undefined;
  private firstReadyAt: number | null = null;
  /** No delivery before this time: the CLI is still winding down an interrupted turn. */
  private interruptSettlesAt = 0;
  /**
   * An interrupt was sent since the last delivery: the CLI may put the interrupted prompt back
   * in its input box a moment after its idle frame (Claude Code), so the next delivery clears it.
   */
  private interruptedSinceDelivery = false;
  private interruptRetryTimer: NodeJS.Timeout | undefined;
  private interruptQuietTimer: NodeJS.Timeout | undefined;
  private readonly dialog: ApprovalDialog;
  /** What the last 'busy' event said. */
  private announcedBusy = false;
  /** While a turn's end is handed over (`finish`), 'busy' waits for the outcome: no READY flicker. */
  private holdingBusy = false;

  constructor(private readonly deps: DeliveryDeps) {
    super();
    this.dialog = new ApprovalDialog(deps);
    deps.tracker.on('reading', (r: ScreenReading) => this.onReading(r));
    deps.screen.onChange(() => {
      this.checkEcho();
      this.inflight?.turn?.changed();
    });
  }

  /**
   * A task is in flight. Every change is announced with a 'busy' event (true or false), the one
   * place the agent's status learns it: a task may finish before its turn is over (an answer
   * posted with `synapse reply` while the CLI still draws), and the status must follow the turn.
   */
  get busy(): boolean {
    return this.inflight !== null;
  }

  private setInflight(f: InFlight | null): void {
    this.inflight = f;
    this.announceBusy();
  }

  private announceBusy(): void {
    if (this.holdingBusy || this.busy === this.announcedBusy) return;
    this.announcedBusy = this.busy;
    this.emit('busy', this.busy);
  }

  get currentTaskId(): string | null {
    return this.inflight?.taskId ?? null;
  }

  /** The cleaned output of the task in flight so far (for live `output` events). */
  outputSoFar(): { taskId: string; text: string } | null {
    const f = this.inflight;
    if (!f?.turn) return null;
    return { taskId: f.taskId, text: f.turn.reply() };
  }

  private admits(task: Task): boolean {
    return this.deps.admits?.(task) ?? true;
  }

  /** A new task was queued. Priority 5 interrupts a running turn unless told not to (or not admitted yet). */
  enqueued(task: Task, opts: { interrupt?: boolean } = {}): void {
    const screen = this.deps.tracker.current?.status;
    const busy = this.inflight !== null || screen === 'PROCESSING' || screen === 'WAITING';
    if (task.priority >= 5 && opts.interrupt !== false && busy && this.admits(task)) {
      const f = this.inflight;
      // The turn is over and the screen idle again, only settling: finish it rather than press an
      // interrupt key on an idle CLI.
      if (f?.turn && this.deps.tracker.current?.status === 'READY' && f.turn.onlySettling()) this.finish(f, f.turn);
      else this.interruptCurrent(`interrupted by priority ${task.priority} message ${task.id}`);
    }
    this.pump();
  }

  cancel(taskId: string): Task | null {
    const task = this.deps.tasks.cancelable(taskId);
    if (this.inflight?.taskId === task.id) {
      this.interruptCurrent('canceled');
      return this.deps.tasks.get(task.id);
    }
    return this.deps.tasks.transition(task.id, 'canceled', {
      message: task.status.state === 'submitted' ? 'canceled before delivery' : 'canceled',
      receipt: 'canceled',
    });
  }

  /** The CLI exited: the task in flight cannot finish; queued ones stay for the next start. */
  cliExited(code: number): void {
    this.exited = true;
    if (this.inflight) {
      const id = this.inflight.taskId;
      this.clearInflight();
      this.deps.tasks.transition(id, 'failed', {
        receipt: 'failed',
        error: taskError('CLI_EXITED', `the CLI exited (code ${code}) during the task`, { exit_code: code }),
      });
    }
  }

  /** The agent is shutting down: the task in flight cannot finish; queued ones stay. */
  stopped(reason: string): void {
    this.exited = true;
    if (this.inflight) {
      const id = this.inflight.taskId;
      this.clearInflight();
      this.deps.tasks.transition(id, 'failed', { receipt: 'failed', error: taskError('AGENT_STOPPED', `the agent was stopped during the task (${reason})`) });
    }
  }

  private interruptCurrent(reason: string): void {
    const f = this.inflight;
    if (f) {
      this.clearInflight();
      this.deps.tasks.transition(f.taskId, 'canceled', { message: reason, receipt: 'canceled' });
      if (!f.turn) {
        // Still typing it in: an interrupt now would land before the submit key and be lost,
        // so hold deliveries and interrupt once the turn has really started.
        this.holdUntilSeq = Number.MAX_SAFE_INTEGER;
        f.interruptAfterSubmit = true;
        return;
      }
    }
    this.interruptNow();
  }

  private interruptNow(retry = true): void {
    this.deps.injector.interrupt();
    this.emit('interrupt');
    this.interruptedSinceDelivery = true;
    const heldAt = this.deps.screen.seq;
    this.holdUntilSeq = heldAt;
    this.interruptSettlesAt = this.deps.clock.now() + (this.deps.profile.interrupt.settleMs ?? 0);
    this.deps.clock.clearTimeout(this.interruptQuietTimer);
    this.interruptQuietTimer = this.deps.clock.setTimeout(
      () => {
        this.interruptQuietTimer = undefined;
        if (this.holdUntilSeq !== heldAt || this.deps.screen.seq !== heldAt) return;
        this.holdUntilSeq = -1;
        this.pump();
      },
      Math.max(INTERRUPT_QUIET_MS, this.deps.profile.interrupt.settleMs ?? 0),
    );
    const retryMs = this.deps.profile.interrupt.retryMs;
    if (retry && retryMs) {
      // The key can be lost like a submit key (OpenCode under load): still busy, press it again.
      this.deps.clock.clearTimeout(this.interruptRetryTimer);
      this.interruptRetryTimer = this.deps.clock.setTimeout(() => {
        this.interruptRetryTimer = undefined;
        const status = this.deps.tracker.current?.status;
        if (!this.inflight && !this.exited && (status === 'PROCESSING' || status === 'WAITING')) this.interruptNow(false);
      }, retryMs);
    }
  }

  private clearInflight(): void {
    if (this.inflight) {
      this.inflight.turn?.stop();
      this.deps.clock.clearTimeout(this.inflight.echoTimer);
    }
    this.setInflight(null);
  }

  private onReading(r: ScreenReading): void {
    const f = this.inflight;
    if (f) {
      const turn = f.turn;
      if (!turn || r.seq <= turn.seqAtSubmit) return;
      if (r.status !== 'READY') {
        turn.busy();
        this.checkEcho(true);
        this.confirm(f, 'busy');
        if (r.status === 'WAITING') this.dialog.shown(f.taskId);
        else this.dialog.gone(f.taskId);
        return;
      }
      this.dialog.gone(f.taskId);
      turn.idle();
      return;
    }
    if (r.status === 'READY') this.pump();
  }

  /**
   * Answers the approval dialog of the task in flight with the keys that select `choice`
   * (a key such as "3", or approve/deny); deny selects the deny option, never a bare Enter.
   */
  respond(taskId: string, choice: string): { task: Task; choice: PermissionChoice } {
    const task = this.deps.tasks.get(taskId);
    if (task.status.state !== 'input-required' || this.inflight?.taskId !== task.id) {
      throw new SynapseError('conflict', `task ${task.id} is not waiting for an answer (it is ${task.status.state})`);
    }
    return { task, choice: this.dialog.answer(choice) };
  }

  /**
   * Approves or rejects the plan the CLI shows for the task in flight (its task is input-required
   * with `metadata.plan`); `not_awaiting_plan` when it shows none.
   */
  answerPlan(taskId: string, decision: 'approve' | 'reject'): Task {
    const task = this.deps.tasks.get(taskId);
    if (task.status.state !== 'input-required' || this.inflight?.taskId !== task.id || !task.metadata.plan) {
      throw new SynapseError(
        'not_awaiting_plan',
        `task ${task.id} is not awaiting plan approval (it is ${task.status.state}${task.metadata.permission ? ', at a permission dialog: use synapse respond' : ''}); a task that is shows input_required with metadata.plan`,
      );
    }
    this.dialog.answerPlan(task.id, decision);
    return task;
  }

  /** Echo check: the message shows on screen after the submit (the turn strategy reads it). */
  private checkEcho(settled = false): void {
    const f = this.inflight;
    if (!f?.turn || f.confirmed) return;
    if (f.turn.echoed(settled)) this.confirm(f, 'echo');
  }

  private confirm(f: InFlight, evidence: 'echo' | 'busy'): void {
    if (f.confirmed) return;
    f.confirmed = true;
    this.deps.clock.clearTimeout(f.echoTimer);
    this.deps.tasks.receipt(f.taskId, 'delivered', { delivery_evidence: evidence, ...(f.resubmitted ? { resubmitted: true } : {}) });
  }

  private startEchoWindow(f: InFlight): void {
    f.echoTimer = this.deps.clock.setTimeout(() => {
      if (this.inflight !== f || f.confirmed) return;
      this.checkEcho(true);
      if (f.confirmed) return;
      if (!f.resubmitted) {
        // The submit key may have been swallowed (sent before the CLI was listening): once more.
        f.resubmitted = true;
        this.deps.injector.keys(this.deps.profile.submit.key);
        this.startEchoWindow(f);
        return;
      }
      this.clearInflight();
      this.deps.tasks.transition(f.taskId, 'failed', {
        receipt: 'delivery_unconfirmed',
        error: taskError('DELIVERY_UNCONFIRMED', 'delivery unconfirmed: the message never showed on the CLI screen, even after the submit key was sent again'),
      });
      // Nothing changed on screen, so the last READY reading still holds: go on with the inbox.
      this.pump();
    }, this.deps.profile.submit.confirmMs);
  }

  private finish(f: InFlight, turn: TurnWatch): void {
    this.checkEcho(true);
    if (!f.confirmed) this.confirm(f, 'busy');
    const text = turn.reply();
    // Not busy once the task has its outcome and the next one, if any, is on its way.
    this.holdingBusy = true;
    try {
      this.clearInflight();
      this.emit('finished', f.taskId, text);
      this.deps.turnDone(f.taskId, text, turn.transcript());
      this.pump();
    } finally {
      this.holdingBusy = false;
      this.announceBusy();
    }
  }

  /** Delivers the next queued task if the CLI is at a fresh READY and nothing is in flight. */
  pump(): void {
    if (this.inflight || this.exited) return;
    const reading = this.deps.tracker.current;
    if (!reading || reading.status !== 'READY' || reading.seq <= this.holdUntilSeq) return;
    const next = this.deps.tasks.store.queued().find((t) => this.admits(t));
    if (!next) return;
    this.firstReadyAt ??= this.deps.clock.now();
    const settle = Math.max(
      (this.deps.profile.submit.firstInputDelayMs ?? 0) - (this.deps.clock.now() - this.firstReadyAt),
      this.interruptSettlesAt - this.deps.clock.now(),
    );
    if (settle > 0) {
      this.deps.clock.setTimeout(() => this.pump(), settle);
      return;
    }
    // Never type into a human's half-written prompt; only priority 5 goes through.
    const hold = next.priority >= 5 ? 0 : (this.deps.holdForUser?.() ?? 0);
    if (hold > 0) {
      this.emit('held', next, hold);
      if (!this.userHoldTimer) {
        this.userHoldTimer = this.deps.clock.setTimeout(
          () => {
            this.userHoldTimer = undefined;
            this.pump();
          },
          Math.min(hold, USER_HOLD_RECHECK_MS),
        );
      }
      return;
    }
    this.deliver(next);
  }

  private deliver(task: Task): void {
    const { text } = frameMessage(task, this.deps.framing);
    const f: InFlight = {
      taskId: task.id,
      before: this.deps.screen.linesAt(),
      confirmed: false,
      resubmitted: false,
      echoTimer: undefined,
    };
    this.setInflight(f);
    const started = this.deps.tasks.transition(task.id, 'working', { metadata: { pty_written_at: iso(this.deps.clock.now()) } });
    if (!started || TERMINAL_STATES.has(started.status.state)) {
      this.clearInflight();
      return;
    }
    this.emit('delivering', started);
    const leftover = this.interruptedSinceDelivery || (this.deps.profile.inputText(viewOf(this.deps.screen.viewport())) ?? '') !== '';
    this.interruptedSinceDelivery = false;
    void this.deps.injector.inject(text, { clearFirst: leftover }).then(() => {
      if (f.interruptAfterSubmit) {
        this.deps.clock.setTimeout(() => {
          this.interruptNow();
          this.pump();
        }, SUBMIT_TO_INTERRUPT_MS);
        return;
      }
      if (this.inflight !== f) return;
      const { profile, screen, clock, tracker } = this.deps;
      const turn: TurnWatch = new TurnWatch({ profile, screen, clock, status: () => tracker.current?.status }, text, f.before, () => this.finish(f, turn));
      f.turn = turn;
      this.checkEcho();
      if (!f.confirmed) this.startEchoWindow(f);
      this.emit('submitted', started);
    });
  }
}
