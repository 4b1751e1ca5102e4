import type * as V8 from 'node:v8';
import type * as Vm from 'node:vm';
import type { Clock } from '../clock.js';
import { requireCjs } from '../require-cjs.js';

/**
 * V8's `gc()`: the global one under `node --expose-gc`; otherwise the flag is set now and a new
 * context, which V8 gives `gc()` once the flag is on, lends its own (it collects the whole heap).
 * So no agent needs the flag on its command line, where bin/synapse.js's shebang has no room left
 * (its length is capped at 127 bytes on Linux before 5.1). The context is made for one collection
 * and then dropped: holding it would cost memory.
 */
function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return exposed;
  const v8 = requireCjs('node:v8') as typeof V8;
  v8.setFlagsFromString('--expose-gc');
  const gc = (requireCjs('node:vm') as typeof Vm).runInNewContext('gc') as () => void;
  // Off again at once: V8 takes a code cache (Node's built-in one too) only under the flags it was
  // made with, and a module loaded after this collection would otherwise be compiled from source.
  v8.setFlagsFromString('--no-expose-gc');
  return gc;
}

/** A full garbage collection that logs what it freed. */
export function fullGc(log: (line: string) => void): () => void {
  return () => {
    const before = process.memoryUsage();
    collector()();
    const after = process.memoryUsage();
    const mib = (n: number) => (n / 1048576).toFixed(1);
    // The freed pages go back to the system a moment later (V8 unmaps them on a worker thread).
    log(`idle after work: full GC, heap used ${mib(before.heapUsed)} -> ${mib(after.heapUsed)} MiB of ${mib(before.heapTotal)}, RSS ${mib(before.rss)} MiB`);
  };
}

/**
 * After a burst of tasks V8 keeps the heap it grew to (an agent measured 24.6 MiB committed for
 * 15.6 MiB used, 30 s after its second 1,000 messages): its memory reducer does not always run
 * for a process this small. So once the agent has had no task in flight for `quietMs` after one,
 * it runs one full collection, which hands those pages back (82.3 -> 73.6 MiB RSS there). Once per
 * quiet spell: an agent that stays idle is not collected again, a busy one not at all.
 */
export class IdleCollector {
  private timer: NodeJS.Timeout | undefined;
  private worked = false;
  private readonly collect: (() => void) | null;

  /** `quietMs` is `SYNAPSE_IDLE_GC_MS`; 0 turns it off. `collect` runs a full collection and tells what it freed. */
  constructor(
    collect: (() => void) | null,
    private readonly clock: Clock,
    private readonly quietMs: number,
  ) {
    this.collect = quietMs > 0 ? collect : null;
  }

  /** Told whenever the agent's task-in-flight state changes. */
  busy(busy: boolean): void {
    if (!this.collect) return;
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (busy) {
      this.worked = true;
      return;
    }
    if (!this.worked) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.worked = false;
      this.collect?.();
    }, this.quietMs);
    // Never what keeps the agent's process alive.
    this.timer.unref?.();
  }

  stop(): void {
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
