import fs from 'node:fs';
import path from 'node:path';
import type { Task } from '../../../src/agent-api/task.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, runCli, startHeadless, tempHome, waitFor } from '../../support/synapse.js';
import { freshDatabase, postgresUnavailable } from '../../support/pg-db.js';

/**
 * `synapse store status|migrate` and the board commands through the built CLI, on SQLite and on a
 * real PostgreSQL database chosen by SYNAPSE_STORE_URL (issue 22). The password of the URL never
 * appears in what the CLI prints.
 */

const unavailable = postgresUnavailable();
const t = tempHome();
const project = path.join(t.home, 'project');
fs.mkdirSync(project, { recursive: true });
afterAll(async () => {
  await cleanupAll();
  t.cleanup();
});

describe('synapse store on SQLite (the default)', () => {
  it('reports the board file before and after it exists, and migrates it', async () => {
    const before = await runCli(['store', 'status', '--json'], { env: t.env, cwd: project });
    expect(before.code, before.stderr).toBe(0);
    expect(JSON.parse(before.stdout)).toMatchObject({ backend: 'sqlite', health: { ok: true }, components: { board: { created: false } } });
    expect(fs.existsSync(path.join(project, '.synapse', 'task_board.db'))).toBe(false);
    const migrated = await runCli(['store', 'migrate', '--json'], { env: t.env, cwd: project });
    expect(JSON.parse(migrated.stdout)).toMatchObject({ backend: 'sqlite', components: { board: { from: 0, to: 2 } } });
    expect((await runCli(['tasks', 'create', 'local task'], { env: t.env, cwd: project })).code).toBe(0);
    const after = JSON.parse((await runCli(['store', 'status', '--json'], { env: t.env, cwd: project })).stdout);
    expect(after.components.board).toMatchObject({ created: true, schema_version: 2, rows: { tasks: 1, task_deps: 0 } });
    const human = await runCli(['store', 'status'], { env: t.env, cwd: project });
    expect(human.stdout).toMatch(/store\s+sqlite\s+.*task_board\.db/);
    expect(human.stdout).toMatch(/board\s+schema 2 of 2 · 1 tasks/);
    // SQLite has no registry table: the registry is this host's files, and nothing calls it local-only.
    expect(after.components.registry).toMatchObject({ created: false, location: t.env.SYNAPSE_REGISTRY_DIR, rows: { agents: 0 }, hosts: {} });
    expect(after.local_only).toEqual([]);
    expect(human.stdout).toMatch(/registry\s+this host's files \(.*\) · 0 live agents/);
    expect(human.stdout).toMatch(/history\s+.*entries/);
    expect(human.stdout).not.toMatch(/^local\s/m);
    expect(JSON.parse(migrated.stdout).components).not.toHaveProperty('registry');
  });

  it('exits 1 and says why when a PostgreSQL store cannot be reached, without printing its password', async () => {
    const r = await runCli(['store', 'status', '--url', 'postgres://synapse:hunter2-secret@127.0.0.1:1/team'], { env: t.env, cwd: project, timeoutMs: 30_000 });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/health\s+UNAVAILABLE: cannot reach the PostgreSQL store at postgres:\/\/synapse:\*\*\*@127\.0\.0\.1:1\/team/);
    expect(r.stdout + r.stderr).not.toContain('hunter2-secret');
  });
});

