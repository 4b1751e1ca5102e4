import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  cleanupHistory,
  exportHistory,
  historyStats,
  listHistory,
  searchHistory,
  showHistory,
  traceTask,
  type HistoryCleanupOptions,
} from '../../../src/cli/commands/history.js';
import type { CommandIo } from '../../../src/cli/io.js';
import { FileSafetyStore } from '../../../src/store/file-safety.js';
import { historyDbPath } from '../../../src/store/history.js';
import { runCommand, runJson, testIo, type IoOptions } from '../../support/cli-io.js';
import { fill, ID_A, ID_B, ID_C, NOW } from '../../support/history-fixture.js';
import { tempHome } from '../../support/synapse.js';

/** `synapse history …` and `synapse trace` in-process, on a real history file in a temp HOME. */

let t: ReturnType<typeof tempHome>;
let project: string;
const servers: http.Server[] = [];

const io = (extra: Partial<IoOptions> = {}): IoOptions => ({ env: t.env, cwd: project, ...extra });
const run = (command: (io: CommandIo) => Promise<void>, extra?: Partial<IoOptions>) => runCommand(command, io(extra));
const json = <T = any>(command: (io: CommandIo) => Promise<void>) => runJson<T>(command, io());
const ids = (list: { task_id: string }[]) => list.map((e) => e.task_id);
const list =
  (o: { agent?: string; limit?: string; json?: boolean } = {}) =>
  (c: CommandIo) =>
    listHistory({ limit: '50', ...o }, c);
const search =
  (keywords: string[], o: { logic?: string; agent?: string; json?: boolean } = {}) =>
  (c: CommandIo) =>
    searchHistory(keywords, { logic: 'OR', limit: '50', ...o }, c);
const cleanup = (o: HistoryCleanupOptions) => (c: CommandIo) => cleanupHistory(o, c);

beforeEach(() => {
  t = tempHome();
  for (const k of ['SYNAPSE_PROJECT_DIR', 'SYNAPSE_FILE_SAFETY_DB_PATH', 'SYNAPSE_FILE_SAFETY_ENABLED']) delete t.env[k];
  project = path.join(t.home, 'project');
  fs.mkdirSync(project);
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  t.cleanup();
});

