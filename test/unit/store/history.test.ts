import { clockFrom } from '../../../src/clock.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Task, TaskState } from '../../../src/agent-api/task.js';
import { csvField, writeExport } from '../../../src/store/history-export.js';
import { HistoryRecorder, closeHistoryRecorders, recordFinishedTask } from '../../../src/store/history-recorder.js';
import { HistoryStore, historyDbPath, historyEnabled, isRecordable, type HistoryAgent } from '../../../src/store/history.js';

let home: string;
let env: Record<string, string>;
let store: HistoryStore;
let clock: number;

const alice: HistoryAgent = { agent_id: 'synapse-claude-8100', name: 'alice', agent_type: 'claude', working_dir: '/work/p' };
const bob: HistoryAgent = { agent_id: 'synapse-codex-8120', name: 'bob', agent_type: 'codex', working_dir: '/work/p' };

let seq = 0;
/** A finished task: queued at `t`, delivered 1 s later, finished after `turnMs` more. */
function finished(
  state: TaskState,
  opts: { id?: string; input?: string; output?: string; t?: number; turnMs?: number; metadata?: Task['metadata']; message?: string } = {},
): Task {
  const t = opts.t ?? Date.parse('2026-03-01T10:00:00Z') + seq * 60_000;
  seq++;
  const iso = (ms: number) => new Date(ms).toISOString();
  const done = t + 1000 + (opts.turnMs ?? 4000);
  return {
    id: opts.id ?? `${String(seq).padStart(8, '0')}-0000-4000-8000-000000000000`,
    context_id: 'ctx',
    status: { state, timestamp: iso(done), ...(opts.message ? { message: opts.message } : {}) },
    message: { role: 'user', parts: [{ type: 'text', text: opts.input ?? 'please build the parser' }] },
    artifacts: opts.output === undefined ? [] : [{ artifact_id: 'a', name: 'response', parts: [{ type: 'text', text: opts.output }] }],
    metadata: { kind: 'message', sender: { sender_id: 'synapse-gemini-8110', sender_name: 'carol', sender_type: 'gemini' }, ...(opts.metadata ?? {}) },
    priority: 3,
    receipt: {
      state: state === 'completed' ? 'answered' : state === 'failed' ? 'failed' : 'canceled',
      queued_at: iso(t),
      delivered_at: iso(t + 1000),
      ...(state === 'completed' ? { answered_at: iso(done) } : {}),
    },
    created_at: iso(t),
    updated_at: iso(done),
  };
}

beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'history-unit-'));
  env = { HOME: home, SYNAPSE_HOME: path.join(home, '.synapse') };
  clock = Date.parse('2026-04-01T00:00:00Z');
  seq = 0;
  store = HistoryStore.open(env, { clock: clockFrom(() => clock) });
});

afterEach(() => {
  store.close();
  closeHistoryRecorders();
  fs.rmSync(home, { recursive: true, force: true });
});

