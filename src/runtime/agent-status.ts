import { EventEmitter } from 'node:events';
import type { AgentStatus } from '../profiles/types.js';
import type { Clock } from '../clock.js';
import type { ScreenStatus } from './screen-status.js';

const DONE_HOLD_MS = 10_000;

/**
 * The agent's status as the world sees it, composed from the screen reading, whether a task
 * is in flight, and recent completion: a task in flight holds PROCESSING until the CLI is idle
 * again; DONE shows for a while after a task finished; EXITED is final.
 */
export class AgentStatusModel extends EventEmitter {
  private screen: ScreenStatus | null = null;
  private taskInFlight = false;
  private doneUntil = 0;
  private doneTimer: NodeJS.Timeout | undefined;
  private exited = false;
  /** False while `hooks.on_idle` runs or after it failed: the agent is not reported READY. */
  private idleGateOpen = true;
  /** File-safety locks this agent holds: the original suppresses READY while there are any. */
  private locksHeld = 0;
  status: AgentStatus = 'STARTING';
  /** Why the status is not what the screen alone says (e.g. `holds 2 file locks`), else null. */
  reason: string | null = null;
  updatedAt: number;

  constructor(private readonly clock: Clock) {
    super();
    this.updatedAt = clock.now();
  }

  get everReady(): boolean {
    return this.screen !== null && this.seenReady;
  }

  private seenReady = false;

  setScreen(status: ScreenStatus): void {
    this.screen = status;
    if (status === 'READY') this.seenReady = true;
    this.recompute();
  }

  setTaskInFlight(inFlight: boolean): void {
    this.taskInFlight = inFlight;
    this.recompute();
  }

  taskFinished(): void {
    this.doneUntil = this.clock.now() + DONE_HOLD_MS;
    this.clock.clearTimeout(this.doneTimer);
    this.doneTimer = this.clock.setTimeout(() => {
      // Node's timers run on the monotonic clock and can fire a millisecond before Date.now()
      // reaches doneUntil: the hold is over when the timer says so, or DONE would stay for good.
      this.doneUntil = 0;
      this.recompute();
    }, DONE_HOLD_MS);
    this.recompute();
  }

  setIdleGate(open: boolean): void {
    this.idleGateOpen = open;
    this.recompute();
  }

  /** The number of live file-safety locks this agent holds (polled by the agent). */
  setLocksHeld(count: number): void {
    if (count === this.locksHeld) return;
    this.locksHeld = count;
    this.recompute();
  }

  setExited(): void {
    this.exited = true;
    this.clock.clearTimeout(this.doneTimer);
    this.recompute();
  }

  private compute(): { status: AgentStatus; reason: string | null } {
    if (this.exited) return { status: 'EXITED', reason: null };
    if (!this.seenReady) return { status: 'STARTING', reason: null };
    if (this.screen === 'WAITING') return { status: 'WAITING', reason: null };
    if (this.screen === 'PROCESSING' || this.taskInFlight) return { status: 'PROCESSING', reason: null };
    if (!this.idleGateOpen) return { status: 'PROCESSING', reason: 'the on_idle hook runs or failed' };
    if (this.clock.now() < this.doneUntil) return { status: 'DONE', reason: null };
    // Compound signal, as the original: a quiet CLI that still holds file locks is mid-edit.
    if (this.locksHeld > 0) return { status: 'PROCESSING', reason: `holds ${this.locksHeld} file lock${this.locksHeld === 1 ? '' : 's'}` };
    return { status: 'READY', reason: null };
  }

  private recompute(): void {
    const { status: next, reason } = this.compute();
    this.reason = reason;
    if (next === this.status) return;
    const previous = this.status;
    this.status = next;
    this.updatedAt = this.clock.now();
    this.emit('change', next, previous);
  }

  stop(): void {
    this.clock.clearTimeout(this.doneTimer);
  }
}
