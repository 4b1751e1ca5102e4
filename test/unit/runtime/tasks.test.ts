import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clockFrom } from '../../../src/clock.js';
import { TaskManager } from '../../../src/runtime/tasks.js';
import { AgentTaskStore } from '../../../src/store/agent-tasks.js';

describe('task receipts only move forward', () => {
  let dir: string;
  let store: AgentTaskStore;
  let tasks: TaskManager;
  let now = Date.parse('2026-12-01T00:00:00Z');

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'synapse-tasks-'));
    store = new AgentTaskStore(path.join(dir, 'agent.db'));
    tasks = new TaskManager(
      store,
      clockFrom(() => (now += 1000)),
    );
  });
  afterEach(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const message = { role: 'user' as const, parts: [{ type: 'text' as const, text: 'hi' }] };

  it('queued, delivered, answered: each step stamped once with its time', () => {
    const t = tasks.create({ message });
    expect(t.receipt.state).toBe('queued');
    tasks.transition(t.id, 'working');
    tasks.receipt(t.id, 'delivered');
    const done = tasks.transition(t.id, 'completed', { receipt: 'answered' })!;
    expect(done.receipt).toEqual({ state: 'answered', queued_at: expect.any(String), delivered_at: expect.any(String), answered_at: expect.any(String) });
  });

  it('a late "delivered" after the answer keeps the receipt answered', () => {
    const t = tasks.create({ message });
    tasks.transition(t.id, 'working');
    tasks.transition(t.id, 'completed', { receipt: 'answered' });
    const late = tasks.receipt(t.id, 'delivered', { delivery_evidence: 'busy' })!;
    expect(late.receipt.state).toBe('answered');
    expect(late.receipt.delivered_at).toBeTruthy();
    expect(late.metadata.delivery_evidence).toBe('busy');
    expect(tasks.get(t.id).receipt.state).toBe('answered');
  });

  it('a failed or canceled receipt stays so', () => {
    for (const [state, receipt] of [
      ['failed', 'failed'],
      ['canceled', 'canceled'],
    ] as const) {
      const t = tasks.create({ message });
      tasks.transition(t.id, 'working');
      tasks.transition(t.id, state, { receipt });
      expect(tasks.receipt(t.id, 'delivery_unconfirmed')!.receipt.state).toBe(receipt);
    }
  });
});
