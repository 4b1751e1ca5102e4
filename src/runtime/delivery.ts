import { EventEmitter } from 'node:events';
import { TERMINAL_STATES, type Task } from '../agent-api/task.js';
import { viewOf } from '../profiles/screen-rules.js';
import { squash } from '../profiles/text.js';
import { answerKeys, parseNumberedDialog, parseRowDialog, pickChoice, type PermissionPrompt } from '../profiles/permission.js';
import type { PermissionChoice, Profile } from '../profiles/types.js';
import { SynapseError } from '../errors.js';
import type { Clock } from '../clock.js';
import { frameMessage, type FramingOptions } from './framing.js';
import type { Injector } from './injector.js';
import type { Screen } from './screen.js';
import type { ScreenReading, ScreenStatusTracker } from './screen-status.js';
import type { TaskManager } from './tasks.js';

interface InFlight {
  taskId: string;
  framed: string;
  /** What must appear on screen to prove the CLI took the message (squashed text). */
  signature: string;
  beforeLines: string[];
  /** Screen change counter right after the submit key was written; -1 while still injecting. */
  seqAtSubmit: number;
  viewportAtSubmit: string;
  sawBusy: boolean;
  confirmed: boolean;
  resubmitted: boolean;
  confirmTimer: NodeJS.Timeout | undefined;
  /** What the running confirm window waits for: a fresh verdict starts a new window. */
  confirmKind: 'settle' | 'empty' | 'idle' | 'unstarted' | undefined;
  echoTimer: NodeJS.Timeout | undefined;
  interruptAfterSubmit?: boolean;
}

/** Between a submit key and an interrupt key, so the CLI reads them as two key presses. */
const SUBMIT_TO_INTERRUPT_MS = 50;
const SIGNATURE_CHARS = 48;
const KEY_GAP_MS = 40;
/** Default `turnStartMs`: a CLI that shows the message but never starts its turn. */
const TURN_START_MS = 30_000;

/** Lines that appeared since `before`: everything from the first row that differs. */
export function linesSince(before: string[], after: string[]): string[] {
  let i = 0;
  while (i < before.length && i < after.length && before[i] === after[i]) i++;
  return after.slice(i);
}

export interface DeliveryDeps {
  tasks: TaskManager;
  screen: Screen;
  tracker: ScreenStatusTracker;
  injector: Injector;
  profile: Profile;
  clock: Clock;
  framing: FramingOptions;
  /** The CLI is idle again after a task's turn: the caller completes the task (now or later). */
  turnDone: (taskId: string, output: string) => void;
  /**
   * Foreground only: how long to hold deliveries for the human (unsent text in the input box,
   * or typing in the last moments); 0 = go ahead.
   */
  holdForUser?: () => number;
}

/** How often a delivery held for the human is retried. */
const USER_HOLD_RECHECK_MS = 250;

