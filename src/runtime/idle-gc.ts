import type * as V8 from 'node:v8';
import type * as Vm from 'node:vm';
import type { Clock } from '../clock.js';
import { requireCjs } from '../require-cjs.js';
import { nodeFlags } from './node-flags.js';

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

/**
 * V8's flags that make its full collections lean, and its defaults (a test holds them to
 * `node --v8-options`). V8 drops a function's bytecode once it has gone unrun through five full
 * collections (`--bytecode-old-age`), and moves live objects off sparse pages only when its own
 * heuristics say so. So the bytecode of an agent's start-up, code that runs once, stayed for
 * good, spread over pages the heap kept: V8's memory reducer, which runs a few full collections
 * ~8 s after a process goes quiet, dropped none of it, nor did a forced collection (eight in a
 * row). Under these flags a full collection drops the bytecode of every function not running at
 * that moment (V8 compiles a function again from its source, which it keeps, the next time it
 * runs) and compacts every page: the reducer's first collection on an idle echo agent then
 * dropped ~2,000 functions' bytecode, and its heap went to 9.4 MiB instead of 10.4 (RSS 1.2 MiB
 * lower, 10 s after READY).
 */
export const LEAN_FLAGS = { on: '--stress-flush-code --compact-on-every-full-gc', off: '--no-stress-flush-code --no-compact-on-every-full-gc' } as const;
/** Node flags that already say how V8 flushes code or compacts: then the agent leaves those flags alone. */
const OWN_SAY = /^--(no-)?(flush-bytecode|flush-baseline-code|bytecode-old-age|stress-flush-code|compact-on-every-full-gc|stress-compaction)(=|$)/;

/** What the idle collector does with V8's heap. */
export interface IdleHeap {
  /** While on, V8's full collections (its own, and `collect`'s) are lean: see LEAN_FLAGS. */
  lean(on: boolean): void;
  /** One full collection now, lean, and a log line of what it freed. */
  collect(): void;
}

export interface V8HeapOptions {
  /** V8's `gc()` (default: `collector()`). */
  gc?: () => void;
  /** Sets V8 flags (node:v8's setFlagsFromString). */
  setFlags?: (flags: string) => void;
  /** The flags node was started with (`nodeFlags()`). */
  flags?: readonly string[];
}

/** The agent's V8 heap, for the idle collector. */
export function v8Heap(log: (line: string) => void, opts: V8HeapOptions = {}): IdleHeap {
  const v8 = () => requireCjs('node:v8') as typeof V8;
  const setFlags = opts.setFlags ?? ((flags: string) => v8().setFlagsFromString(flags));
  const ownSay = (opts.flags ?? nodeFlags()).some((f) => OWN_SAY.test(f));
  let leanOn = false;
  const lean = (on: boolean) => {
    if (ownSay || on === leanOn) return;
    // Off at once when work comes back: V8 takes a code cache only under the flags it was made with.
    setFlags(on ? LEAN_FLAGS.on : LEAN_FLAGS.off);
    leanOn = on;
  };
  return {
    lean,
    collect() {
      const gc = opts.gc ?? collector();
      const before = process.memoryUsage();
      const bytecode = () => v8().getHeapCodeStatistics().bytecode_and_metadata_size;
      const bytecodeBefore = bytecode();
      const wasLean = leanOn;
      lean(true);
      try {
        gc();
      } finally {
        lean(wasLean);
      }
      const after = process.memoryUsage();
      const mib = (n: number, digits = 1) => (n / 1048576).toFixed(digits);
      // The freed pages go back to the system a moment later (V8 unmaps them on a worker thread).
      log(
        `idle after work: full GC, heap used ${mib(before.heapUsed)} -> ${mib(after.heapUsed)} MiB of ${mib(before.heapTotal)}, ` +
          `bytecode ${mib(bytecodeBefore, 2)} -> ${mib(bytecode(), 2)} MiB, RSS ${mib(before.rss)} MiB`,
      );
    },
  };
}

/** Quiet time after work before V8's full collections go lean: a burst's short gaps stay as they were. */
export const LEAN_AFTER_MS = 1000;

/**
 * After work the agent hands memory back, in two steps, while it has no task in flight:
 *   - after LEAN_AFTER_MS of quiet, V8's full collections go lean (LEAN_FLAGS): V8's memory
 *     reducer, which runs some ~8 s after the process goes quiet, then drops the code that ran
 *     once and compacts the heap;
 *   - after `quietMs` (`SYNAPSE_IDLE_GC_MS`), the agent runs one lean full collection itself, and
 *     V8's flags go back to their defaults. V8 keeps the heap a burst of tasks grew (an agent
 *     measured 24.6 MiB committed for 15.6 MiB used, 30 s after its second 1,000 messages): its
 *     reducer does not always run for a process this small, and that collection hands those
 *     pages back (82.3 -> 73.6 MiB RSS there).
 * A task that starts ends both at once. The agent's start-up counts as work: much of its code runs
 * once. Once per quiet spell: an agent that stays idle is not collected again, a busy one not at all.
 */
export class IdleCollector {
  private timer: NodeJS.Timeout | undefined;
  private leanTimer: NodeJS.Timeout | undefined;
  private worked = false;
  private inFlight = false;
  private up = false;
  private readonly heap: IdleHeap | null;

  /** `quietMs` is `SYNAPSE_IDLE_GC_MS`; 0 turns it off. */
  constructor(
    heap: IdleHeap | null,
    private readonly clock: Clock,
    private readonly quietMs: number,
    private readonly leanAfterMs = LEAN_AFTER_MS,
  ) {
    this.heap = quietMs > 0 ? heap : null;
  }

  /** Told once the agent is up (its first READY): its start-up is work too. Later calls do nothing. */
  started(): void {
    if (this.up) return;
    this.up = true;
    this.worked = true;
    this.arm();
  }

  /** Told whenever the agent's task-in-flight state changes. */
  busy(busy: boolean): void {
    this.inFlight = busy;
    if (busy) this.worked = true;
    this.arm();
  }

  /** The agent stops: nothing more is collected, and V8's flags are its defaults again. */
  stop(): void {
    this.clearTimers();
    this.heap?.lean(false);
  }

  /** The quiet time starts over; nothing is waited for while a task runs, or before any work. */
  private arm(): void {
    const heap = this.heap;
    if (!heap) return;
    this.clearTimers();
    if (this.inFlight) heap.lean(false);
    if (this.inFlight || !this.worked) return;
    if (this.leanAfterMs < this.quietMs) this.leanTimer = this.unref(this.clock.setTimeout(() => heap.lean(true), this.leanAfterMs));
    this.timer = this.unref(
      this.clock.setTimeout(() => {
        this.clearTimers();
        this.worked = false;
        heap.collect();
        heap.lean(false);
      }, this.quietMs),
    );
  }

  private clearTimers(): void {
    this.clock.clearTimeout(this.timer);
    this.clock.clearTimeout(this.leanTimer);
    this.timer = this.leanTimer = undefined;
  }

  /** Never what keeps the agent's process alive. */
  private unref(timer: NodeJS.Timeout): NodeJS.Timeout {
    timer.unref?.();
    return timer;
  }
}
