import { execFileSync } from 'node:child_process';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { IdleCollector, LEAN_AFTER_MS, LEAN_FLAGS, v8Heap, type IdleHeap } from '../../../src/runtime/idle-gc.js';
import { manualClock } from '../../support/manual-clock.js';

const IDLE_GC_QUIET_MS = 15_000;

/** A heap that records what the collector asks of it. */
function recordingHeap() {
  const calls: string[] = [];
  const heap: IdleHeap = { lean: (on) => calls.push(on ? 'lean' : 'unlean'), collect: () => calls.push('collect') };
  return { heap, calls, collections: () => calls.filter((c) => c === 'collect').length };
}

function setup(quietMs = IDLE_GC_QUIET_MS) {
  const t = manualClock();
  const h = recordingHeap();
  const gc = new IdleCollector(h.heap, t.clock, quietMs);
  return { t, gc, ...h };
}

describe('the idle collector', () => {
  it('after work: V8 lean after a second of quiet, one collection after the quiet time, then V8 as it was', () => {
    const s = setup();
    s.gc.busy(true);
    expect(s.calls).toEqual(['unlean']);
    s.calls.length = 0;
    s.gc.busy(false);
    s.t.advance(LEAN_AFTER_MS - 1);
    expect(s.calls).toEqual([]);
    s.t.advance(1);
    expect(s.calls).toEqual(['lean']);
    s.t.advance(IDLE_GC_QUIET_MS - LEAN_AFTER_MS - 1);
    expect(s.collections()).toBe(0);
    s.t.advance(1);
    expect(s.calls).toEqual(['lean', 'collect', 'unlean']);
    // Staying idle: not again.
    s.t.advance(IDLE_GC_QUIET_MS * 10);
    s.gc.busy(false);
    s.t.advance(IDLE_GC_QUIET_MS * 10);
    expect(s.calls).toEqual(['lean', 'collect', 'unlean']);
    expect(s.t.pending()).toBe(0);
  });

  it('counts the start-up as work: the first READY earns a quiet spell, once', () => {
    const s = setup();
    s.gc.started();
    s.t.advance(IDLE_GC_QUIET_MS);
    expect(s.calls).toEqual(['lean', 'collect', 'unlean']);
    s.gc.started();
    s.t.advance(IDLE_GC_QUIET_MS * 2);
    expect(s.collections()).toBe(1);
  });

  it('a task ends the lean spell at once, and a new task before the quiet time is up starts the wait over', () => {
    const s = setup();
    for (let i = 0; i < 5; i++) {
      s.gc.busy(true);
      s.t.advance(1_000);
      s.gc.busy(false);
      s.t.advance(IDLE_GC_QUIET_MS - 1_000);
    }
    expect(s.collections()).toBe(0);
    // Each quiet spell went lean after a second, and each task put V8 back before it ran.
    expect(s.calls.join(' ')).toBe('unlean lean unlean lean unlean lean unlean lean unlean lean');
    s.calls.length = 0;
    s.gc.busy(true);
    s.t.advance(IDLE_GC_QUIET_MS * 3); // one long task: nothing while it runs
    expect(s.calls).toEqual(['unlean']);
    s.gc.busy(false);
    s.t.advance(IDLE_GC_QUIET_MS);
    expect(s.calls).toEqual(['unlean', 'lean', 'collect', 'unlean']);
    // The next piece of work earns the next collection.
    s.gc.busy(true);
    s.gc.busy(false);
    s.t.advance(IDLE_GC_QUIET_MS);
    expect(s.collections()).toBe(2);
  });

  it('a quiet time shorter than a second collects without a lean spell first', () => {
    const s = setup(300);
    s.gc.busy(true);
    s.gc.busy(false);
    s.t.advance(300);
    expect(s.calls).toEqual(['unlean', 'collect', 'unlean']);
  });

  it('does nothing before any work, after stop, or when SYNAPSE_IDLE_GC_MS is 0', () => {
    const s = setup();
    s.gc.busy(false);
    s.t.advance(IDLE_GC_QUIET_MS * 2);
    expect(s.calls).toEqual([]);
    s.gc.busy(true);
    s.gc.busy(false);
    s.t.advance(LEAN_AFTER_MS);
    s.gc.stop();
    expect(s.calls).toEqual(['unlean', 'lean', 'unlean']);
    s.t.advance(IDLE_GC_QUIET_MS * 2);
    expect(s.collections()).toBe(0);
    expect(s.t.pending()).toBe(0);

    const t = manualClock();
    const h = recordingHeap();
    const off = new IdleCollector(h.heap, t.clock, 0);
    off.started();
    off.busy(true);
    off.busy(false);
    off.stop();
    t.advance(IDLE_GC_QUIET_MS * 2);
    expect(t.pending()).toBe(0);
    expect(h.calls).toEqual([]);
  });
});

