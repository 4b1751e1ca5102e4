import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Task, TaskState } from '../../../src/agent-api/task.js';
import { clockFrom } from '../../../src/clock.js';
import { openHistory, type History } from '../../../src/store/history-open.js';
import type { HistoryAgent } from '../../../src/store/history-schema.js';
import { postgresContract, sqliteContract } from '../../support/pg-db.js';

/** The history contract (issue 22): the same cases on SQLite (the user's file, FTS5) and PostgreSQL (the team's table, tsvector). */

const alice: HistoryAgent = { agent_id: 'synapse-claude-8100', name: 'alice', agent_type: 'claude', working_dir: '/work/p' };
const bob: HistoryAgent = { agent_id: 'synapse-codex-8120', name: 'bob', agent_type: 'codex', working_dir: '/work/q' };

let seq = 0;
function finished(state: TaskState, o: { id?: string; input?: string; output?: string; t?: number; turnMs?: number; metadata?: Task['metadata'] } = {}): Task {
  const t = o.t ?? Date.parse('2026-03-01T10:00:00Z') + seq * 60_000;
  seq++;
  const iso = (ms: number) => new Date(ms).toISOString();
  const done = t + 1000 + (o.turnMs ?? 4000);
  return {
    id: o.id ?? `${String(seq).padStart(8, '0')}-0000-4000-8000-000000000000`,
    context_id: 'ctx',
    status: { state, timestamp: iso(done) },
    message: { role: 'user', parts: [{ type: 'text', text: o.input ?? 'please build the parser' }] },
    artifacts: o.output === undefined ? [] : [{ artifact_id: 'a', name: 'response', parts: [{ type: 'text', text: o.output }] }],
    metadata: { kind: 'message', sender: { sender_id: 'synapse-gemini-8110', sender_name: 'carol', sender_type: 'gemini' }, ...(o.metadata ?? {}) },
    priority: 3,
    receipt: { state: state === 'completed' ? 'answered' : 'failed', queued_at: iso(t), delivered_at: iso(t + 1000) },
    created_at: iso(t),
    updated_at: iso(done),
  };
}

