import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { HookResult } from '../../../src/runtime/hooks.js';
import { gateIdle } from '../../../src/runtime/hooks.js';
import type { ScreenReading } from '../../../src/runtime/screen-status.js';

/** `hooks.on_idle` against a scripted screen and a hook whose results the test hands out. */
function harness() {
  const tracker = Object.assign(new EventEmitter(), { current: null as ScreenReading | null });
  const pending: ((r: HookResult) => void)[] = [];
  const gates = {
    has: () => true,
    run: () => new Promise<HookResult>((resolve) => pending.push(resolve)),
  };
  const gate: boolean[] = [];
  const logs: string[] = [];
  gateIdle(gates, tracker, { setIdleGate: (open: boolean) => gate.push(open) }, (m) => logs.push(m));
  let seq = 0;
  const screen = (status: ScreenReading['status']) => {
    const r = { status, seq: ++seq, at: seq };
    tracker.current = r;
    tracker.emit('reading', r);
  };
  const finish = async (ok: boolean) => {
    pending.shift()!({ ok, exitCode: ok ? 0 : 1, output: ok ? '' : 'lint: 2 errors' });
    await new Promise((r) => setImmediate(r));
  };
  return { screen, finish, pending, gate, logs };
}

describe('gateIdle', () => {
  it('closes the gate while the hook runs, keeps it closed on failure and opens it on success', async () => {
    const h = harness();
    h.screen('READY');
    expect(h.pending).toHaveLength(1);
    expect(h.gate).toEqual([false]);
    await h.finish(false);
    expect(h.gate).toEqual([false, false]);
    expect(h.logs[0]).toContain('hooks.on_idle failed (exit 1)');
    h.screen('PROCESSING');
    h.screen('READY');
    await h.finish(true);
    expect(h.gate.at(-1)).toBe(true);
  });

  it('after a failure, a new READY screen that never left READY runs the hook again', async () => {
    const h = harness();
    h.screen('READY');
    await h.finish(false);
    h.screen('READY');
    expect(h.pending).toHaveLength(1);
    await h.finish(true);
    expect(h.gate.at(-1)).toBe(true);
  });

  it('once it passed, further READY readings do not run it again until the screen leaves READY', async () => {
    const h = harness();
    h.screen('READY');
    await h.finish(true);
    h.screen('READY');
    h.screen('READY');
    expect(h.pending).toHaveLength(0);
    h.screen('PROCESSING');
    h.screen('READY');
    expect(h.pending).toHaveLength(1);
  });

  it('a READY seen while the hook runs queues one more run, whose verdict decides', async () => {
    const h = harness();
    h.screen('READY');
    h.screen('PROCESSING');
    h.screen('READY');
    expect(h.pending).toHaveLength(1);
    await h.finish(false);
    expect(h.pending).toHaveLength(1);
    expect(h.gate).toEqual([false, false]);
    await h.finish(true);
    expect(h.gate).toEqual([false, false, true]);
  });
});
