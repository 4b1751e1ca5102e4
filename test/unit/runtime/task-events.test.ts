import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../src/agent-api/task-events.js';
import type { Task, TaskState } from '../../../src/agent-api/task.js';
import { clockFrom } from '../../../src/clock.js';
import { TaskEvents } from '../../../src/runtime/task-events.js';

function task(id: string, state: TaskState): Task {
  const now = new Date(0).toISOString();
  return {
    id,
    context_id: 'ctx',
    status: { state, timestamp: now },
    message: { role: 'user', parts: [{ type: 'text', text: `message ${id}` }] },
    artifacts: [],
    metadata: { kind: 'message' },
    priority: 3,
    receipt: { state: 'queued', queued_at: now },
    created_at: now,
    updated_at: now,
  };
}

function replay(events: TaskEvents, id: string): StreamEvent[] {
  const seen: StreamEvent[] = [];
  events.subscribe(id, 0, (e) => seen.push(e))();
  return seen;
}

describe('TaskEvents: bounded journals', () => {
  it('keeps the journals of the last 100 finished tasks; older ones are dropped', () => {
    let now = 0;
    const events = new TaskEvents(clockFrom(() => ++now));
    for (let i = 0; i < 150; i++) {
      events.taskUpdated(task(`t${i}`, 'working'), 'submitted');
      events.taskUpdated(task(`t${i}`, 'completed'), 'working');
    }
    expect(events.hasJournal('t0')).toBe(false);
    expect(events.hasJournal('t49')).toBe(false);
    expect(events.hasJournal('t50')).toBe(true);
    expect(replay(events, 't149').map((e) => e.event)).toEqual(['status', 'status', 'done']);
  });

  it('a finished journal with a listener outlives the limit until the listener leaves', () => {
    let now = 0;
    const events = new TaskEvents(clockFrom(() => ++now));
    events.taskUpdated(task('held', 'completed'), 'working');
    const stop = events.subscribe('held', 0, () => undefined);
    for (let i = 0; i < 120; i++) events.taskUpdated(task(`t${i}`, 'completed'), 'working');
    expect(events.hasJournal('held')).toBe(true);
    stop();
    events.taskUpdated(task('one-more', 'completed'), 'working');
    expect(events.hasJournal('held')).toBe(false);
  });

  it('holds at most 2000 output lines per task, dropping the oldest; ids keep counting and status events stay', () => {
    const events = new TaskEvents();
    events.taskUpdated(task('long', 'working'), 'submitted');
    let text = '';
    for (let i = 0; i < 3000; i++) {
      text += `line ${i}\n`;
      if (i % 100 === 99) events.output('long', text);
    }
    const all = replay(events, 'long');
    const lines = all.filter((e) => e.event === 'output').flatMap((e) => (e.data as { lines: string[] }).lines);
    expect(lines.length).toBeLessThanOrEqual(2000);
    expect(lines.at(-1)).toBe('line 2999');
    expect(lines[0]).toBe(`line ${3000 - lines.length}`);
    expect(all[0]!.event).toBe('status');
    const ids = all.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids.at(-1)).toBe(31); // 1 status + 30 output events, whatever was dropped
    // A client that reconnects after the last id gets only what is new.
    events.output('long', `${text}line 3000\n`);
    expect(
      ((): StreamEvent[] => {
        const seen: StreamEvent[] = [];
        events.subscribe('long', 31, (e) => seen.push(e))();
        return seen;
      })().map((e) => e.data),
    ).toMatchObject([{ type: 'output', task_id: 'long', lines: ['line 3000'] }]);
  });
});
