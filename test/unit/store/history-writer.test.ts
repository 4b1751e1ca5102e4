import { describe, expect, it } from 'vitest';
import type { Task } from '../../../src/agent-api/task.js';
import type { History } from '../../../src/store/history-api.js';
import type { HistoryAgent } from '../../../src/store/history-schema.js';
import { AsyncHistoryWriter } from '../../../src/store/history-writer.js';
import { waitFor } from '../../support/synapse.js';

/** The asynchronous history writer (issue 22): queues without waiting, retries, never calls unwritten entries written. */

const agent: HistoryAgent = { agent_id: 'synapse-echo-8100', name: 'a', agent_type: 'echo', working_dir: '/p' };
const task = (id: string, output = 'ok'): Task => ({
  id,
  context_id: 'c',
  status: { state: 'completed', timestamp: '2026-03-01T10:00:05.000Z' },
  message: { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
  artifacts: [{ artifact_id: 'a', name: 'response', parts: [{ type: 'text', text: output }] }],
  metadata: { kind: 'message' },
  priority: 3,
  receipt: { state: 'answered', queued_at: '2026-03-01T10:00:00.000Z' },
  created_at: '2026-03-01T10:00:00.000Z',
  updated_at: '2026-03-01T10:00:05.000Z',
});

/** A store that fails while `down` is true and keeps what it was given. */
function fakeStore() {
  const state = { down: true, written: [] as string[], opens: 0 };
  const history = {
    record: async (t: Task) => {
      if (state.down) throw new Error('connection refused');
      state.written.push(`${t.id}:${(t.artifacts[0]?.parts[0] as { text: string }).text}`);
      return {};
    },
    close: async () => {},
  } as unknown as History;
  return { state, open: async () => (state.opens++, history) };
}

describe('AsyncHistoryWriter', () => {
  it('queues without waiting, reports failure honestly, retries with backoff and writes the backlog oldest first once the store is back', async () => {
    const store = fakeStore();
    const warnings: string[] = [];
    const logs: string[] = [];
    const w = new AsyncHistoryWriter({ open: store.open, location: 'postgres://db', warn: (m) => warnings.push(m), log: (m) => logs.push(m), retryMs: 20 });
    expect(w.record(task('t1'), agent)).toBe(false);
    w.record(task('t2', 'first'), agent);
    w.record(task('t2', 'replaced'), agent);
    expect(await w.flush()).toBe(false);
    expect(w.health()).toMatchObject({ ok: false, backlog: 2, error: 'connection refused' });
    expect(warnings.join('\n')).toContain('cannot record finished tasks in postgres://db: connection refused');
    store.state.down = false;
    await waitFor(() => w.health().backlog === 0, 5_000, 'the retry to write the backlog');
    expect(store.state.written).toEqual(['t1:ok', 't2:replaced']);
    expect(w.health().ok).toBe(true);
    expect(logs.join('\n')).toContain('works again');
    expect(await w.flush()).toBe(true);
    await w.close(1000);
  });

  it('keeps a bounded backlog (dropping the oldest) and on close names what could not be written within the deadline', async () => {
    const store = fakeStore();
    const warnings: string[] = [];
    const w = new AsyncHistoryWriter({ open: store.open, location: 'postgres://db', warn: (m) => warnings.push(m), backlog: 2, retryMs: 10 });
    for (const id of ['aaaaaaaa-1', 'bbbbbbbb-2', 'cccccccc-3']) w.record(task(id), agent);
    await w.flush();
    expect(w.health()).toMatchObject({ backlog: 2, dropped: 1 });
    await w.close(200);
    expect(warnings.at(-1)).toMatch(/history: 2 finished task\(s\) not recorded in postgres:\/\/db \(bbbbbbbb, cccccccc\): connection refused/);
    expect(w.record(task('dddddddd-4'), agent)).toBe(false);
    expect(w.health().backlog).toBe(2);
  });

  it('skips tasks history does not keep (start-up instructions)', async () => {
    const store = fakeStore();
    store.state.down = false;
    const w = new AsyncHistoryWriter({ open: store.open, location: 'x' });
    w.record({ ...task('boot'), metadata: { kind: 'bootstrap' } }, agent);
    expect(w.health().backlog).toBe(0);
    expect(await w.flush()).toBe(true);
    expect(store.state.opens).toBe(0);
    await w.close();
  });
});
