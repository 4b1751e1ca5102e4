import type { Task } from '../agent-api/task.js';
import type { Logger } from '../logger.js';
import type { DeliveryLoop } from './delivery.js';
import type { ScreenReading, ScreenStatusTracker } from './screen-status.js';
import type { TaskManager } from './tasks.js';

export interface StartupGateOptions {
  tracker: ScreenStatusTracker;
  tasks: TaskManager;
  delivery: DeliveryLoop;
  /** The CLI resumes a session: it has had its instruction already. */
  resuming: boolean;
  /** Why no start-up instruction is typed in (`SYNAPSE_SKIP_STARTUP_INSTRUCTION=1`, a Synapse MCP entry), or null. */
  skip: string | null;
  /** The rendered start-up instruction ('' = none). */
  instruction: () => string;
  log: Logger;
}

/**
 * The CLI gets its start-up instruction before any message: at the first READY the instruction
 * goes in as a silent priority-5 task, and the gate opens (`ready_for_messages`) when that task
 * ends. A resumed session, a disabled or an empty instruction opens the gate at the first READY.
 * Messages that arrive earlier are queued as usual (202, receipt `queued`): until the gate opens
 * the delivery loop takes only the instruction (`admits`), and it goes on with the inbox, in its
 * order, once the gate opens.
 */
export class StartupGate {
  private bootstrapTaskId: string | null = null;
  private gateOpen = false;

  constructor(private readonly opts: StartupGateOptions) {}

  get isOpen(): boolean {
    return this.gateOpen;
  }

  isBootstrap(taskId: string): boolean {
    return taskId === this.bootstrapTaskId;
  }

  /** May the delivery loop type this task in now? Before the gate opens, only the instruction. */
  admits(task: Task): boolean {
    return this.gateOpen || this.isBootstrap(task.id);
  }

  start(): void {
    this.opts.tracker.on('change', (r: ScreenReading) => this.onScreen(r));
  }

  /** A task ended: the start-up instruction's end opens the gate. */
  taskEnded(task: Task): void {
    if (this.isBootstrap(task.id)) this.open(`start-up instruction ${task.status.state}`);
  }

  private open(why: string): void {
    if (this.gateOpen) return;
    this.gateOpen = true;
    this.opts.log.info(`accepting messages (${why})`);
    // Messages that came during start-up wait in the inbox: deliver them now. Not from inside
    // the task update that opened the gate: the instruction's end is still being announced.
    queueMicrotask(() => this.opts.delivery.pump());
  }

  private onScreen(r: ScreenReading): void {
    if (r.status !== 'READY' || this.bootstrapTaskId !== null || this.gateOpen) return;
    const { resuming, skip, tasks, delivery } = this.opts;
    if (resuming || skip !== null) {
      this.open(resuming ? 'resumed session: no start-up instruction' : `no start-up instruction: ${skip}`);
      return;
    }
    let text: string;
    try {
      text = this.opts.instruction();
    } catch (err) {
      this.opts.log.error((err as Error).message);
      this.open('the start-up instruction could not be read');
      return;
    }
    if (!text) {
      this.open('empty start-up instruction');
      return;
    }
    const t = tasks.create({
      message: { role: 'user', parts: [{ type: 'text', text }] },
      priority: 5,
      metadata: { kind: 'bootstrap', response_mode: 'silent' },
    });
    this.bootstrapTaskId = t.id;
    delivery.enqueued(t, { interrupt: false });
  }
}