/** V8's heap with its flag changes and collections recorded instead of made. */
function recordedV8(flags: string[] = []) {
  const calls: string[] = [];
  const lines: string[] = [];
  const heap = v8Heap((l) => lines.push(l), { gc: () => calls.push('gc'), setFlags: (f) => calls.push(f), flags });
  return { heap, calls, lines };
}

describe('the agent V8 heap', () => {
  it('sets the lean flags once when asked, and the defaults once when not', () => {
    const r = recordedV8();
    r.heap.lean(true);
    r.heap.lean(true);
    r.heap.lean(false);
    r.heap.lean(false);
    expect(r.calls).toEqual([LEAN_FLAGS.on, LEAN_FLAGS.off]);
  });

  it('collects lean, leaves the flags as they were, and logs what went, bytecode included', () => {
    const r = recordedV8();
    r.heap.collect();
    expect(r.calls).toEqual([LEAN_FLAGS.on, 'gc', LEAN_FLAGS.off]);
    r.calls.length = 0;
    r.heap.lean(true);
    r.heap.collect();
    expect(r.calls).toEqual([LEAN_FLAGS.on, 'gc']);
    expect(r.lines).toEqual([
      expect.stringMatching(/^idle after work: full GC, heap used [\d.]+ -> [\d.]+ MiB of [\d.]+, bytecode [\d.]+ -> [\d.]+ MiB, RSS [\d.]+ MiB$/),
      expect.anything(),
    ]);
  });

  it("leaves V8's flags alone when node was started with its own say on code flushing or compaction", () => {
    for (const own of [
      '--no-flush-bytecode',
      '--bytecode-old-age=9',
      '--stress-flush-code',
      '--compact-on-every-full-gc',
      '--no-stress-compaction',
      '--flush-baseline-code',
    ]) {
      const r = recordedV8([own]);
      r.heap.lean(true);
      r.heap.collect();
      r.heap.lean(false);
      expect(r.calls, own).toEqual(['gc']);
    }
    // Flags that only name a neighbour are not a say.
    const r = recordedV8(['--trace-flush-bytecode', '--trace-gc']);
    r.heap.lean(true);
    expect(r.calls).toEqual([LEAN_FLAGS.on]);
  });

  it("puts back V8's defaults: LEAN_FLAGS.off is what `node --v8-options` says", () => {
    const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    for (const flag of LEAN_FLAGS.off.split(' ')) {
      const name = flag.replace(/^--(no-)?/, '');
      expect(options, name).toMatch(new RegExp(`--${name} \\(.*\\n\\s+type: bool\\s+default: ${flag}\\n`));
    }
    for (const flag of LEAN_FLAGS.on.split(' ')) expect(options).toContain(`${flag} (`);
  });

  it('collects for real without leaving a flag changed: a code cache made before is still taken after (V8 refuses one made under other flags)', () => {
    const source = 'function answer() { return 42; }\nanswer();\n';
    // Another file name each time: the same source under the same name would come from V8's
    // in-memory compilation cache, and the code cache would not even be looked at.
    const cachedData = new vm.Script(source, { filename: 'made.js' }).createCachedData();
    const lines: string[] = [];
    const heap = v8Heap((line) => lines.push(line), { flags: [] });
    heap.collect();
    heap.lean(true);
    expect(new vm.Script(source, { cachedData, filename: 'lean.js' }).cachedDataRejected).toBe(true);
    heap.lean(false);
    expect(lines).toEqual([expect.stringMatching(/^idle after work: full GC, .* bytecode [\d.]+ -> [\d.]+ MiB, RSS [\d.]+ MiB$/)]);
    expect(new vm.Script(source, { cachedData, filename: 'taken.js' }).cachedDataRejected).toBe(false);
  });
});
