import type * as V8 from 'node:v8';
import { requireCjs } from '../require-cjs.js';

/** Node flags that already say what V8's optimizing compiler does: then the gate leaves it alone. */
const OPTIMIZER_FLAG = /^--(no-)?(turbofan|opt)(=|$)/;

/**
 * V8's optimizing compiler (TurboFan), held off from the CLI's spawn until the CLI has written
 * `budgetChars` of output (`SYNAPSE_OPTIMIZE_AFTER_KB`), then on for good.
 *
 * V8 optimizes a function once it has run a while, and an agent's start-up trips that with code
 * that runs once: xterm builds its parser's table in a loop, Node's module resolver turns ~130
 * chunk URLs into paths, the first screen is read. Eight functions were compiled at every start,
 * and the compiler's own code, read from the node binary for them, then stays resident: an idle
 * echo agent held 57.3 MiB with it and 53.2 MiB without (guides/agent-runtime.md, "Memory").
 * What an agent does often enough to gain from optimizing is parsing its CLI's screen: xterm
 * parses ~2.3 MiB/s unoptimized and 11-25 MiB/s optimized, so output is what turns it on; the
 * default budget costs ~60 ms of CPU once. Handling messages took the same CPU either way
 * (18-21 ms a message, held or not), so requests do not.
 *
 * While it is held V8's flags are not its defaults, and V8 takes a code cache only under the
 * flags it was made with: a built-in module loaded for the first time meanwhile is compiled from
 * source (what loads before the spawn, on the CLI's start-up path, is not). Once on, the flags are
 * the defaults again (bin/synapse.js).
 */
export class OptimizerGate {
  private left: number;
  private held = false;
  /** How much output had turned it on, once it has. */
  private releasedAt: number | null = null;
  private onRelease: ((chars: number) => void) | null = null;

  constructor(
    private readonly budgetChars: number,
    private readonly setFlags: (flags: string) => void = (flags) => (requireCjs('node:v8') as typeof V8).setFlagsFromString(flags),
    execArgv: readonly string[] = process.execArgv,
  ) {
    // A node started with its own say on the optimizer keeps it.
    this.left = execArgv.some((a) => OPTIMIZER_FLAG.test(a)) ? 0 : budgetChars;
  }

  /** From now on nothing is optimized, unless the budget is 0 or the CLI has spent it already. */
  hold(): void {
    if (this.held || this.left <= 0) return;
    this.setFlags('--no-turbofan');
    this.held = true;
  }

  /** Called with the size of each chunk the CLI writes, from its spawn on; the chunk that spends the budget turns a held optimizer on. */
  output(chars: number): void {
    if (this.left <= 0) return;
    this.left -= chars;
    if (this.held && this.left <= 0) this.release();
  }

  /** Told when the held optimizer goes on (at once if it has), with how much output the CLI had written by then. */
  whenReleased(callback: (chars: number) => void): void {
    if (this.releasedAt !== null) callback(this.releasedAt);
    else this.onRelease = callback;
  }

  private release(): void {
    this.held = false;
    this.setFlags('--turbofan');
    this.releasedAt = this.budgetChars - this.left;
    this.onRelease?.(this.releasedAt);
  }
}
