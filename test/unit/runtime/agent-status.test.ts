import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/clock.js';
import { AgentStatusModel } from '../../../src/runtime/agent-status.js';

/** A clock whose timers run when the test says, with `now()` where the test put it. */
function manualClock(start: number) {
  let now = start;
  const timers: Array<{ fn: () => void; at: number }> = [];
  const clock: Clock = {
    now: () => now,
    setTimeout: (fn, ms) => {
      timers.push({ fn, at: now + ms });
      return { unref() {} } as unknown as NodeJS.Timeout;
    },
    clearTimeout: () => undefined,
  };
  return {
    clock,
    set: (ms: number) => (now = ms),
    fireTimers: () => timers.splice(0).forEach((t) => t.fn()),
  };
}

describe('AgentStatusModel DONE hold', () => {
  it('goes back to READY when the hold timer fires, even a millisecond before the wall clock reaches the deadline', () => {
    const t = manualClock(1_000_000);
    const model = new AgentStatusModel(t.clock);
    model.setScreen('READY');
    model.setTaskInFlight(true);
    expect(model.status).toBe('PROCESSING');
    model.setTaskInFlight(false);
    model.taskFinished();
    expect(model.status).toBe('DONE');
    // Node's timers can run just before Date.now() reaches the deadline: 9,999 ms of 10,000.
    t.set(1_000_000 + 9_999);
    t.fireTimers();
    expect(model.status).toBe('READY');
  });

  it('holds DONE until the timer fires', () => {
    const t = manualClock(0);
    const model = new AgentStatusModel(t.clock);
    model.setScreen('READY');
    model.taskFinished();
    t.set(5_000);
    model.setScreen('READY');
    expect(model.status).toBe('DONE');
  });
});

describe('AgentStatusModel compound status (file locks)', () => {
  it('reports PROCESSING with the reason while an idle agent holds locks, READY once they are gone', () => {
    const t = manualClock(0);
    const model = new AgentStatusModel(t.clock);
    const changes: string[] = [];
    model.on('change', (next: string) => changes.push(next));
    model.setScreen('READY');
    expect(model.status).toBe('READY');
    model.setLocksHeld(2);
    expect(model.status).toBe('PROCESSING');
    expect(model.reason).toBe('holds 2 file locks');
    model.setLocksHeld(1);
    expect(model.reason).toBe('holds 1 file lock');
    model.setLocksHeld(0);
    expect(model.status).toBe('READY');
    expect(model.reason).toBeNull();
    expect(changes).toEqual(['READY', 'PROCESSING', 'READY']);
  });

  it('lets WAITING and a finished task show through: locks only stop an idle READY', () => {
    const t = manualClock(0);
    const model = new AgentStatusModel(t.clock);
    model.setScreen('READY');
    model.setLocksHeld(1);
    model.taskFinished();
    expect(model.status).toBe('DONE');
    model.setScreen('WAITING');
    expect(model.status).toBe('WAITING');
    expect(model.reason).toBeNull();
    t.fireTimers();
    model.setScreen('READY');
    expect(model.status).toBe('PROCESSING');
  });
});