describe('synapse history', () => {
  it('with nothing recorded, list and stats say so and create no file', async () => {
    const listed = await run(list());
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('No history yet');
    expect(listed.stderr).toContain('history recording is off');
    expect((await run(list({ agent: 'alice' }))).stdout).toBe("No history for agent 'alice'.\n");
    expect(await json((c) => historyStats({ json: true }, c))).toMatchObject({ total: 0, agents: [] });
    expect((await run((c) => historyStats({}, c))).stderr).toContain('history recording is off (SYNAPSE_HISTORY_ENABLED=false)');
    expect((await run((c) => showHistory('abcd', {}, c))).stderr).toContain("no task 'abcd' in the history: nothing has been recorded yet");
    expect(await json(cleanup({ days: '30', json: true }))).toEqual({ dry_run: false, deleted: 0, bytes_before: 0, bytes_after: 0, remaining: 0 });
    expect((await run(cleanup({ days: '30' }))).stdout).toBe('No history yet: nothing to clean up.\n');
    expect(await json((c) => exportHistory({ format: 'json' }, c))).toEqual([]);
    expect(fs.existsSync(historyDbPath(t.env))).toBe(false);
  });

  it('lists, shows by prefix, searches and counts', async () => {
    fill(t.env);
    expect(ids(await json(list({ json: true })))).toEqual([ID_C, ID_B, ID_A]);
    expect(ids(await json(list({ agent: 'bob', limit: '1', json: true })))).toEqual([ID_C]);
    const table = await run(list());
    expect(table.stdout).toMatch(/TASK\s+AGENT\s+STATUS\s+FROM\s+FINISHED\s+TURN\s+INPUT/);
    expect(table.stdout).toContain('cccc3333  bob');
    expect((await run(list({ limit: '0' }))).stderr).toContain('--limit must be a whole number from 1 to 100000');

    const shown = await json((c) => showHistory('cccc', { json: true }, c));
    expect(shown).toMatchObject({ task_id: ID_C, agent_name: 'bob', sender_name: 'carol', reply_source: 'output', turn_ms: 5000, duration_ms: 6000 });
    const human = await run((c) => showHistory('cccc', {}, c));
    expect(human.stdout).toContain('from:        carol (synapse-gemini-8110, gemini)');
    expect(human.stdout).toMatch(/delivered .*\(\+1s\)/);
    expect(human.stdout).toContain('migration written');

    const ambiguous = await run((c) => showHistory('aaaa', {}, c));
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain(ID_A);
    expect(ambiguous.stderr).toContain(ID_B);
    expect(ids([await json((c) => showHistory('aaaa', { agent: 'bob', json: true }, c))])).toEqual([ID_B]);
    const missing = await run((c) => showHistory('ffff', {}, c));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no task in the history matches 'ffff'");

    expect(ids(await json(search(['login'], { json: true }))).sort()).toEqual([ID_A, ID_B]);
    expect(ids(await json(search(['login', 'validation'], { logic: 'AND', json: true })))).toEqual([ID_A]);
    expect(ids(await json(search(['login', 'migration'], { logic: 'or', agent: 'bob', json: true }))).sort()).toEqual([ID_B, ID_C]);
    expect((await run(search(['nothing-like-this']))).stdout).toContain('No history matches');
    expect((await run(search(['x', 'y'], { logic: 'AND' }))).stdout).toBe("No history matches 'x' and 'y'.\n");
    expect((await run(search(['migration']))).stdout).toContain('cccc3333  bob');

    const stats = await json((c) => historyStats({ json: true }, c));
    expect(stats).toMatchObject({ total: 3, completed: 2, failed: 1, median_turn_ms: 5000 });
    expect(stats.agents.map((a: { agent_name: string; total: number }) => [a.agent_name, a.total])).toEqual([
      ['bob', 2],
      ['alice', 1],
    ]);
    expect((await run((c) => historyStats({}, c))).stdout).toMatch(/success rate: 66\.7%/);
  });

  it('exports JSON to stdout and CSV to a file', async () => {
    fill(t.env);
    expect(ids(await json((c) => exportHistory({ format: 'json' }, c)))).toEqual([ID_A, ID_B, ID_C]);
    expect(ids(await json((c) => exportHistory({ format: 'csv', json: true }, c)))).toEqual([ID_A, ID_B, ID_C]);
    const r = await run((c) => exportHistory({ format: 'csv', output: 'h.csv', agent: 'alice' }, c));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('exported 1 entry to h.csv');
    const csv = fs.readFileSync(path.join(project, 'h.csv'), 'utf8').split('\r\n');
    expect(csv[0]).toMatch(/^task_id,agent_id,agent_name,agent_type,sender_id/);
    expect(csv[1]).toContain(`${ID_A},synapse-claude-8100,alice,claude`);
    expect(csv[1]).toContain('"validation fixed, ""quotes"", and commas"');
  });

  it('cleanup needs --force when not in a terminal; --dry-run previews; --force deletes', async () => {
    fill(t.env);
    const refused = await run(cleanup({ days: '30' }));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--force');
    expect(refused.stderr).toContain('delete 1 of 3');
    expect(await json(list({ json: true }))).toHaveLength(3);

    expect(await json(cleanup({ days: '30', dryRun: true, json: true }))).toMatchObject({ dry_run: true, deleted: 1, remaining: 2 });
    expect((await run(cleanup({ days: '30', dryRun: true }))).stdout).toContain('Would delete 1 entry');
    expect(await json(list({ json: true }))).toHaveLength(3);
    expect((await run(cleanup({ days: '100' }))).stdout).toMatch(/^Nothing to delete \(3 entries, \d+\.\d\d MB\)\.\n$/);

    expect(await json(cleanup({ days: '30', force: true, json: true }))).toMatchObject({ dry_run: false, deleted: 1, remaining: 2 });
    expect(ids(await json(list({ json: true })))).toEqual([ID_C, ID_B]);

    const nothing = await run(cleanup({}));
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('--days N and/or --max-size MB');
    const soon = await run(cleanup({ days: 'soon' }));
    expect(soon.code).toBe(1);
    expect(soon.stderr).toContain("--days must be a number greater than 0, got 'soon'");
    expect((await run(cleanup({ maxSize: '-1' }))).stderr).toContain("--max-size must be a number greater than 0, got '-1'");
  });

  it('cleanup in a terminal asks first: no keeps everything, yes deletes', async () => {
    fill(t.env);
    const asked = testIo(io({ terminal: true, answers: [false] }));
    const no = await runCommand(cleanup({ days: '30' }), asked);
    expect(asked.questions).toEqual(['Delete 1 of 3 history entries?']);
    expect(no.code).toBe(1);
    expect(no.stderr).toBe('nothing deleted\n');
    expect(await json(list({ json: true }))).toHaveLength(3);
    const yes = await run(cleanup({ days: '30' }), { terminal: true, answers: [true] });
    expect(yes.code).toBe(0);
    expect(yes.stdout).toContain('Deleted 1 entry, kept 2');
    expect(await json(list({ json: true }))).toHaveLength(2);
  });
});