/**
 * The inbox pump. Delivers one queued task at a time, only on a fresh READY reading; proves the
 * delivery on screen (echo check, one resubmit); holds the task in flight until the CLI is idle
 * again with an empty input box; then hands over the cleaned output delta. Priority 5
 * interrupts whatever runs and goes first.
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

  constructor(private readonly deps: DeliveryDeps) {
    super();
    deps.tracker.on('reading', (r: ScreenReading) => this.onReading(r));
    deps.screen.onChange(() => {
      this.checkEcho();
      this.replyDrawn();
    });
  }

  get busy(): boolean {
    return this.inflight !== null;
  }

  get currentTaskId(): string | null {
    return this.inflight?.taskId ?? null;
  }

  /** The cleaned output of the task in flight so far (for live `output` events). */
  outputSoFar(): { taskId: string; text: string } | null {
    const f = this.inflight;
    if (!f || f.seqAtSubmit < 0) return null;
    return { taskId: f.taskId, text: this.replyOf(f) };
  }

  /** A new task was queued. Priority 5 interrupts a running turn unless told not to. */
  enqueued(task: Task, opts: { interrupt?: boolean } = {}): void {
    const screen = this.deps.tracker.current?.status;
    const busy = this.inflight !== null || screen === 'PROCESSING' || screen === 'WAITING';
    if (task.priority >= 5 && opts.interrupt !== false && busy) {
      const f = this.inflight;
      // The turn already ran and the screen is idle again, only settling (turnSettleMs): it is
      // over, so finish it rather than press an interrupt key on an idle CLI (Copilot's Ctrl-C
      // would arm "again to exit").
      if (f && f.sawBusy && this.deps.tracker.current?.status === 'READY' && (this.deps.profile.inputText(viewOf(this.deps.screen.viewport())) ?? '') === '') this.finish(f);
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
    return this.deps.tasks.transition(task.id, 'canceled', { message: task.status.state === 'submitted' ? 'canceled before delivery' : 'canceled', receipt: 'canceled' });
  }

  /** The CLI exited: the task in flight cannot finish; queued ones stay for the next start. */
  cliExited(code: number): void {
    this.exited = true;
    if (this.inflight) {
      const id = this.inflight.taskId;
      this.clearInflight();
      this.deps.tasks.transition(id, 'failed', { message: `the CLI exited (code ${code}) during the task`, receipt: 'failed' });
    }
  }

  /** The agent is shutting down: the task in flight cannot finish; queued ones stay. */
  stopped(reason: string): void {
    this.exited = true;
    if (this.inflight) {
      const id = this.inflight.taskId;
      this.clearInflight();
      this.deps.tasks.transition(id, 'failed', { message: `the agent was stopped during the task (${reason})`, receipt: 'failed' });
    }
  }

  private interruptCurrent(reason: string): void {
    const f = this.inflight;
    if (f) {
      this.clearInflight();
      this.deps.tasks.transition(f.taskId, 'canceled', { message: reason, receipt: 'canceled' });
      if (f.seqAtSubmit < 0) {
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
    this.holdUntilSeq = this.deps.screen.seq;
    this.interruptSettlesAt = this.deps.clock.now() + (this.deps.profile.interrupt.settleMs ?? 0);
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
      this.deps.clock.clearTimeout(this.inflight.confirmTimer);
      this.deps.clock.clearTimeout(this.inflight.echoTimer);
    }
    this.inflight = null;
  }

  private onReading(r: ScreenReading): void {
    const f = this.inflight;
    if (f) {
      if (f.seqAtSubmit < 0 || r.seq <= f.seqAtSubmit) return;
      if (r.status !== 'READY') {
        f.sawBusy = true;
        this.checkEcho(true);
        this.confirm(f, 'busy');
        this.deps.clock.clearTimeout(f.confirmTimer);
        f.confirmTimer = undefined;
        if (r.status === 'WAITING') this.enterWaiting(f);
        else this.leaveWaiting(f);
        return;
      }
      this.leaveWaiting(f);
      this.maybeFinish(f);
      return;
    }
    if (r.status === 'READY') this.pump();
  }

  /** The CLI shows its approval dialog: the task becomes input-required with the choices. */
  private enterWaiting(f: InFlight): void {
    const task = this.deps.tasks.store.get(f.taskId);
    if (!task || task.status.state !== 'working') return;
    const permission = this.currentDialog() ?? { prompt: 'the CLI is waiting for an answer', choices: [], selected: null };
    this.deps.tasks.transition(f.taskId, 'input-required', { message: permission.prompt, metadata: { permission: { prompt: permission.prompt, choices: permission.choices } } });
  }

  /** The dialog left the screen: back to working (no sticky WAITING). */
  private leaveWaiting(f: InFlight): void {
    const task = this.deps.tasks.store.get(f.taskId);
    if (task?.status.state === 'input-required') this.deps.tasks.transition(f.taskId, 'working', { metadata: { permission: null } });
  }

  private currentDialog(): PermissionPrompt | null {
    const permission = this.deps.profile.permission;
    if (!permission) return null;
    const lines = this.deps.screen.viewport();
    return permission.select === 'row'
      ? parseRowDialog(lines, permission.question, (row) => this.deps.screen.backgrounds(row))
      : parseNumberedDialog(lines, permission.question);
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
    const dialog = this.currentDialog();
    if (!dialog) throw new SynapseError('conflict', 'no approval dialog is on the screen any more');
    const picked = pickChoice(dialog.choices, choice);
    if (!picked) {
      throw new SynapseError('invalid_input', `"${choice}" is not one of the choices: ${dialog.choices.map((c) => `${c.key}. ${c.label}`).join(' | ')}`);
    }
    const keys = answerKeys(this.deps.profile.permission!, dialog, picked);
    // One key per write, a little apart, so the TUI sees separate key presses.
    keys.forEach((k, i) => this.deps.clock.setTimeout(() => this.deps.injector.keys(k), i * KEY_GAP_MS));
    return { task, choice: picked };
  }

  /** Echo check: the framed text (its first characters) shows on screen after the submit. */
  private checkEcho(settled = false): void {
    const f = this.inflight;
    if (!f || f.confirmed || f.seqAtSubmit < 0) return;
    // Seen outside the input box: text still sitting in the box was not submitted. With no box
    // on the screen, only a settled screen counts: a half-drawn frame can show the pasted text
    // without the box around it while the CLI drops the submit key (Claude Code at start-up).
    const box = this.deps.profile.inputText(viewOf(this.deps.screen.viewport()));
    if (box === null ? !settled : box !== '') return;
    const delta = squash(linesSince(f.beforeLines, this.deps.screen.allLines()).join(''));
    if (delta.includes(f.signature)) this.confirm(f, 'echo');
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
        message: 'delivery unconfirmed: the message never showed on the CLI screen, even after the submit key was sent again',
        receipt: 'delivery_unconfirmed',
      });
      // Nothing changed on screen, so the last READY reading still holds: go on with the inbox.
      this.pump();
    }, this.deps.profile.submit.confirmMs);
  }

  private maybeFinish(f: InFlight): void {
    const view = viewOf(this.deps.screen.viewport());
    // The message must have left the input box, and the screen must show the turn happened.
    if ((this.deps.profile.inputText(view) ?? '') !== '') return;
    if (!f.sawBusy && view.text === f.viewportAtSubmit) return;
    const profile = this.deps.profile;
    const lines = linesSince(f.beforeLines, this.deps.screen.allLines());
    const ended = f.sawBusy || profile.turnEnded?.(lines, f.framed) === true;
    // Over, but with nothing to show for it: under load OpenCode draws its end-of-turn row before
    // the answer. An empty reply must hold for the idle window; one drawn meanwhile is kept.
    const empty = ended && this.replyOf(f) === '';
    // Idle-looking but the turn has not begun: the CLI is still getting to it.
    const kind = empty ? 'empty' : ended ? 'settle' : profile.turnStarted?.(lines, f.framed) === false ? 'unstarted' : 'idle';
    const confirmMs =
      kind === 'settle' ? (profile.turnSettleMs ?? 0) : kind === 'unstarted' ? Math.max(profile.idleConfirmMs, profile.turnStartMs ?? TURN_START_MS) : profile.idleConfirmMs;
    if (confirmMs === 0) {
      this.finish(f);
      return;
    }
    if (f.confirmTimer && f.confirmKind === kind) return;
    this.deps.clock.clearTimeout(f.confirmTimer);
    f.confirmKind = kind;
    // A turn never seen busy waits for the whole screen to hold still. One that is over only
    // settles its reply: Copilot CLI animates its logo for seconds after start-up, which would
    // restart every settle window.
    const still = ended ? () => this.replyOf(f) : () => String(this.deps.screen.seq);
    const before = still();
    f.confirmTimer = this.deps.clock.setTimeout(() => {
      f.confirmTimer = undefined;
      if (this.inflight !== f || this.deps.tracker.current?.status !== 'READY') return;
      // It moved during the window (readings that came meanwhile found the timer set and
      // returned): confirm over a fresh window, or nothing would ever finish the task.
      if (still() === before) this.finish(f);
      else this.maybeFinish(f);
    }, confirmMs);
  }

  /**
   * The empty reply of an ended turn got its answer: settle that now rather than at the end of
   * the idle window. Copilot CLI types the answer out on frames that match no status rule, so
   * no reading would come to end the window early.
   */
  private replyDrawn(): void {
    const f = this.inflight;
    if (f?.confirmKind === 'empty' && f.confirmTimer && this.replyOf(f) !== '') this.maybeFinish(f);
  }

  /** The reply as it would be read off the screen now. */
  private replyOf(f: InFlight): string {
    return this.deps.profile.cleanOutput(linesSince(f.beforeLines, this.deps.screen.allLines()), f.framed);
  }

  private finish(f: InFlight): void {
    this.checkEcho(true);
    if (!f.confirmed) this.confirm(f, 'busy');
    const text = this.replyOf(f);
    this.clearInflight();
    this.emit('finished', f.taskId, text);
    this.deps.turnDone(f.taskId, text);
    this.pump();
  }

  /** Delivers the next queued task if the CLI is at a fresh READY and nothing is in flight. */
  pump(): void {
    if (this.inflight || this.exited) return;
    const reading = this.deps.tracker.current;
    if (!reading || reading.status !== 'READY' || reading.seq <= this.holdUntilSeq) return;
    const next = this.deps.tasks.store.queued()[0];
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
        this.userHoldTimer = this.deps.clock.setTimeout(() => {
          this.userHoldTimer = undefined;
          this.pump();
        }, Math.min(hold, USER_HOLD_RECHECK_MS));
      }
      return;
    }
    this.deliver(next);
  }

  private deliver(task: Task): void {
    const { text } = frameMessage(task, this.deps.framing);
    const f: InFlight = {
      taskId: task.id,
      framed: text,
      signature: squash(text).slice(0, SIGNATURE_CHARS),
      beforeLines: this.deps.screen.allLines(),
      seqAtSubmit: -1,
      viewportAtSubmit: '',
      sawBusy: false,
      confirmed: false,
      resubmitted: false,
      confirmTimer: undefined,
      confirmKind: undefined,
      echoTimer: undefined,
    };
    this.inflight = f;
    const started = this.deps.tasks.transition(task.id, 'working', { metadata: { pty_written_at: new Date(this.deps.clock.now()).toISOString() } });
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
      f.seqAtSubmit = this.deps.screen.seq;
      f.viewportAtSubmit = this.deps.screen.viewport().join('\n');
      this.checkEcho();
      if (!f.confirmed) this.startEchoWindow(f);
      this.emit('submitted', started);
    });
  }
}
