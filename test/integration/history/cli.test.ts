import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Task, TaskState } from '../../../src/agent-api/task.js';
import { FileSafetyStore } from '../../../src/store/file-safety.js';
import { HistoryStore, historyDbPath, type HistoryAgent } from '../../../src/store/history.js';
import { BIN, runCli, tempHome, waitFor } from '../../support/synapse.js';

const require = createRequire(import.meta.url);
const pty = require('node-pty') as typeof import('node-pty');

let t: ReturnType<typeof tempHome>;
let project: string;
const servers: http.Server[] = [];

const alice: HistoryAgent = { agent_id: 'synapse-claude-8100', name: 'alice', agent_type: 'claude', working_dir: '/nonexistent/alice' };
const bob: HistoryAgent = { agent_id: 'synapse-codex-8120', name: 'bob', agent_type: 'codex', working_dir: '/nonexistent/bob' };

function task(id: string, state: TaskState, input: string, output: string, atMs: number, metadata: Task['metadata'] = {}): Task {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    id,
    context_id: 'ctx',
    status: { state, timestamp: iso(atMs + 6000) },
    message: { role: 'user', parts: [{ type: 'text', text: input }] },
    artifacts: output ? [{ artifact_id: `art-${id}`, name: 'response', parts: [{ type: 'text', text: output }] }] : [],
    metadata: { kind: 'message', sender: { sender_id: 'synapse-gemini-8110', sender_name: 'carol', sender_type: 'gemini' }, ...metadata },
    priority: 3,
    receipt: { state: state === 'completed' ? 'answered' : 'failed', queued_at: iso(atMs), delivered_at: iso(atMs + 1000), ...(state === 'completed' ? { answered_at: iso(atMs + 6000) } : { failed_at: iso(atMs + 6000) }) },
    created_at: iso(atMs),
    updated_at: iso(atMs + 6000),
  };
}

const DAY = 86_400_000;
const NOW = Date.now();
const ID_A = 'aaaa1111-0000-4000-8000-000000000001';
const ID_B = 'aaaa2222-0000-4000-8000-000000000002';
const ID_C = 'cccc3333-0000-4000-8000-000000000003';

function fill(): void {
  const h = HistoryStore.open(t.env);
  try {
    h.record(task(ID_A, 'completed', 'fix the login form validation', 'validation fixed, "quotes", and commas', NOW - 40 * DAY, { reply_source: 'reply' }), alice);
    h.record(task(ID_B, 'failed', 'deploy the login service', '', NOW - 2 * DAY), bob);
    h.record(task(ID_C, 'completed', 'write the migration', 'migration written', NOW - DAY, { reply_source: 'output', in_reply_to: ID_A }), bob);
  } finally {
    h.close();
  }
}