describe('synapse trace', () => {
  it('shows sender, receipts, reply source, the answer, file changes and related tasks', async () => {
    fill(t.env);
    const fsafe = FileSafetyStore.forProject(project, t.env);
    try {
      fsafe.record({ path: 'src/login.ts', agent: 'synapse-claude-8100', type: 'modify', intent: 'validate email', taskId: ID_A });
      fsafe.record({ path: 'src/form.ts', agent: 'synapse-claude-8100', type: 'create', taskId: ID_A.slice(0, 8) });
      fsafe.record({ path: 'src/other.ts', agent: 'synapse-codex-8120', type: 'modify', taskId: ID_C });
    } finally {
      fsafe.close();
    }
    const tr = await json((c) => traceTask(ID_A.slice(0, 6), { json: true }, c));
    expect(tr.source).toBe('history');
    expect(tr.entry).toMatchObject({
      task_id: ID_A,
      sender_id: 'synapse-gemini-8110',
      reply_source: 'reply',
      output: 'validation fixed, "quotes", and commas',
    });
    expect(tr.entry.receipt).toMatchObject({ state: 'answered' });
    expect(tr.file_changes.map((c: { path: string }) => path.basename(c.path))).toEqual(['login.ts', 'form.ts']);
    expect(tr.related.map((r: { task_id: string }) => r.task_id)).toEqual([ID_C]);

    const human = await run((c) => traceTask(ID_A, {}, c));
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`task ${ID_A} on alice (synapse-claude-8100, claude)`);
    expect(human.stdout).toContain('from      carol (synapse-gemini-8110, gemini)');
    expect(human.stdout).toMatch(/queued\s+\S+Z/);
    expect(human.stdout).toMatch(/answered\s+\S+Z\s+\(\+6s\)/);
    expect(human.stdout).toContain('reply     reply (answered with synapse reply)');
    expect(human.stdout).toContain('validation fixed');
    expect(human.stdout).toContain('file changes (2)');
    expect(human.stdout).toMatch(/modify\s+\S*src\/login\.ts\s+by synapse-claude-8100\s+"validate email"/);
  });

  it('asks the running agents for a task that is not finished yet (read in the original Synapse wire shape)', async () => {
    const id = 'dddd4444-0000-4000-8000-000000000004';
    // Exactly the fields the original Python Synapse answers GET /tasks/{id} with: the task itself.
    const running = {
      id,
      status: 'working',
      message: { role: 'user', parts: [{ type: 'text', text: 'still thinking about it' }] },
      artifacts: [],
      error: null,
      created_at: new Date(NOW).toISOString(),
      updated_at: new Date(NOW + 1000).toISOString(),
      context_id: null,
      metadata: { sender: { sender_id: 'synapse-gemini-8110', sender_name: 'carol' }, response_mode: 'wait' },
    };
    const server = http.createServer((req, res) => {
      const hit = req.url === `/tasks/${id}` || req.url === `/tasks/${id.slice(0, 8)}`;
      res.writeHead(hit ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(hit ? running : { detail: 'Task not found' }));
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const registry = t.env.SYNAPSE_REGISTRY_DIR!;
    fs.mkdirSync(registry, { recursive: true });
    const now = new Date().toISOString();
    const agent = {
      agent_id: `synapse-echo-${port}`,
      agent_type: 'echo',
      name: 'dave',
      role: null,
      port,
      pid: process.pid,
      working_dir: project,
      endpoint: `http://127.0.0.1:${port}`,
      status: 'PROCESSING',
      status_updated_at: now,
      current_task_preview: null,
      task_received_at: null,
      registered_at: now,
      heartbeat_at: now,
    };
    fs.writeFileSync(path.join(registry, `${agent.agent_id}.json`), JSON.stringify(agent));

    const tr = await json((c) => traceTask(id.slice(0, 8), { json: true }, c));
    expect(tr.source).toBe('live');
    expect(tr.entry).toMatchObject({
      task_id: id,
      agent_name: 'dave',
      agent_type: 'echo',
      status: 'working',
      input: 'still thinking about it',
      sender_name: 'carol',
      receipt: { state: 'queued', queued_at: running.created_at },
    });
    expect((await run((c) => traceTask(id, {}, c))).stdout).toContain('[live: not finished yet]');
    const missing = await run((c) => traceTask('eeee5555', {}, c));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no task 'eeee5555'");
  });
});
