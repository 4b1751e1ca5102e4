import { describe, expect, it } from 'vitest';
import { nodeFlags } from '../../../src/runtime/node-flags.js';
import { OptimizerGate } from '../../../src/runtime/optimizer-gate.js';

const HOLD = '--no-turbofan --no-sparkplug';
const RELEASE = '--turbofan --sparkplug';

/** A gate whose V8 flag changes are recorded instead of made. */
function gate(budget: number, flagsGiven: string[] = []) {
  const flags: string[] = [];
  const released: string[] = [];
  const g = new OptimizerGate(budget, (f) => flags.push(f), flagsGiven);
  return { g, flags, released, onRelease: () => g.whenReleased((chars, compilers) => released.push(`${chars} ${compilers.join(',')}`)) };
}

describe('OptimizerGate', () => {
  it('holds both compilers off until the CLI has written the budget, then turns them on once', () => {
    const { g, flags, released, onRelease } = gate(1000);
    onRelease();
    g.hold();
    expect(flags).toEqual([HOLD]);
    g.output(600);
    g.output(399);
    expect(flags).toEqual([HOLD]);
    g.output(5);
    expect({ flags, released }).toEqual({ flags: [HOLD, RELEASE], released: ['1004 turbofan,sparkplug'] });
    g.output(10_000);
    g.hold();
    expect(flags).toEqual([HOLD, RELEASE]);
  });

  it('counts the output written before the hold: a CLI that has spent the budget by then is never held', () => {
    const { g, flags } = gate(1000);
    g.output(400);
    g.hold();
    g.output(599);
    expect(flags).toEqual([HOLD]);
    g.output(1);
    expect(flags).toEqual([HOLD, RELEASE]);

    const early = gate(1000);
    early.onRelease();
    early.g.output(1500);
    early.g.hold();
    expect({ flags: early.flags, released: early.released }).toEqual({ flags: [], released: [] });
  });

  it('tells a listener that comes after the release at once', () => {
    const { g, released, onRelease } = gate(10);
    g.hold();
    g.output(12);
    expect(released).toEqual([]);
    onRelease();
    expect(released).toEqual(['12 turbofan,sparkplug']);
  });

  it('does nothing with a budget of 0, under --jitless or --lite-mode, or when node has its say on both compilers', () => {
    for (const [budget, given] of [
      [0, []],
      [1000, ['--jitless']],
      [1000, ['--lite-mode']],
      [1000, ['--no-opt', '--sparkplug']],
      [1000, ['--turbofan', '--no-sparkplug']],
      [1000, ['--no-turbofan', '--always-sparkplug']],
    ] as const) {
      const { g, flags, released, onRelease } = gate(budget, [...given]);
      onRelease();
      g.hold();
      g.output(5000);
      expect({ budget, given, flags, released }).toEqual({ budget, given, flags: [], released: [] });
    }
  });

  it('leaves alone the one compiler node was given a flag for, and holds the other', () => {
    const opt = gate(1000, ['--no-opt']);
    opt.onRelease();
    opt.g.hold();
    opt.g.output(1000);
    expect({ flags: opt.flags, released: opt.released }).toEqual({ flags: ['--no-sparkplug', '--sparkplug'], released: ['1000 sparkplug'] });

    const baseline = gate(1000, ['--no-sparkplug']);
    baseline.onRelease();
    baseline.g.hold();
    baseline.g.output(1000);
    expect({ flags: baseline.flags, released: baseline.released }).toEqual({ flags: ['--no-turbofan', '--turbofan'], released: ['1000 turbofan'] });
  });

  it('is not fooled by flags that only name a compiler', () => {
    const { g, flags } = gate(1000, ['--trace-opt', '--max-semi-space-size=1', '--optimize-for-size', '--trace-baseline-batch-compilation', '--jitless-x']);
    g.hold();
    expect(flags).toEqual([HOLD]);
  });
});

describe('nodeFlags', () => {
  it("reads NODE_OPTIONS too (node's execArgv leaves it out), with a name's underscores as dashes", () => {
    expect(nodeFlags(['--no_opt', '--v8-pool-size=1'], ' --require /a_b.cjs  --jitless --stack_trace_limit=5 ')).toEqual([
      '--no-opt',
      '--v8-pool-size=1',
      '--require',
      '--jitless',
      '--stack-trace-limit=5',
    ]);
    const underscored = gate(1000, nodeFlags(['--no_opt'], ''));
    underscored.g.hold();
    expect(underscored.flags).toEqual(['--no-sparkplug']);
  });
});