const cli = (args: string[], extra: { input?: string } = {}) => runCli(args, { env: t.env, cwd: project, ...extra });
async function json(args: string[]): Promise<any> {
  const r = await cli(args);
  if (r.code !== 0) throw new Error(`synapse ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

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
    const list = await cli(['history', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('No history yet');
    expect(list.stderr).toContain('history recording is off');
    expect(await json(['history', 'stats', '--json'])).toMatchObject({ total: 0, agents: [] });
    expect(fs.existsSync(historyDbPath(t.env))).toBe(false);
  });

  it('lists, shows by prefix, searches and counts', async () => {
    fill();
    const list = await json(['history', 'list', '--json']);
    expect(list.map((e: { task_id: string }) => e.task_id)).toEqual([ID_C, ID_B, ID_A]);
    expect((await json(['history', 'list', '--agent', 'bob', '--limit', '1', '--json'])).map((e: { task_id: string }) => e.task_id)).toEqual([ID_C]);
    const table = await cli(['history', 'list']);
    expect(table.stdout).toMatch(/TASK\s+AGENT\s+STATUS\s+FROM\s+FINISHED\s+TURN\s+INPUT/);
    expect(table.stdout).toContain('cccc3333  bob');

    const shown = await json(['history', 'show', 'cccc', '--json']);
    expect(shown).toMatchObject({ task_id: ID_C, agent_name: 'bob', sender_name: 'carol', reply_source: 'output', turn_ms: 5000, duration_ms: 6000 });
    const human = await cli(['history', 'show', 'cccc']);
    expect(human.stdout).toContain('from:        carol (synapse-gemini-8110, gemini)');
    expect(human.stdout).toMatch(/delivered .*\(\+1s\)/);
    expect(human.stdout).toContain('migration written');

    const ambiguous = await cli(['history', 'show', 'aaaa']);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain(ID_A);
    expect(ambiguous.stderr).toContain(ID_B);
    const missing = await cli(['history', 'show', 'ffff']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no task in the history matches 'ffff'");

    expect((await json(['history', 'search', 'login', '--json'])).map((e: { task_id: string }) => e.task_id).sort()).toEqual([ID_A, ID_B]);
    expect((await json(['history', 'search', 'login', 'validation', '--logic', 'AND', '--json'])).map((e: { task_id: string }) => e.task_id)).toEqual([ID_A]);
    expect((await json(['history', 'search', 'login', 'migration', '--logic', 'OR', '--agent', 'bob', '--json'])).map((e: { task_id: string }) => e.task_id).sort()).toEqual([ID_B, ID_C]);
    expect((await cli(['history', 'search', 'nothing-like-this'])).stdout).toContain('No history matches');

    const stats = await json(['history', 'stats', '--json']);
    expect(stats).toMatchObject({ total: 3, completed: 2, failed: 1, median_turn_ms: 5000 });
    expect(stats.agents.map((a: { agent_name: string; total: number }) => [a.agent_name, a.total])).toEqual([
      ['bob', 2],
      ['alice', 1],
    ]);
    expect((await cli(['history', 'stats'])).stdout).toMatch(/success rate: 66\.7%/);
  });

  it('exports JSON to stdout and CSV to a file', async () => {
    fill();
    const all = await json(['history', 'export']);
    expect(all.map((e: { task_id: string }) => e.task_id)).toEqual([ID_A, ID_B, ID_C]);
    const file = path.join(project, 'h.csv');
    const r = await cli(['history', 'export', '--format', 'csv', '--output', file, '--agent', 'alice']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('exported 1 entry');
    const csv = fs.readFileSync(file, 'utf8').split('\r\n');
    expect(csv[0]).toMatch(/^task_id,agent_id,agent_name,agent_type,sender_id/);
    expect(csv[1]).toContain(`${ID_A},synapse-claude-8100,alice,claude`);
    expect(csv[1]).toContain('"validation fixed, ""quotes"", and commas"');
  });

  it('cleanup needs --force when not in a terminal; --dry-run previews; --force deletes', async () => {
    fill();
    const refused = await cli(['history', 'cleanup', '--days', '30']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--force');
    expect(refused.stderr).toContain('delete 1 of 3');
    expect(await json(['history', 'list', '--json'])).toHaveLength(3);

    expect(await json(['history', 'cleanup', '--days', '30', '--dry-run', '--json'])).toMatchObject({ dry_run: true, deleted: 1, remaining: 2 });
    expect((await cli(['history', 'cleanup', '--days', '30', '--dry-run'])).stdout).toContain('Would delete 1 entry');
    expect(await json(['history', 'list', '--json'])).toHaveLength(3);

    expect(await json(['history', 'cleanup', '--days', '30', '--force', '--json'])).toMatchObject({ dry_run: false, deleted: 1, remaining: 2 });
    expect((await json(['history', 'list', '--json'])).map((e: { task_id: string }) => e.task_id)).toEqual([ID_C, ID_B]);

    const nothing = await cli(['history', 'cleanup']);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('--days N and/or --max-size MB');
    expect((await cli(['history', 'cleanup', '--days', 'soon'])).code).toBe(1);
  });
});

describe('synapse history cleanup in a terminal', () => {
  /** Runs cleanup in a real terminal and answers its question. */
  async function answer(reply: string): Promise<{ code: number; out: string }> {
    const term = pty.spawn(process.execPath, [BIN, 'history', 'cleanup', '--days', '30'], { name: 'xterm-256color', cols: 120, rows: 20, cwd: project, env: t.env as Record<string, string> });
    let out = '';
    term.onData((d) => (out += d));
    const exited = new Promise<number>((r) => term.onExit(({ exitCode }) => r(exitCode)));
    try {
      await waitFor(() => out.includes('[y/N]'), 10_000, 'the confirmation question');
      term.write(`${reply}\r`);
      return { code: await exited, out };
    } finally {
      try {
        term.kill('SIGKILL');
      } catch {
        // already exited
      }
    }
  }

  it('asks before deleting: no keeps everything, yes deletes', async () => {
    fill();
    const no = await answer('n');
    expect(no.out).toContain('Delete 1 of 3 history entries?');
    expect(no.code).toBe(1);
    expect(await json(['history', 'list', '--json'])).toHaveLength(3);
    const yes = await answer('y');
    expect(yes.code).toBe(0);
    expect(yes.out).toContain('Deleted 1 entry, kept 2');
    expect(await json(['history', 'list', '--json'])).toHaveLength(2);
  });
});

describe('synapse trace', () => {
  it('shows sender, receipts, reply source, the answer, file changes and related tasks', async () => {
    fill();
    const fsafe = FileSafetyStore.forProject(project, t.env);
    try {
      fsafe.record({ path: 'src/login.ts', agent: 'synapse-claude-8100', type: 'modify', intent: 'validate email', taskId: ID_A });
      fsafe.record({ path: 'src/form.ts', agent: 'synapse-claude-8100', type: 'create', taskId: ID_A.slice(0, 8) });
      fsafe.record({ path: 'src/other.ts', agent: 'synapse-codex-8120', type: 'modify', taskId: ID_C });
    } finally {
      fsafe.close();
    }
    const tr = await json(['trace', ID_A.slice(0, 6), '--json']);
    expect(tr.source).toBe('history');
    expect(tr.entry).toMatchObject({ task_id: ID_A, sender_id: 'synapse-gemini-8110', reply_source: 'reply', output: 'validation fixed, "quotes", and commas' });
    expect(tr.entry.receipt).toMatchObject({ state: 'answered' });
    expect(tr.file_changes.map((c: { path: string }) => path.basename(c.path))).toEqual(['login.ts', 'form.ts']);
    expect(tr.related.map((r: { task_id: string }) => r.task_id)).toEqual([ID_C]);

    const human = await cli(['trace', ID_A]);
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

  it('asks the running agents for a task that is not finished yet', async () => {
    const id = 'dddd4444-0000-4000-8000-000000000004';
    const running = { ...task(id, 'completed', 'still thinking about it', '', NOW), status: { state: 'working', timestamp: new Date(NOW + 1000).toISOString() }, receipt: { state: 'delivered', queued_at: new Date(NOW).toISOString(), delivered_at: new Date(NOW + 1000).toISOString() } };
    const server = http.createServer((req, res) => {
      const hit = req.url === `/tasks/${id}` || req.url === `/tasks/${id.slice(0, 8)}`;
      res.writeHead(hit ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(hit ? { task: running } : { error: { code: 'task_not_found', message: 'no' } }));
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const registry = t.env.SYNAPSE_REGISTRY_DIR!;
    fs.mkdirSync(registry, { recursive: true });
    fs.writeFileSync(path.join(registry, `synapse-echo-${port}.json`), JSON.stringify({ agent_id: `synapse-echo-${port}`, name: 'dave', pid: process.pid, port, working_dir: project }));

    const tr = await json(['trace', id.slice(0, 8), '--json']);
    expect(tr.source).toBe('live');
    expect(tr.entry).toMatchObject({ task_id: id, agent_name: 'dave', agent_type: 'echo', status: 'working', input: 'still thinking about it' });
    expect((await cli(['trace', id])).stdout).toContain('[live: not finished yet]');
    const missing = await cli(['trace', 'eeee5555']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no task 'eeee5555'");
  });
});
