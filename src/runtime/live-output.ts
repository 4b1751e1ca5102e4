import type { TaskEventSink } from '../agent-api/task-events.js';
import type { Clock } from '../clock.js';
import type { DeliveryLoop } from './delivery.js';
import type { Screen } from './screen.js';

/** At most this often an `output` event for the task in flight. */
const OUTPUT_EVERY_MS = 100;

/** Live output of the task in flight, as `output` events (new whole lines), at most 10 a second. */
export class LiveOutput {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly screen: Screen,
    private readonly delivery: DeliveryLoop,
    private readonly events: TaskEventSink,
    private readonly clock: Clock,
  ) {}

  start(): void {
    this.screen.onChange(() => {
      if (this.timer || !this.delivery.busy) return;
      this.timer = this.clock.setTimeout(() => {
        this.timer = undefined;
        const out = this.delivery.outputSoFar();
        if (out) this.events.output(out.taskId, out.text);
      }, OUTPUT_EVERY_MS);
    });
  }

  stop(): void {
    this.clock.clearTimeout(this.timer);
  }
}
