import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Task } from '../../../src/agent-api/task.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockFrom } from '../../../src/clock.js';
import { secretRedactor } from '../../../src/redact.js';
import { openBoard } from '../../../src/store/board-store.js';
import { openFileSafety } from '../../../src/store/file-safety-store.js';
import { openMemory } from '../../../src/store/memory-store.js';
import { HistoryStore } from '../../../src/store/history.js';
import { openDatabase } from '../../../src/store/sqlite.js';
import { exportStore, importStore } from '../../../src/store/store-export.js';
import type { StoreTarget } from '../../../src/store/store-url.js';
import { freshDatabase, postgresUnavailable } from '../../support/pg-db.js';
import { runCli, tempHome } from '../../support/synapse.js';

/**
 * `synapse store export|import` (issue 22): SQLite → PostgreSQL → SQLite keeps every row (all
 * rows compared, not counts); a second import changes nothing; a conflict or a bad line imports
 * nothing and names the line.
 */

const unavailable = postgresUnavailable();
const sqlite: StoreTarget = { backend: 'sqlite' };
/** Each project's own history file (the user's file on a real machine), so a round trip can compare two. */
const envFor = (dir: string) => ({ SYNAPSE_HISTORY_DB_PATH: `${dir}.history.db` });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'store-transfer-'));
const project = (name: string) => {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
};
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The rows of an export: every line after the header. */
const rowsOf = (text: string) => text.trimEnd().split('\n').slice(1);

async function fill(dir: string): Promise<void> {
  let now = Date.parse('2026-02-01T10:00:00Z');
  const clock = clockFrom(() => (now += 1000));
  const board = await openBoard(dir, { target: sqlite, clock });
  try {
    const [design, code] = await board.createMany([
      { id: '11111111-1111-4111-8111-111111111111', subject: 'design', description: 'the schema', priority: 1, created_by: 'lead', component: 'db' },
      { id: '22222222-2222-4222-8222-222222222222', subject: 'code', blocked_by: ['11111111-1111-4111-8111-111111111111'], milestone: 'm1' },
      { id: '33333333-3333-4333-8333-333333333333', subject: 'docs', group_id: 'g', group_title: 'Docs', a2a_task_id: 'a2a-1' },
    ]);
    await board.claim(design!.id, 'alice');
    await board.complete(design!.id, { by: 'alice' });
    await board.claim(code!.id, 'bob');
    await board.fail(code!.id, 'tests red');
  } finally {
    await board.close();
  }
  const memory = await openMemory(dir, { env: envFor(dir), redact: secretRedactor({}), clock, target: sqlite });
  try {
    await memory.save({ key: 'db-choice', content: 'PostgreSQL 15', tags: ['infra', 'db'], author: 'alice' });
    await memory.save({ key: 'style', content: 'prettier, two spaces', author: null });
  } finally {
    await memory.close();
  }
  const files = await openFileSafety(dir, { env: envFor(dir), clock, target: sqlite });
  try {
    await files.lock({ path: 'src/app.ts', agent: 'alice', pid: process.pid, intent: 'refactor', ttlMs: 3_600_000 });
    await files.lock({ path: 'src/auth/**', agent: 'bob', pid: null, ttlMs: 3_600_000 });
    await files.record({ path: 'src/app.ts', agent: 'alice', type: 'modify', intent: 'split', taskId: 't1' });
    await files.record({ path: 'src/new.ts', agent: 'bob', type: 'create' });
    await files.record({ path: path.join(tmp, 'outside.txt'), agent: 'bob', type: 'delete' });
  } finally {
    await files.close();
  }
  const history = HistoryStore.open(envFor(dir));
  try {
    const at = (ms: number) => new Date(Date.parse('2026-02-01T12:00:00Z') + ms).toISOString();
    const task = (id: string, input: string, output: string, ms: number, metadata: Task['metadata']): Task => ({
      id,
      context_id: 'ctx',
      status: { state: 'completed' as const, timestamp: at(ms + 5000) },
      message: { role: 'user' as const, parts: [{ type: 'text' as const, text: input }] },
      artifacts: [{ artifact_id: 'a', name: 'response', parts: [{ type: 'text' as const, text: output }] }],
      metadata: { kind: 'message', ...metadata },
      priority: 3,
      receipt: { state: 'answered' as const, queued_at: at(ms), delivered_at: at(ms + 1000) },
      created_at: at(ms),
      updated_at: at(ms + 5000),
    });
    const usage = {
      input_tokens: 120,
      output_tokens: 30,
      cache_read_tokens: 5,
      cache_write_tokens: 0,
      records: 1,
      by_model: { echo: { input_tokens: 120, output_tokens: 30, cache_read_tokens: 5, cache_write_tokens: 0 } },
    };
    const agent = (name: string, workingDir: string) => ({ agent_id: `synapse-echo-${name}`, name, agent_type: 'echo', working_dir: workingDir });
    history.record(task('aaaa0001-0000-4000-8000-000000000001', 'design the schema', 'tables: tasks, deps', 0, { usage }), agent('alice', dir));
    history.record(
      task('bbbb0002-0000-4000-8000-000000000002', 'review it', 'looks good', 60_000, { in_reply_to: 'aaaa0001-0000-4000-8000-000000000001' }),
      agent('bob', dir),
    );
    // Another project's task in the same user's file: not this project's export.
    history.record(task('cccc0003-0000-4000-8000-000000000003', 'elsewhere', 'other project', 120_000, {}), agent('carol', path.join(tmp, 'elsewhere')));
  } finally {
    history.close();
  }
}