for (const backend of [sqliteContract('history'), postgresContract('history', 'synapse_history', ['history'], 'RESTART IDENTITY')]) {
  describe.skipIf(backend.skip !== '')(`history contract on ${backend.name}${backend.skip ? ` (SKIPPED: ${backend.skip})` : ''}`, () => {
    let now = Date.parse('2026-04-01T00:00:00Z');
    let history: History;
    const open = () =>
      openHistory('/nonexistent/project', {
        env: { HOME: backend.dir(), SYNAPSE_HOME: path.join(backend.dir(), '.synapse') },
        clock: clockFrom(() => now),
        target: backend.target(),
        host: 'host-a',
      });

    beforeAll(() => backend.setup());
    afterAll(() => backend.teardown());
    beforeEach(async () => {
      now = Date.parse('2026-04-01T00:00:00Z');
      seq = 0;
      await backend.reset();
      history = await open();
    });
    afterEach(() => history.close());

    it('records a finished task once per (task, agent), a later update replacing it, secrets redacted; the host on PostgreSQL', async () => {
      expect(history.backend).toBe(backend.name);
      const t = finished('completed', { output: 'first answer' });
      await history.record(t, alice);
      await history.record(
        { ...t, artifacts: [{ artifact_id: 'b', name: 'response', parts: [{ type: 'text', text: 'token=abcdefabcdefabcdef1234 done' }] }] },
        alice,
      );
      await history.record(t, bob);
      expect(await history.count()).toBe(2);
      const e = await history.find(t.id, { agent: 'alice' });
      expect(e).toMatchObject({
        task_id: t.id,
        agent_id: alice.agent_id,
        agent_name: 'alice',
        status: 'completed',
        sender_name: 'carol',
        priority: 3,
        turn_ms: 4000,
      });
      expect(e.output).not.toContain('abcdefabcdefabcdef1234');
      expect(e.receipt.delivered_at).toBe(t.receipt.delivered_at);
      expect(e.metadata.kind).toBe('message');
      if (backend.name === 'postgres') expect(e.host).toBe('host-a');
      else expect(e.host).toBeUndefined();
    });

    it('lists newest first, filtered by agent id, name or type, with a limit', async () => {
      await history.record(finished('completed'), alice);
      await history.record(finished('failed'), bob);
      await history.record(finished('completed'), alice);
      const all = await history.list();
      expect(all.map((e) => e.agent_name)).toEqual(['alice', 'bob', 'alice']);
      expect(all[0]!.finished_at > all[1]!.finished_at).toBe(true);
      expect((await history.list({ agent: 'alice' })).length).toBe(2);
      expect((await history.list({ agent: 'codex' })).map((e) => e.status)).toEqual(['failed']);
      expect((await history.list({ agent: bob.agent_id })).length).toBe(1);
      expect((await history.list({ limit: 1 })).length).toBe(1);
      expect((await history.all()).map((e) => e.agent_name)).toEqual(['alice', 'bob', 'alice']);
      expect(await history.workingDirsOfName('bob')).toEqual(['/work/q']);
    });

    it('finds by unique prefix; an ambiguous prefix lists candidates; a missing one is task_not_found', async () => {
      await history.record(finished('completed', { id: 'abcd1111-0000-4000-8000-000000000000' }), alice);
      await history.record(finished('completed', { id: 'abcd2222-0000-4000-8000-000000000000' }), alice);
      expect((await history.find('abcd1')).task_id).toBe('abcd1111-0000-4000-8000-000000000000');
      await expect(history.find('abcd')).rejects.toMatchObject({ code: 'ambiguous_task' });
      await expect(history.find('ffff')).rejects.toMatchObject({ code: 'task_not_found' });
      await expect(history.find('a%')).rejects.toMatchObject({ code: 'task_not_found' });
      await expect(history.find(' ')).rejects.toMatchObject({ code: 'usage' });
    });

    it('searches input and output: phrases, word prefixes, AND/OR, agent filter; operators in user text are only text', async () => {
      await history.record(finished('completed', { input: 'fix the login form validation', output: 'validation fixed' }), alice);
      await history.record(finished('completed', { input: 'write the migration', output: 'migrations written for postgres' }), bob);
      await history.record(finished('failed', { input: 'deploy the login service', output: '' }), bob);
      const ids = async (k: string[], o: Parameters<History['search']>[1] = {}) => (await history.search(k, o)).map((e) => e.input).sort();
      expect(await ids(['login'])).toEqual(['deploy the login service', 'fix the login form validation']);
      expect(await ids(['login', 'valid'], { logic: 'AND' })).toEqual(['fix the login form validation']);
      expect(await ids(['migration'])).toEqual(['write the migration']);
      expect(await ids(['postgr'])).toEqual(['write the migration']);
      expect(await ids(['login form'])).toEqual(['fix the login form validation']);
      expect(await ids(['form login'])).toEqual([]);
      expect(await ids(['login'], { agent: 'bob' })).toEqual(['deploy the login service']);
      expect(await ids(['login', 'postgres'], { logic: 'OR', limit: 10 })).toHaveLength(3);
      // A keyword is a phrase of its words: query operators in it are words, never syntax.
      expect(await ids(['"login" OR NOT *'])).toEqual([]);
      expect(await ids(['"login" (service'])).toEqual(['deploy the login service']);
      await expect(history.search(['***'])).rejects.toMatchObject({ code: 'usage' });
    });

    it('links an answer to the task it answered', async () => {
      const asked = finished('completed', { input: 'the question' });
      await history.record(asked, bob);
      await history.record(finished('completed', { input: 'the answer', metadata: { in_reply_to: asked.id } }), alice);
      const q = await history.find(asked.id);
      expect((await history.related(q)).map((e) => e.input)).toEqual(['the answer']);
      const a = (await history.list({ agent: 'alice' }))[0]!;
      expect((await history.related(a)).map((e) => e.input)).toEqual(['the question']);
    });

    it('counts, rates, takes the median turn, and sums token usage per agent and overall', async () => {
      const usage = (input: number, output: number, model: string) => ({
        usage: {
          input_tokens: input,
          output_tokens: output,
          cache_read_tokens: 10,
          cache_write_tokens: 0,
          records: 1,
          by_model: { [model]: { input_tokens: input, output_tokens: output, cache_read_tokens: 10, cache_write_tokens: 0 } },
        },
      });
      await history.record(finished('completed', { turnMs: 1000, metadata: usage(100, 50, 'claude-sonnet-4-5') }), alice);
      await history.record(finished('completed', { turnMs: 3000, metadata: usage(200, 20, 'claude-sonnet-4-5') }), alice);
      await history.record(finished('completed', { turnMs: 8000 }), alice);
      await history.record(finished('failed', { turnMs: 100_000 }), alice);
      await history.record(finished('completed', { turnMs: 2000, metadata: usage(7, 3, 'some-unpriced-model') }), bob);
      await history.record(finished('canceled'), bob);
      const s = await history.stats();
      expect(s).toMatchObject({ total: 6, completed: 4, failed: 1, canceled: 1, success_rate: 4 / 6, median_turn_ms: 2500 });
      expect(s.oldest! < s.newest!).toBe(true);
      expect(s.db_bytes).toBeGreaterThan(0);
      expect(s.usage).toMatchObject({ tasks: 3, input_tokens: 307, output_tokens: 73, cache_read_tokens: 30, unpriced_models: ['some-unpriced-model'] });
      expect(s.usage!.estimated_cost_usd).toBeGreaterThan(0);
      const a = s.agents.find((x) => x.agent_name === 'alice')!;
      expect(a).toMatchObject({ total: 4, completed: 3, failed: 1, median_turn_ms: 3000 });
      expect(a.usage).toMatchObject({ tasks: 2, input_tokens: 300, output_tokens: 70 });
      expect(s.agents.map((x) => x.agent_id)).toEqual([alice.agent_id, bob.agent_id]);
      const onlyBob = await history.stats({ agent: 'bob' });
      expect(onlyBob).toMatchObject({ total: 2, completed: 1, canceled: 1 });
      expect(onlyBob.usage).toMatchObject({ tasks: 1, input_tokens: 7 });
      // A later update without usage keeps what was recorded.
      const t = finished('completed', { metadata: usage(5, 5, 'claude-sonnet-4-5') });
      await history.record(t, bob);
      await history.record({ ...t, metadata: { kind: 'message' } }, bob);
      expect((await history.find(t.id)).usage).toMatchObject({ input_tokens: 5, output_tokens: 5 });
    });

    it('cleans up by age (a dry run deletes nothing) and by size, oldest first', async () => {
      const day = 86_400_000;
      await history.record(finished('completed', { t: now - 40 * day }), alice);
      await history.record(finished('completed', { t: now - 20 * day }), alice);
      await history.record(finished('completed', { t: now - 1 * day, input: 'newest' }), alice);
      await expect(history.cleanup({})).rejects.toMatchObject({ code: 'usage' });
      const dry = await history.cleanup({ days: 30, dryRun: true });
      expect(dry).toMatchObject({ dry_run: true, deleted: 1, remaining: 2 });
      expect(await history.count()).toBe(3);
      expect(await history.cleanup({ days: 30 })).toMatchObject({ dry_run: false, deleted: 1, remaining: 2 });
      expect(await history.count()).toBe(2);
      const r = await history.cleanup({ maxBytes: 1 });
      expect(r.deleted).toBe(2);
      expect(await history.count()).toBe(0);
    });
  });
}
