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
  status: AgentStatus = 'STARTING';
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

  setExited(): void {
    this.exited = true;
    this.clock.clearTimeout(this.doneTimer);
    this.recompute();
  }

  private compute(): AgentStatus {
    if (this.exited) return 'EXITED';
    if (!this.seenReady) return 'STARTING';
    if (this.screen === 'WAITING') return 'WAITING';
    if (this.screen === 'PROCESSING' || this.taskInFlight || !this.idleGateOpen) return 'PROCESSING';
    if (this.clock.now() < this.doneUntil) return 'DONE';
    return 'READY';
  }

  private recompute(): void {
    const next = this.compute();
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