/** Every row of a history file as stored (its local seq left out), oldest first: what a round trip must keep. */
function historyRows(dir: string): unknown[] {
  const db = openDatabase(envFor(dir).SYNAPSE_HISTORY_DB_PATH, [], { readonly: true });
  try {
    return (db.prepare('SELECT * FROM history ORDER BY finished_at, task_id').all() as Array<Record<string, unknown>>).map(({ seq: _seq, ...row }) => row);
  } finally {
    db.close();
  }
}

describe('synapse store export|import on SQLite', () => {
  it('a bad line is named by its number and nothing is imported', async () => {
    const source = project('bad-source');
    await fill(source);
    const { text } = await exportStore(source, { env: envFor(source), target: sqlite });
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(1 + 3 + 1 + 2 + 2 + 3 + 2);
    const broken = [...lines];
    broken[3] = broken[3]!.replace('"priority":3', '"priority":9');
    const target = project('bad-target');
    await expect(importStore(target, 'x.jsonl', `${broken.join('\n')}\n`, { env: envFor(target), target: sqlite })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/x\.jsonl line 4: board_tasks row: \/priority .*nothing was imported/),
    });
    await expect(importStore(target, 'x.jsonl', `${lines[0]}\n{"table":"nope","row":{}}\n`, { env: envFor(target), target: sqlite })).rejects.toMatchObject({
      message: expect.stringContaining('line 2: unknown table "nope"'),
    });
    await expect(importStore(target, 'x.jsonl', '{"bad":1}\n', { env: envFor(target), target: sqlite })).rejects.toMatchObject({
      message: expect.stringMatching(/^x\.jsonl line 1: not a synapse-store export header \(must have required properties format, [^()]*\); expected/),
    });
    await expect(importStore(target, 'x.jsonl', '{"format":"other"}\n', { env: envFor(target), target: sqlite })).rejects.toMatchObject({
      message: expect.stringContaining('line 1'),
    });
    expect(fs.existsSync(path.join(target, '.synapse'))).toBe(false);
  });

  it('a conflict later in the file rolls back the rows before it, in every file', async () => {
    const source = project('conflict-source');
    await fill(source);
    const { text } = await exportStore(source, { env: envFor(source), target: sqlite });
    const extra = `{"table":"board_tasks","row":${JSON.stringify({ ...JSON.parse(rowsOf(text)[0]!).row, id: '44444444-4444-4444-8444-444444444444' })}}`;
    const changed = text.replace('PostgreSQL 15', 'MySQL');
    const lines = changed.trimEnd().split('\n');
    lines.splice(1, 0, extra);
    await expect(importStore(source, 'c.jsonl', `${lines.join('\n')}\n`, { env: envFor(source), target: sqlite })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/^line \d+: memory_notes db-choice is already in the store with other content/),
    });
    expect(rowsOf((await exportStore(source, { env: envFor(source), target: sqlite })).text)).toEqual(rowsOf(text));
  });
});