describe.skipIf(unavailable !== '')(`synapse store and synapse tasks on PostgreSQL${unavailable ? ` (SKIPPED: ${unavailable})` : ''}`, () => {
  let db: { url: string; drop: () => Promise<void> };
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    db = await freshDatabase('synapse_cli');
    env = { ...t.env, SYNAPSE_STORE_URL: db.url };
  });
  afterAll(async () => db?.drop());
  const password = () => new URL(db.url).password;

  it('migrates, then the tasks commands use the database and status counts their rows', async () => {
    const migrated = await runCli(['store', 'migrate', '--json'], { env, cwd: project });
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(JSON.parse(migrated.stdout)).toMatchObject({ backend: 'postgres', components: { board: { from: 0, to: 1 }, registry: { from: 0, to: 1 } } });
    expect(migrated.stdout).toMatch(/"registry"/);
    expect(JSON.parse((await runCli(['store', 'migrate', '--json'], { env, cwd: project })).stdout).components.board).toEqual({ from: 1, to: 1 });

    const a = JSON.parse((await runCli(['tasks', 'create', 'design the schema', '--json'], { env, cwd: project })).stdout);
    const b = await runCli(['tasks', 'create', 'write the code', '--blocked-by', a.id.slice(0, 8), '--json'], { env, cwd: project });
    expect(b.code, b.stderr).toBe(0);
    const claimed = await runCli(['tasks', 'claim', a.id.slice(0, 8), '--as', 'alice', '--json'], { env, cwd: project });
    expect(JSON.parse(claimed.stdout)).toMatchObject({ status: 'in_progress', claimed_by: 'alice' });
    const again = await runCli(['tasks', 'claim', a.id.slice(0, 8), '--as', 'bob'], { env, cwd: project });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already claimed by alice/);
    const list = JSON.parse((await runCli(['tasks', 'list', '--json'], { env, cwd: project })).stdout) as { subject: string; status: string }[];
    expect(list.map((x) => [x.subject, x.status])).toEqual([
      ['design the schema', 'in_progress'],
      ['write the code', 'pending'],
    ]);
    // The project's SQLite board was not touched: the rows are in the database.
    const local = JSON.parse((await runCli(['store', 'status', '--json'], { env: t.env, cwd: project })).stdout);
    expect(local.components.board.rows.tasks).toBe(1);

    const status = await runCli(['store', 'status', '--json'], { env, cwd: project });
    expect(status.code, status.stderr).toBe(0);
    const s = JSON.parse(status.stdout);
    expect(s).toMatchObject({
      backend: 'postgres',
      health: { ok: true, code: null },
      components: { board: { schema_version: 1, latest_version: 1, rows: { tasks: 2, task_deps: 1 } } },
    });
    expect(s.health.server_version).toMatch(/^\d+/);
    const human = await runCli(['store', 'status'], { env, cwd: project });
    expect(human.stdout).toMatch(/store\s+postgres\s+postgres:\/\/synapse:\*\*\*@127\.0\.0\.1:\d+\/synapse_cli_/);
    expect(human.stdout).toMatch(/board\s+schema 1 of 1 · 2 tasks, 1 dependencies/);
    expect(human.stdout).toMatch(/memory\s+schema 1 of 1 · 0 notes/);
    for (const out of [status.stdout, human.stdout, migrated.stdout, status.stderr]) expect(out).not.toContain(password());
  });

  it('keeps shared memory in the database: saved on one "host", read on another with its own HOME', async () => {
    const saved = await runCli(['memory', 'save', 'db-choice', 'PostgreSQL 15 for the team store', '--tags', 'infra', '--json'], { env, cwd: project });
    expect(saved.code, saved.stderr).toBe(0);
    expect(JSON.parse(saved.stdout)).toMatchObject({ created: true, memory: { key: 'db-choice', tags: ['infra'] } });
    const other = tempHome();
    try {
      const otherProject = path.join(other.home, 'checkout');
      fs.mkdirSync(otherProject);
      const otherEnv = { ...other.env, SYNAPSE_STORE_URL: db.url };
      const shown = await runCli(['memory', 'search', 'postgres', '--json'], { env: otherEnv, cwd: otherProject });
      expect(shown.code, shown.stderr).toBe(0);
      expect((JSON.parse(shown.stdout) as { key: string }[]).map((h) => h.key)).toEqual(['db-choice']);
      expect(fs.existsSync(path.join(otherProject, '.synapse', 'memory.db'))).toBe(false);
    } finally {
      other.cleanup();
    }
    const status = JSON.parse((await runCli(['store', 'status', '--json'], { env, cwd: project })).stdout);
    expect(status.components.memory).toMatchObject({ schema_version: 1, rows: { notes: 1 }, created: true });
  });

  it("keeps file locks and change records in the database: locked in one checkout, binding in another host's checkout", async () => {
    const locked = await runCli(['file-safety', 'lock', 'src/app.ts', 'alice', '--pid', '0', '--intent', 'refactor', '--json'], { env, cwd: project });
    expect(locked.code, locked.stderr).toBe(0);
    expect(JSON.parse(locked.stdout)).toMatchObject({
      renewed: false,
      lock: { agent_id: 'alice', path: path.join(fs.realpathSync(project), 'src', 'app.ts') },
    });
    const recorded = await runCli(['file-safety', 'record', 'src/app.ts', 'alice', '--type', 'modify', '--json'], { env, cwd: project });
    expect(recorded.code, recorded.stderr).toBe(0);
    const other = tempHome();
    try {
      // Another machine checks the project out elsewhere: paths are stored relative to the project.
      const otherProject = path.join(other.home, 'elsewhere');
      fs.mkdirSync(otherProject);
      const otherEnv = { ...other.env, SYNAPSE_STORE_URL: db.url };
      const denied = await runCli(['file-safety', 'validate', 'src/app.ts', 'bob', '--json'], { env: otherEnv, cwd: otherProject });
      expect(denied.code).toBe(1);
      expect(JSON.parse(denied.stdout)).toMatchObject({
        allowed: false,
        holder: { agent_id: 'alice', path: path.join(fs.realpathSync(otherProject), 'src', 'app.ts') },
      });
      const history = JSON.parse((await runCli(['file-safety', 'history', 'src/app.ts', '--json'], { env: otherEnv, cwd: otherProject })).stdout);
      expect(history).toMatchObject([{ agent_id: 'alice', change_type: 'modify' }]);
      expect(fs.existsSync(path.join(otherProject, '.synapse', 'file_safety.db'))).toBe(false);
    } finally {
      other.cleanup();
    }
    const status = JSON.parse((await runCli(['store', 'status', '--json'], { env, cwd: project })).stdout);
    expect(status.components.file_safety).toMatchObject({ schema_version: 1, rows: { locks: 1, changes: 1 }, created: true });
    expect(status.local_only).toEqual([]);
    const human = await runCli(['store', 'status'], { env, cwd: project });
    expect(human.stdout).toMatch(/files\s+schema 1 of 1 · 1 locks, 1 change records/);
    const unlocked = await runCli(['file-safety', 'unlock', 'src/app.ts', 'alice'], { env, cwd: project });
    expect(unlocked.stdout).toContain('unlocked');
  });

  it('8 processes locking one file through the database: exactly one wins', async () => {
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        runCli(['file-safety', 'lock', 'src/race.ts', `racer-${i}`, '--pid', '0', '--json'], { env, cwd: project, timeoutMs: 60_000 }),
      ),
    );
    const winners = runs.filter((r) => r.code === 0);
    expect(winners).toHaveLength(1);
    for (const r of runs.filter((x) => x.code !== 0)) expect(r.stderr).toMatch(/src\/race\.ts is locked by racer-\d/);
    const locks = JSON.parse((await runCli(['file-safety', 'locks', '--json'], { env, cwd: project })).stdout) as { agent_id: string; path: string }[];
    const raced = locks.filter((l) => l.path.endsWith(path.join('src', 'race.ts')));
    expect(raced.map((l) => l.agent_id)).toEqual([JSON.parse(winners[0]!.stdout).lock.agent_id]);
  });

  it("synapse history reads the team's history in the database: entries of two hosts, search, stats, status counts; the local file gets none", async () => {
    const { PgHistory } = await import('../../../src/store/history-pg.js');
    const { secretRedactor } = await import('../../../src/redact.js');
    const at = Date.parse('2026-05-01T10:00:00Z');
    const task = (id: string, input: string, output: string): Task => ({
      id,
      context_id: 'ctx',
      status: { state: 'completed' as const, timestamp: new Date(at + 5000).toISOString() },
      message: { role: 'user' as const, parts: [{ type: 'text' as const, text: input }] },
      artifacts: [{ artifact_id: 'a', name: 'response', parts: [{ type: 'text' as const, text: output }] }],
      metadata: { kind: 'message' },
      priority: 3,
      receipt: { state: 'answered' as const, queued_at: new Date(at).toISOString(), delivered_at: new Date(at + 1000).toISOString() },
      created_at: new Date(at).toISOString(),
      updated_at: new Date(at + 5000).toISOString(),
    });
    for (const [host, id, name] of [
      ['workstation-a', 'aaaa0001-0000-4000-8000-000000000001', 'alice'],
      ['ci-runner-b', 'bbbb0002-0000-4000-8000-000000000002', 'bob'],
    ] as const) {
      const h = await PgHistory.open(db.url, { redact: secretRedactor({}), host });
      try {
        await h.record(task(id, `rotate the ${name} keys`, 'keys rotated'), {
          agent_id: `synapse-claude-${name}`,
          name,
          agent_type: 'claude',
          working_dir: project,
        });
      } finally {
        await h.close();
      }
    }
    const list = await runCli(['history', 'list', '--json'], { env, cwd: project });
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { host: string }[]).map((e) => e.host).sort()).toEqual(['ci-runner-b', 'workstation-a']);
    const human = await runCli(['history', 'list'], { env, cwd: project });
    expect(human.stdout).toMatch(/HOST/);
    expect(human.stdout).toContain('ci-runner-b');
    const found = JSON.parse((await runCli(['history', 'search', 'bob', 'keys', '--logic', 'AND', '--json'], { env, cwd: project })).stdout);
    expect(found.map((e: { agent_name: string }) => e.agent_name)).toEqual(['bob']);
    const shown = await runCli(['history', 'show', 'bbbb', '--json'], { env, cwd: project });
    expect(JSON.parse(shown.stdout)).toMatchObject({ host: 'ci-runner-b', output: 'keys rotated' });
    expect(JSON.parse((await runCli(['history', 'stats', '--json'], { env, cwd: project })).stdout)).toMatchObject({ total: 2, completed: 2 });
    const status = JSON.parse((await runCli(['store', 'status', '--json'], { env, cwd: project })).stdout);
    expect(status.components.history).toMatchObject({ schema_version: 1, rows: { entries: 2 }, created: true });
    expect((await runCli(['store', 'status'], { env, cwd: project })).stdout).toMatch(/history\s+schema 1 of 1 · 2 entries/);
    // Nothing went into this user's own file.
    const local = JSON.parse((await runCli(['store', 'status', '--json'], { env: t.env, cwd: project })).stdout);
    expect(local.components.history.rows.entries).toBe(0);
    const help = await runCli(['history', '--help'], { env, cwd: project });
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/everyone using the store can read every task text/);
  });

  it('lists the registry table: schema version and live agents per host; the local line no longer names the registry', async () => {
    const empty = JSON.parse((await runCli(['store', 'status', '--json'], { env, cwd: project })).stdout);
    expect(empty.components.registry).toMatchObject({
      schema_version: 1,
      latest_version: 1,
      created: true,
      location: 'table synapse_agents',
      rows: { agents: 0 },
      hosts: {},
    });
    // Two "hosts" (own HOME, own host name) with agents registered in the table.
    const other = tempHome();
    try {
      const hostA = { ...env, SYNAPSE_HOST_NAME: 'host-a' };
      const hostB = { ...other.env, SYNAPSE_STORE_URL: db.url, SYNAPSE_HOST_NAME: 'host-b' };
      const otherProject = path.join(other.home, 'checkout');
      fs.mkdirSync(otherProject);
      await Promise.all([
        startHeadless('echo', { env: hostA, cwd: project }),
        startHeadless('echo', { env: hostB, cwd: otherProject }),
        startHeadless('echo', { env: hostB, cwd: otherProject }),
      ]);
      // An agent writes its row as it starts: wait until all three are in.
      const s = await waitFor(
        async () => {
          const status = await runCli(['store', 'status', '--json'], { env: hostA, cwd: project });
          expect(status.code, status.stderr).toBe(0);
          const parsed = JSON.parse(status.stdout);
          return parsed.components.registry.rows.agents === 3 ? parsed : null;
        },
        15_000,
        'three live agents in the registry table',
      );
      expect(s.components.registry).toMatchObject({ schema_version: 1, rows: { agents: 3 }, hosts: { 'host-a': 1, 'host-b': 2 } });
      expect(s.local_only).toEqual([]);
      const human = await runCli(['store', 'status'], { env: hostA, cwd: project });
      expect(human.stdout).toMatch(/registry\s+schema 1 of 1 · 3 live agents \(host-a 1, host-b 2\)/);
      expect(human.stdout).not.toMatch(/local\s+.*registry/);
      const again = await runCli(['store', 'migrate'], { env: hostA, cwd: project });
      expect(again.stdout).toMatch(/registry\s+schema 1: up to date/);
    } finally {
      await cleanupAll();
      other.cleanup();
    }
  }, 60_000);

  it('shows store.url with its password hidden in synapse config show', async () => {
    const r = await runCli(['config', 'show', '--json'], { env, cwd: project });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('***@127.0.0.1');
    expect(r.stdout).not.toContain(password());
  });
});