describe('history store', () => {
  it('keeps the sender, texts, receipts, reply source and times of a finished task', () => {
    const task = finished('completed', { output: 'parser done', turnMs: 9000, metadata: { reply_source: 'reply', response_mode: 'wait' } });
    store.record(task, alice);
    const [e] = store.list();
    expect(e).toMatchObject({
      task_id: task.id,
      agent_id: 'synapse-claude-8100',
      agent_name: 'alice',
      agent_type: 'claude',
      sender_id: 'synapse-gemini-8110',
      sender_name: 'carol',
      sender_type: 'gemini',
      input: 'please build the parser',
      output: 'parser done',
      status: 'completed',
      reply_source: 'reply',
      created_at: task.created_at,
      finished_at: task.status.timestamp,
      duration_ms: 10_000,
      turn_ms: 9000,
    });
    expect(e!.receipt).toEqual(task.receipt);
    expect(e!.metadata).toMatchObject({ response_mode: 'wait' });
    expect(historyDbPath(env)).toBe(path.join(home, '.synapse', 'history', 'history.db'));
    expect(fs.statSync(path.dirname(historyDbPath(env))).mode & 0o077).toBe(0);
  });

  it('recording a task again updates its entry (an explicit reply replaces captured output)', () => {
    const t = finished('completed', { output: 'captured screen output', metadata: { reply_source: 'output' } });
    store.record(t, alice);
    store.record(
      {
        ...t,
        artifacts: [{ artifact_id: 'b', name: 'response', parts: [{ type: 'text', text: 'the real answer' }] }],
        metadata: { ...t.metadata, reply_source: 'reply' },
      },
      alice,
    );
    expect(store.list()).toHaveLength(1);
    expect(store.list()[0]).toMatchObject({ output: 'the real answer', reply_source: 'reply' });
    expect(store.search(['captured'])).toEqual([]);
    expect(store.search(['real', 'answer'], { logic: 'AND' })).toHaveLength(1);
  });

  it('lists newest first, filtered by agent id, name or type, with a limit', () => {
    store.record(finished('completed'), alice);
    store.record(finished('failed'), bob);
    store.record(finished('completed'), alice);
    expect(store.list().map((e) => e.agent_name)).toEqual(['alice', 'bob', 'alice']);
    expect(store.list({ agent: 'bob' })).toHaveLength(1);
    expect(store.list({ agent: 'synapse-claude-8100' })).toHaveLength(2);
    expect(store.list({ agent: 'codex' })).toHaveLength(1);
    expect(store.list({ limit: 1 })[0]!.agent_name).toBe('alice');
  });

  it('finds by full id or unique prefix; ambiguity and absence are errors that say what to do', () => {
    store.record(finished('completed', { id: 'abcd1111-0000-4000-8000-000000000000' }), alice);
    store.record(finished('completed', { id: 'abcd2222-0000-4000-8000-000000000000' }), alice);
    expect(store.find('abcd1').task_id).toBe('abcd1111-0000-4000-8000-000000000000');
    expect(() => store.find('abcd')).toThrowError(
      expect.objectContaining({ code: 'ambiguous_task', message: expect.stringMatching(/abcd1111.*\n.*abcd2222|abcd2222.*\n.*abcd1111/s) }),
    );
    expect(() => store.find('ffff')).toThrowError(expect.objectContaining({ code: 'task_not_found' }));
    expect(() => store.find('abcd%')).toThrowError(expect.objectContaining({ code: 'task_not_found' }));
  });

  it('one task id handled by two agents is two entries; --agent picks one', () => {
    const id = 'feed0000-0000-4000-8000-000000000000';
    store.record(finished('completed', { id }), alice);
    store.record(finished('failed', { id }), bob);
    expect(() => store.find(id)).toThrowError(expect.objectContaining({ code: 'ambiguous_task', message: expect.stringContaining('--agent') }));
    expect(store.find(id, { agent: 'bob' }).status).toBe('failed');
  });

  it('searches input and output with AND / OR, prefixes and phrases, safely', () => {
    store.record(finished('completed', { input: 'fix the login form validation', output: 'validation fixed' }), alice);
    store.record(finished('completed', { input: 'write the migration', output: 'migrations written for postgres' }), bob);
    store.record(finished('failed', { input: 'deploy the login service', output: '' }), bob);
    expect(
      store
        .search(['login'])
        .map((e) => e.input)
        .sort(),
    ).toEqual(['deploy the login service', 'fix the login form validation']);
    expect(store.search(['login', 'validation'], { logic: 'AND' }).map((e) => e.input)).toEqual(['fix the login form validation']);
    expect(store.search(['login', 'postgres'], { logic: 'OR' })).toHaveLength(3);
    expect(store.search(['migra'])).toHaveLength(1);
    expect(store.search(['login form'])).toHaveLength(1);
    expect(store.search(['login'], { agent: 'bob' })).toHaveLength(1);
    expect(store.search(['NOT', 'AND(', '"quoted'])).toEqual([]);
    expect(() => store.search(['!!!'])).toThrowError(expect.objectContaining({ code: 'usage' }));
    expect(store.search(['login'], { limit: 1 })).toHaveLength(1);
  });

  it('stats: totals, success rate and median turn time of completed tasks, per agent', () => {
    store.record(finished('completed', { turnMs: 1000 }), alice);
    store.record(finished('completed', { turnMs: 3000 }), alice);
    store.record(finished('completed', { turnMs: 8000 }), alice);
    store.record(finished('failed', { turnMs: 100_000 }), alice);
    store.record(finished('completed', { turnMs: 2000 }), bob);
    store.record(finished('canceled'), bob);
    const s = store.stats();
    expect(s).toMatchObject({ total: 6, completed: 4, failed: 1, canceled: 1, success_rate: 4 / 6, median_turn_ms: 2500 });
    expect(s.agents.map((a) => [a.agent_name, a.total, a.completed, a.success_rate, a.median_turn_ms])).toEqual([
      ['alice', 4, 3, 0.75, 3000],
      ['bob', 2, 1, 0.5, 2000],
    ]);
    expect(s.db_bytes).toBeGreaterThan(0);
    expect(store.stats({ agent: 'bob' })).toMatchObject({ total: 2, median_turn_ms: 2000 });
  });

  it('links an answer to the task it answers', () => {
    const asked = finished('completed', { id: 'a5ced000-0000-4000-8000-000000000000', input: 'question?' });
    store.record(asked, bob);
    store.record(finished('completed', { input: 'the answer', metadata: { in_reply_to: asked.id } }), alice);
    const e = store.find(asked.id);
    expect(store.related(e).map((r) => r.input)).toEqual(['the answer']);
    expect(store.related(store.list({ agent: 'alice' })[0]!).map((r) => r.task_id)).toEqual([asked.id]);
  });

  it('cleanup --days deletes only entries finished before the cutoff; a dry run deletes nothing', () => {
    const day = 86_400_000;
    store.record(finished('completed', { t: clock - 40 * day }), alice);
    store.record(finished('completed', { t: clock - 20 * day }), alice);
    store.record(finished('completed', { t: clock - 1 * day }), alice);
    expect(store.cleanup({ days: 30, dryRun: true })).toMatchObject({ dry_run: true, deleted: 1, remaining: 2 });
    expect(store.list()).toHaveLength(3);
    expect(store.cleanup({ days: 10 })).toMatchObject({ dry_run: false, deleted: 2, remaining: 1 });
    expect(store.list()).toHaveLength(1);
    expect(store.search(['parser'])).toHaveLength(1);
  });

  it('cleanup --max-size deletes the oldest entries until the file fits', () => {
    const filler = 'lorem ipsum dolor sit amet '.repeat(200);
    for (let i = 0; i < 200; i++) store.record(finished('completed', { output: `${i} ${filler}` }), alice);
    const before = store.bytes();
    const max = Math.floor(before / 2);
    const result = store.cleanup({ maxBytes: max });
    expect(result.deleted).toBeGreaterThan(0);
    expect(result.bytes_after).toBeLessThanOrEqual(max);
    expect(store.bytes()).toBeLessThanOrEqual(max);
    // The newest survive.
    const kept = store.list({ limit: 1000 });
    expect(kept).toHaveLength(result.remaining);
    expect(kept[0]!.output.startsWith('199 ')).toBe(true);
    expect(() => store.cleanup({})).toThrowError(expect.objectContaining({ code: 'usage' }));
  });

  it('exports JSON and RFC 4180 CSV', () => {
    store.record(finished('completed', { input: 'say "hi", then\nstop', output: 'ok' }), alice);
    let json = '';
    expect(writeExport(store.iterate(), 'json', (c) => (json += c))).toBe(1);
    expect(JSON.parse(json)[0]).toMatchObject({ input: 'say "hi", then\nstop', agent_name: 'alice' });
    let csv = '';
    writeExport(store.iterate(), 'csv', (c) => (csv += c));
    expect(csv.split('\r\n')[0]).toMatch(/^task_id,agent_id,agent_name,/);
    expect(csv).toContain('"say ""hi"", then\nstop"');
    expect(csvField(null)).toBe('');
    expect(csvField({ a: 1 })).toBe('"{""a"":1}"');
    let empty = '';
    writeExport([], 'json', (c) => (empty += c));
    expect(JSON.parse(empty)).toEqual([]);
  });
});