describe.skipIf(unavailable !== '')(`synapse store export|import between SQLite and PostgreSQL${unavailable ? ` (SKIPPED: ${unavailable})` : ''}`, () => {
  let db: { url: string; drop: () => Promise<void> };
  let pg: StoreTarget;
  beforeAll(async () => {
    db = await freshDatabase('synapse_transfer');
    pg = { backend: 'postgres', url: db.url, shown: '' };
  });
  afterAll(async () => db?.drop());

  it('SQLite → PostgreSQL → SQLite keeps every row; a second import changes nothing; a conflict imports nothing', async () => {
    const source = project('round-source');
    await fill(source);
    const first = (await exportStore(source, { env: envFor(source), target: sqlite })).text;

    const intoPg = await importStore(project('pg-side'), 'a.jsonl', first, { env: envFor(project('pg-side')), target: pg });
    expect(intoPg.tables).toMatchObject({
      board_tasks: { inserted: 3, unchanged: 0 },
      board_task_deps: { inserted: 1 },
      memory_notes: { inserted: 2 },
      file_locks: { inserted: 2 },
      file_changes: { inserted: 3 },
      history: { inserted: 2 },
    });
    const fromPg = (await exportStore(project('pg-side'), { env: envFor(project('pg-side')), target: pg })).text;
    expect(rowsOf(fromPg)).toEqual(rowsOf(first));

    // Imported history is the team's: searchable, its answers linked, with the exporting host.
    const { openHistory } = await import('../../../src/store/history-open.js');
    const team = await openHistory(project('pg-side'), { env: envFor(project('pg-side')), target: pg });
    try {
      const [hit] = await team.search(['schema']);
      expect(hit).toMatchObject({ task_id: 'aaaa0001-0000-4000-8000-000000000001', host: os.hostname() });
      expect((await team.related(hit!)).map((e) => e.agent_name)).toEqual(['bob']);
      expect((await team.stats()).usage).toMatchObject({ tasks: 1, input_tokens: 120 });
    } finally {
      await team.close();
    }
    const historyLines = rowsOf(first).filter((l) => l.startsWith('{"table":"history"'));
    expect(historyLines.map((l) => JSON.parse(l).row.task_id)).toEqual(['aaaa0001-0000-4000-8000-000000000001', 'bbbb0002-0000-4000-8000-000000000002']);
    expect(historyLines.every((l) => JSON.parse(l).row.host === os.hostname())).toBe(true);

    const back = project('round-back');
    await importStore(back, 'b.jsonl', fromPg, { env: envFor(back), target: sqlite });
    // The back project's export takes only its own agents' history; its file holds exactly the source project's rows.
    const notHistory = (lines: string[]) => lines.filter((l) => !l.startsWith('{"table":"history"'));
    expect(rowsOf((await exportStore(back, { env: envFor(back), target: sqlite })).text)).toEqual(notHistory(rowsOf(first)));
    expect(historyRows(back)).toEqual(historyRows(source).filter((r) => (r as { agent_name: string }).agent_name !== 'carol'));
    expect(historyRows(back)).toHaveLength(2);

    const again = await importStore(project('pg-side'), 'a.jsonl', first, { env: envFor(project('pg-side')), target: pg });
    expect(Object.values(again.tables).map((c) => c.inserted)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(Object.values(again.tables).reduce((n, c) => n + c.unchanged, 0)).toBe(rowsOf(first).length);

    // Rows imported with their ids: the next note and change record are numbered after them.
    const memory = await openMemory(project('pg-side'), { env: envFor(project('pg-side')), redact: secretRedactor({}), target: pg });
    try {
      expect((await memory.save({ key: 'after-import', content: 'x' })).memory.id).toBe(3);
    } finally {
      await memory.close();
    }

    const conflicting = first.replace('"subject":"docs"', '"subject":"documentation"');
    await expect(importStore(project('pg-side'), 'c.jsonl', conflicting, { env: envFor(project('pg-side')), target: pg })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('line 4: board_tasks 33333333-3333-4333-8333-333333333333 is already in the store'),
    });
  });

  it('through the CLI: export to a file, import with --json counts, the password never printed', async () => {
    const t = tempHome();
    try {
      const dir = path.join(t.home, 'p');
      fs.mkdirSync(dir);
      await fill(dir);
      const file = path.join(t.home, 'store.jsonl');
      const out = await runCli(['store', 'export', file, '--json'], { env: t.env, cwd: dir });
      expect(out.code, out.stderr).toBe(0);
      expect(JSON.parse(out.stdout)).toMatchObject({ backend: 'sqlite', file, rows: { board_tasks: 3, memory_notes: 2, file_changes: 3 } });
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const fresh = await freshDatabase('synapse_transfer_cli');
      try {
        const r = await runCli(['store', 'import', file, '--json'], { env: { ...t.env, SYNAPSE_STORE_URL: fresh.url }, cwd: dir });
        expect(r.code, r.stderr).toBe(0);
        expect(JSON.parse(r.stdout)).toMatchObject({ backend: 'postgres', tables: { board_tasks: { inserted: 3 }, file_locks: { inserted: 2 } } });
        expect(r.stdout).not.toContain(new URL(fresh.url).password || '\0');
        fs.appendFileSync(file, 'not json\n');
        const bad = await runCli(['store', 'import', file], { env: { ...t.env, SYNAPSE_STORE_URL: fresh.url }, cwd: dir });
        expect(bad.code).not.toBe(0);
        expect(bad.stderr).toMatch(/line 13: not JSON/);
      } finally {
        await fresh.drop();
      }
    } finally {
      t.cleanup();
    }
  });
});
