import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { fullGc, IdleCollector } from '../../../src/runtime/idle-gc.js';
import { manualClock } from '../../support/manual-clock.js';

const IDLE_GC_QUIET_MS = 15_000;

function setup() {
  const t = manualClock();
  let collections = 0;
  const gc = new IdleCollector(() => collections++, t.clock, IDLE_GC_QUIET_MS);
  return { t, gc, collections: () => collections };
}

describe('the idle collector', () => {
  it('collects once, when the agent has had no task for the quiet time after one', () => {
    const s = setup();
    s.gc.busy(true);
    s.gc.busy(false);
    s.t.advance(IDLE_GC_QUIET_MS - 1);
    expect(s.collections()).toBe(0);
    s.t.advance(1);
    expect(s.collections()).toBe(1);
    // Staying idle: not again.
    s.t.advance(IDLE_GC_QUIET_MS * 10);
    s.gc.busy(false);
    s.t.advance(IDLE_GC_QUIET_MS * 10);
    expect(s.collections()).toBe(1);
  });

  it('waits while tasks keep coming: a new task before the quiet time is up starts the wait over', () => {
    const s = setup();
    for (let i = 0; i < 5; i++) {
      s.gc.busy(true);
      s.t.advance(1_000);
      s.gc.busy(false);
      s.t.advance(IDLE_GC_QUIET_MS - 1_000);
    }
    expect(s.collections()).toBe(0);
    s.gc.busy(true);
    s.t.advance(IDLE_GC_QUIET_MS * 3); // one long task: no collection while it runs
    expect(s.collections()).toBe(0);
    s.gc.busy(false);
    s.t.advance(IDLE_GC_QUIET_MS);
    expect(s.collections()).toBe(1);
    // The next piece of work earns the next collection.
    s.gc.busy(true);
    s.gc.busy(false);
    s.t.advance(IDLE_GC_QUIET_MS);
    expect(s.collections()).toBe(2);
  });

  it('does nothing before any work, after stop, without gc(), or when SYNAPSE_IDLE_GC_MS is 0', () => {
    const s = setup();
    s.gc.busy(false);
    s.t.advance(IDLE_GC_QUIET_MS * 2);
    expect(s.collections()).toBe(0);
    s.gc.busy(true);
    s.gc.busy(false);
    s.gc.stop();
    s.t.advance(IDLE_GC_QUIET_MS * 2);
    expect(s.collections()).toBe(0);
    expect(s.t.pending()).toBe(0);

    const t = manualClock();
    const without = new IdleCollector(null, t.clock, IDLE_GC_QUIET_MS);
    without.busy(true);
    without.busy(false);
    let collections = 0;
    const off = new IdleCollector(() => collections++, t.clock, 0);
    off.busy(true);
    off.busy(false);
    t.advance(IDLE_GC_QUIET_MS * 2);
    expect(t.pending()).toBe(0);
    expect(collections).toBe(0);
  });

  it('collects without leaving --expose-gc on: a code cache made before is still taken after (V8 refuses one made under other flags)', () => {
    const source = 'function answer() { return 42; }\nanswer();\n';
    // Another file name each time: the same source under the same name would come from V8's
    // in-memory compilation cache, and the code cache would not even be looked at.
    const cachedData = new vm.Script(source, { filename: 'made.js' }).createCachedData();
    const lines: string[] = [];
    fullGc((line) => lines.push(line))();
    expect(lines).toEqual([expect.stringMatching(/^idle after work: full GC, heap used [\d.]+ -> [\d.]+ MiB of [\d.]+, RSS [\d.]+ MiB$/)]);
    expect(new vm.Script(source, { cachedData, filename: 'taken.js' }).cachedDataRejected).toBe(false);
  });
});
