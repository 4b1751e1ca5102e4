import type * as V8 from 'node:v8';
import { requireCjs } from '../require-cjs.js';
import { nodeFlags } from './node-flags.js';

/** V8's two compilers past its interpreter, by the flag that turns each on or off. */
type Compiler = 'turbofan' | 'sparkplug';

/** Node flags that already say what a compiler does: then the gate leaves that compiler alone. */
const OWN_SAY: Record<Compiler, RegExp> = {
  turbofan: /^--(no-)?(turbofan|opt)(=|$)/,
  sparkplug: /^--(no-)?(sparkplug|always-sparkplug)(=|$)/,
};
/** Flags under which V8 compiles nothing past its interpreter: then the gate does nothing at all. */
const NO_JIT = /^--(jitless|lite-mode)(=|$)/;

/**
 * V8's compilers past its interpreter, the optimizing one (TurboFan) and the baseline one
 * (Sparkplug), held off from the CLI's spawn until the CLI has written `budgetChars` of output
 * (`SYNAPSE_OPTIMIZE_AFTER_KB`), then on for good.
 *
 * An agent's start-up runs code once that V8 compiles as if it were hot: xterm builds its
 * parser's table in a loop, Node's module resolver turns ~130 chunk URLs into paths, the first
 * screen is read, the start-up instruction is typed in. TurboFan optimized eight such functions
 * at every start, and its own code, read from the node binary for them, then stays resident (an
 * idle echo agent held 57.3 MiB with it, 53.2 MiB without). Sparkplug's code for ~450 of them
 * stayed in V8's heap, with the bytecode under it (V8 flushes neither by default): 0.75 MiB of the
 * heap, 1 MiB of an idle agent's RSS (guides/agent-runtime.md, "Memory").
 *
 * What an agent does often enough to gain from them is parsing its CLI's screen (xterm parses
 * 1.8 MiB/s with neither, 3.0 with Sparkplug, 5-25 with both), so output turns them on; the
 * default budget costs ~100 ms of CPU once. Until then a message costs the agent ~4 ms more CPU
 * (~21 ms against ~17), which a turn of a real CLI dwarfs; a CLI's first turns spend the budget.
 *
 * While they are held V8's flags are not its defaults, and V8 takes a code cache only under the
 * flags it was made with: a built-in module loaded for the first time meanwhile is compiled from
 * source (what loads before the spawn, on the CLI's start-up path, is not). Once on, the flags
 * are the defaults again (bin/synapse.js).
 */
export class OptimizerGate {
  private left: number;
  /** The compilers this gate holds: those node was given no flag for. */
  private readonly compilers: readonly Compiler[];
  private held = false;
  /** How much output had turned the compilers on, once it has. */
  private releasedAt: number | null = null;
  private onRelease: ((chars: number, compilers: readonly Compiler[]) => void) | null = null;

  constructor(
    private readonly budgetChars: number,
    private readonly setFlags: (flags: string) => void = (flags) => (requireCjs('node:v8') as typeof V8).setFlagsFromString(flags),
    flags: readonly string[] = nodeFlags(),
  ) {
    // A node started with its own say on a compiler keeps it; one that compiles nothing, all of them.
    this.compilers = flags.some((f) => NO_JIT.test(f)) ? [] : (['turbofan', 'sparkplug'] as const).filter((c) => !flags.some((f) => OWN_SAY[c].test(f)));
    this.left = this.compilers.length > 0 ? budgetChars : 0;
  }

  /** From now on the compilers compile nothing, unless the budget is 0 or the CLI has spent it already. */
  hold(): void {
    if (this.held || this.left <= 0) return;
    this.setFlags(this.compilers.map((c) => `--no-${c}`).join(' '));
    this.held = true;
  }

  /** Called with the size of each chunk the CLI writes, from its spawn on; the chunk that spends the budget turns held compilers on. */
  output(chars: number): void {
    if (this.left <= 0) return;
    this.left -= chars;
    if (this.held && this.left <= 0) this.release();
  }

  /** Told when the held compilers go on (at once if they have), with how much output the CLI had written by then. */
  whenReleased(callback: (chars: number, compilers: readonly Compiler[]) => void): void {
    if (this.releasedAt !== null) callback(this.releasedAt, this.compilers);
    else this.onRelease = callback;
  }

  private release(): void {
    this.held = false;
    this.setFlags(this.compilers.map((c) => `--${c}`).join(' '));
    this.releasedAt = this.budgetChars - this.left;
    this.onRelease?.(this.releasedAt, this.compilers);
  }
}
