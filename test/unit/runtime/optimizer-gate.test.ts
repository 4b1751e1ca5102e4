import { describe, expect, it } from 'vitest';
import { OptimizerGate } from '../../../src/runtime/optimizer-gate.js';

/** A gate whose V8 flag changes are recorded instead of made. */
function gate(budget: number, execArgv: string[] = []) {
  const flags: string[] = [];
  const released: number[] = [];
  const g = new OptimizerGate(budget, (f) => flags.push(f), execArgv);
  return { g, flags, released, onRelease: () => g.whenReleased((chars) => released.push(chars)) };
}

describe('OptimizerGate', () => {
  it('holds the optimizer off until the CLI has written the budget, then turns it on once', () => {
    const { g, flags, released, onRelease } = gate(1000);
    onRelease();
    g.hold();
    expect(flags).toEqual(['--no-turbofan']);
    g.output(600);
    g.output(399);
    expect(flags).toEqual(['--no-turbofan']);
    g.output(5);
    expect({ flags, released }).toEqual({ flags: ['--no-turbofan', '--turbofan'], released: [1004] });
    g.output(10_000);
    g.hold();
    expect(flags).toEqual(['--no-turbofan', '--turbofan']);
  });

  it('counts the output written before the hold: a CLI that has spent the budget by then is never held', () => {
    const { g, flags } = gate(1000);
    g.output(400);
    g.hold();
    g.output(599);
    expect(flags).toEqual(['--no-turbofan']);
    g.output(1);
    expect(flags).toEqual(['--no-turbofan', '--turbofan']);

    const early = gate(1000);
    early.g.output(1500);
    early.g.hold();
    expect(early.flags).toEqual([]);
  });

  it('tells a listener that comes after the release at once', () => {
    const { g, released, onRelease } = gate(10);
    g.hold();
    g.output(12);
    expect(released).toEqual([]);
    onRelease();
    expect(released).toEqual([12]);
  });

  it('does nothing with a budget of 0, or when node was started with its own say on the optimizer', () => {
    for (const [budget, argv] of [
      [0, []],
      [1000, ['--no-turbofan']],
      [1000, ['--turbofan']],
      [1000, ['--no-opt']],
    ] as const) {
      const { g, flags, released, onRelease } = gate(budget, [...argv]);
      onRelease();
      g.hold();
      g.output(5000);
      expect({ budget, argv, flags, released }).toEqual({ budget, argv, flags: [], released: [] });
    }
  });

  it('is not fooled by flags that only name the optimizer', () => {
    const { g, flags } = gate(1000, ['--trace-opt', '--max-semi-space-size=1', '--optimize-for-size']);
    g.hold();
    expect(flags).toEqual(['--no-turbofan']);
  });
});
