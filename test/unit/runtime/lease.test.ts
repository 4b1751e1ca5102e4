import { describe, expect, it } from 'vitest';
import { AgentStatusModel } from '../../../src/runtime/agent-status.js';
import { Lease, leaseRecord, type LeaseTerms } from '../../../src/runtime/lease.js';
import { manualClock } from '../../support/manual-clock.js';

function setup(terms: LeaseTerms) {
  const t = manualClock();
  const status = new AgentStatusModel(t.clock);
  const ended: string[] = [];
  const state = { inFlight: false, queued: false };
  const record = leaseRecord(terms);
  const lease = new Lease({ terms, record, clock: t.clock, status, inFlight: () => state.inFlight, queued: () => state.queued, end: (r) => ended.push(r) });
  lease.start();
  return { t, status, ended, state, record, lease };
}

describe('a lease', () => {
  it('idle: the clock starts at READY with nothing to do, stops while the agent works, and ends it once it runs out', () => {
    const s = setup({ idleMs: 60_000 });
    expect(s.record).toEqual({ keep_idle_s: 60, keep_turns: null, turns_answered: 0, idle_ends_at: null });
    s.status.setScreen('READY');
    expect(s.record.idle_ends_at).toBe(new Date(1_000_000 + 60_000).toISOString());
    s.t.advance(30_000);
    // A task: the clock stops, and starts afresh once the agent is idle again.
    s.status.setScreen('PROCESSING');
    expect(s.record.idle_ends_at).toBeNull();
    expect(s.t.pending()).toBe(0);
    s.status.setScreen('READY');
    s.t.advance(59_999);
    expect(s.ended).toEqual([]);
    s.t.advance(1);
    expect(s.ended).toEqual(['its lease ran out: READY with no task for 1m']);
    expect(s.lease.closed).toBe(true);
  });

  it('idle: READY with a task in flight or queued is not idle', () => {
    const s = setup({ idleMs: 1000 });
    s.state.queued = true;
    s.status.setScreen('READY');
    expect(s.t.pending()).toBe(0);
    s.state.queued = false;
    s.lease.check();
    expect(s.t.pending()).toBe(1);
  });

  it('turns: after the n-th answer it takes nothing more, and ends once that turn is over', () => {
    const s = setup({ turns: 2 });
    s.state.inFlight = true;
    s.lease.answered();
    expect(s.lease.closed).toBe(false);
    s.lease.answered();
    expect(s.record.turns_answered).toBe(2);
    expect(s.lease.closed).toBe(true);
    expect(s.ended).toEqual([]);
    s.state.inFlight = false;
    s.lease.check();
    expect(s.ended).toEqual(['its lease ran out: 2 answered task(s) of the 2 it was kept for']);
    s.lease.check();
    expect(s.ended).toHaveLength(1);
  });
});