describe('recording finished tasks', () => {
  it('records terminal messages only: not running tasks, the start-up instruction, or kept copies of answers', () => {
    expect(isRecordable(finished('completed'))).toBe(true);
    expect(isRecordable({ ...finished('completed'), status: { state: 'working', timestamp: '' } })).toBe(false);
    expect(isRecordable(finished('completed', { metadata: { kind: 'bootstrap' } }))).toBe(false);
    expect(isRecordable(finished('completed', { metadata: { kind: 'answer' } }))).toBe(false);
    const r = new HistoryRecorder(env);
    expect(r.record(finished('completed', { metadata: { kind: 'bootstrap' } }), alice)).toBe(false);
    expect(r.record(finished('canceled'), alice)).toBe(true);
    r.close();
    expect(store.list().map((e) => e.status)).toEqual(['canceled']);
  });

  it('SYNAPSE_HISTORY_ENABLED=false/0/off records nothing and creates no file', () => {
    for (const v of ['false', '0', 'off', 'OFF']) expect(historyEnabled({ SYNAPSE_HISTORY_ENABLED: v })).toBe(false);
    expect(historyEnabled({})).toBe(true);
    const other = { HOME: home, SYNAPSE_HOME: path.join(home, 'off'), SYNAPSE_HISTORY_ENABLED: 'off' };
    const r = new HistoryRecorder(other);
    expect(r.record(finished('completed'), alice)).toBe(false);
    recordFinishedTask(other, finished('completed'), alice);
    expect(fs.existsSync(path.join(home, 'off'))).toBe(false);
  });

  it('never throws when the history cannot be written; it warns once and goes on', () => {
    const broken = { HOME: home, SYNAPSE_HOME: path.join(home, 'broken') };
    fs.mkdirSync(path.join(home, 'broken'));
    fs.writeFileSync(path.join(home, 'broken', 'history'), 'not a directory');
    const logs: string[] = [];
    const r = new HistoryRecorder(broken, { log: (m) => logs.push(m) });
    expect(r.record(finished('completed'), alice)).toBe(false);
    expect(r.record(finished('completed'), alice)).toBe(false);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^history: cannot record finished tasks in .*history\.db: .*keeping up to 50 in memory/);
    expect(() => recordFinishedTask(broken, finished('completed'), alice, (m) => logs.push(m))).not.toThrow();
    expect(logs).toHaveLength(2);
    r.close();
  });

  it('keeps a bounded backlog while writes fail and writes it, oldest first, once they work again', () => {
    const dirEnv = { HOME: home, SYNAPSE_HOME: path.join(home, 'later') };
    const blocker = path.join(home, 'later', 'history');
    fs.mkdirSync(path.dirname(blocker));
    fs.writeFileSync(blocker, 'in the way');
    const logs: string[] = [];
    const warnings: string[] = [];
    const r = new HistoryRecorder(dirEnv, { log: (m) => logs.push(m), warn: (m) => warnings.push(m), backlog: 3, clock: clockFrom(() => clock) });
    for (const input of ['one', 'two', 'three', 'four']) expect(r.record(finished('completed', { input }), alice)).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(r.health()).toMatchObject({ ok: false, backlog: 3, dropped: 1, since: '2026-04-01T00:00:00.000Z' });
    expect(r.health().error).toMatch(/EEXIST/);

    fs.rmSync(blocker);
    expect(r.flush()).toBe(true);
    expect(r.health()).toEqual({ ok: true, backlog: 0, dropped: 1, error: null, since: null });
    expect(logs.at(-1)).toMatch(
      /^history: writing to .*history\.db works again \(failing since 2026-04-01T00:00:00.000Z\); backlog recorded, 1 older entries were dropped/,
    );
    const written = HistoryStore.open(dirEnv);
    try {
      expect(written.list().map((e) => e.input)).toEqual(['four', 'three', 'two']);
    } finally {
      written.close();
      r.close();
    }
  });

  it('a waiting entry is replaced by a later update of the same task, not recorded twice', () => {
    const dirEnv = { HOME: home, SYNAPSE_HOME: path.join(home, 'twice') };
    const blocker = path.join(home, 'twice', 'history');
    fs.mkdirSync(path.dirname(blocker));
    fs.writeFileSync(blocker, 'in the way');
    const r = new HistoryRecorder(dirEnv, { log: () => undefined });
    const t = finished('completed', { output: 'captured' });
    r.record(t, alice);
    r.record({ ...t, artifacts: [{ artifact_id: 'b', name: 'response', parts: [{ type: 'text', text: 'the reply' }] }] }, alice);
    expect(r.health().backlog).toBe(1);
    fs.rmSync(blocker);
    r.close();
    const written = HistoryStore.open(dirEnv);
    try {
      expect(written.list().map((e) => e.output)).toEqual(['the reply']);
    } finally {
      written.close();
    }
  });

  it('recordFinishedTask keeps one handle per history file and writes through it', () => {
    recordFinishedTask(env, finished('completed', { input: 'one' }), alice);
    recordFinishedTask(env, finished('completed', { input: 'two' }), bob);
    expect(store.list().map((e) => e.input)).toEqual(['two', 'one']);
  });
});
