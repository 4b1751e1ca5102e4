import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { doctorCommand } from '../../../src/cli/commands/doctor.js';
import { agentLogs, agentStatus, killCommand, listAgents, stopCommand } from '../../../src/cli/commands/lifecycle.js';
import { listProfilesCommand, startBackground } from '../../../src/cli/commands/run-agent.js';
import type { CommandIo } from '../../../src/cli/io.js';
import { isPidAlive } from '../../../src/registry/liveness.js';
import { TaskBoard } from '../../../src/store/board.js';
import { FileSafetyStore } from '../../../src/store/file-safety.js';
import { runCommand, runJson, type IoOptions } from '../../support/cli-io.js';
import { cleanupAll, freePort, getJson, postJson, startHeadless, tempHome, textMessage, waitFor, waitForTask } from '../../support/synapse.js';

/** The project's SQLite board (the engine behind the asynchronous interface), opened for one call. */
function withTaskBoard<T>(projectDir: string, fn: (board: TaskBoard) => T): T {
  const board = TaskBoard.forProject(projectDir);
  try {
    return fn(board);
  } finally {
    board.close();
  }
}

/**
 * `synapse list / status / logs / stop / kill / start / profiles / doctor` in-process, against
 * real echo agents that work in a temp project (so their locks and board stay in it). The
 * agent process itself and the spawn smoke tests (`start`'s detached agent, concurrent starts,
 * exit codes through main) are in test/integration/runtime/lifecycle.test.ts.
 */

const t = tempHome();
let project: string;

beforeAll(() => {
  project = fs.realpathSync(fs.mkdtempSync(path.join(t.home, 'project-')));
});
afterEach(cleanupAll);
afterAll(() => t.cleanup());

const io = (extra: Partial<IoOptions> = {}): IoOptions => ({ env: t.env, cwd: project, ...extra });
const run = (command: (io: CommandIo) => Promise<void> | void, extra?: Partial<IoOptions>) => runCommand(command, io(extra));
const json = <T = any>(command: (io: CommandIo) => Promise<void> | void, extra?: Partial<IoOptions>) => runJson<T>(command, io(extra));

const entryFile = (agentId: string) => path.join(t.env.SYNAPSE_REGISTRY_DIR!, `${agentId}.json`);

describe('synapse list and status', () => {
  it('lists the live agents with the file each edits, shows one with its locks and board tasks, resolves targets by name, type-port and type, and lists the candidates when several match', async () => {
    expect((await run((c) => listAgents({}, c))).stdout).toBe('No agents running. Start one with `synapse start echo` or `synapse claude`.\n');
    const a = await startHeadless('echo', { env: t.env, cwd: project, args: ['--name', 'one', '--role', 'first of two'] });
    const locks = FileSafetyStore.forProject(project, t.env);
    try {
      locks.lock({ path: 'src/a.ts', agent: a.agentId, pid: null, intent: 'refactor', ttlMs: 60_000 });
      locks.lock({ path: 'src/b.ts', agent: a.agentId, pid: null, ttlMs: 60_000 });
    } finally {
      locks.close();
    }
    const task = withTaskBoard(project, (b) => b.create({ subject: 'parse', assignee: 'one' }));

    const listed = await json((c) => listAgents({ json: true }, c));
    expect(listed).toEqual([
      expect.objectContaining({ agent_id: a.agentId, name: 'one', role: 'first of two', working_dir: project, editing_file: 'src/a.ts' }),
    ]);
    const table = (await run((c) => listAgents({}, c))).stdout.split('\n');
    expect(table[0]).toMatch(/^ID\s+NAME\s+TYPE\s+ROLE\s+STATUS\s+CURRENT\s+PORT\s+EDITING_FILE\s+WORKING_DIR$/);
    expect(table[1]).toMatch(new RegExp(`^${a.agentId}\\s+one\\s+echo\\s+first of two\\s+\\S+\\s+-\\s+${a.port}\\s+src/a\\.ts \\(\\+1\\)\\s+${project}$`));
    // The columns a setting picks, TRANSPORT and SKILL_SET among them.
    const picked = (await run((c) => listAgents({}, c), { env: { ...t.env, SYNAPSE_LIST_COLUMNS: 'name,transport,skill_set,editing_file' } })).stdout.split(
      '\n',
    );
    expect(picked.slice(0, 2)).toEqual([
      expect.stringMatching(/^NAME\s+TRANSPORT\s+SKILL_SET\s+EDITING_FILE$/),
      expect.stringMatching(/^one\s+HTTP\s+-\s+src\/a\.ts \(\+1\)$/),
    ]);

    // Holding locks, the agent reports PROCESSING with the reason (compound status, as the original).
    await waitFor(
      async () => (await json((c) => agentStatus('one', { json: true }, c))).live?.status === 'PROCESSING',
      10_000,
      'PROCESSING while it holds locks',
    );
    const status = await json((c) => agentStatus('one', { json: true }, c));
    expect(status).toMatchObject({
      agent_id: a.agentId,
      live: { ready_for_messages: true, status: 'PROCESSING', status_reason: 'holds 2 file locks' },
      board_tasks: [{ id: task.id, subject: 'parse' }],
    });
    expect(status.locks.map((l: { path: string }) => path.basename(l.path))).toEqual(['a.ts', 'b.ts']);
    const human = (await run((c) => agentStatus(`echo-${a.port}`, {}, c))).stdout;
    expect(human).toContain(`${a.agentId} (one)  echo  PROCESSING (holds 2 file locks)`);
    expect(human).toContain('  accepting    yes');
    expect(human).toContain(`  locks        ${path.join(project, 'src', 'a.ts')} (refactor), ${path.join(project, 'src', 'b.ts')}`);
    expect(human).toContain(`  board tasks  ${task.id.slice(0, 8)} pending parse`);
    // A type's alias names it too, while exactly one agent of the type runs.
    expect((await json((c) => agentStatus('dummy', { json: true }, c))).agent_id).toBe(a.agentId);
    const none = await run((c) => agentStatus('nobody', {}, c));
    expect(none.code).toBe(3);
    expect(none.stderr).toContain('no agent matches "nobody"');

    // A second live echo agent, as its registry entry (live: this process's pid, a fresh heartbeat).
    const port = await freePort();
    const two = `synapse-echo-${port}`;
    const entry = JSON.parse(fs.readFileSync(entryFile(a.agentId), 'utf8'));
    fs.writeFileSync(
      entryFile(two),
      // pid_starttime: null, since the recorded start time is the agent's, not this process's.
      JSON.stringify({ ...entry, agent_id: two, name: 'two', port, endpoint: `http://127.0.0.1:${port}`, pid: process.pid, pid_starttime: null }),
    );
    try {
      const ambiguous = await run((c) => agentStatus('echo', {}, c));
      expect(ambiguous.code).toBe(3);
      expect(ambiguous.stderr).toContain(a.agentId);
      expect(ambiguous.stderr).toContain(two);
    } finally {
      fs.rmSync(entryFile(two), { force: true });
    }
  });

  it('status shows the last finished tasks of the agent from the history, newest first, with no control bytes', async () => {
    const env = { ...t.env, SYNAPSE_HISTORY_ENABLED: 'true' };
    const a = await startHeadless('echo', { env, cwd: project, args: ['--name', 'histo'] });
    for (const text of ['first job', 'second \x1b]52;c;aGk=\x07job']) {
      const sent = await postJson(`${a.endpoint}/tasks/send`, textMessage(text));
      expect(sent.status).toBe(202);
      await waitForTask(a.endpoint, sent.body.task.id, 20_000);
    }
    const status = await waitFor(
      async () => {
        const s = await json((c) => agentStatus('histo', { json: true }, c), { env });
        return s.recent_history.length === 2 ? s : null;
      },
      10_000,
      'both tasks in the history',
    );
    expect(status.recent_history.map((h: { input: string; status: string }) => [h.input, h.status])).toEqual([
      [expect.stringContaining('job'), 'completed'],
      [expect.stringContaining('first job'), 'completed'],
    ]);
    const human = (await run((c) => agentStatus('histo', {}, c), { env })).stdout;
    expect(human).toMatch(/^ {2}history {6}[0-9a-f]{8} \S+ completed {2}.*job$/m);
    expect(human).toMatch(/^ {15}[0-9a-f]{8} \S+ completed {2}.*first job$/m);
    expect(human).not.toMatch(/\p{Cc}(?<!\n)/u);
  });

  it('list and target resolution say which registry files they skipped and why, and leave them in place', async () => {
    const own = tempHome();
    try {
      const dir = own.env.SYNAPSE_REGISTRY_DIR!;
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'broken.json'), '{ half');
      fs.writeFileSync(
        path.join(dir, 'synapse-claude-8100.json'),
        JSON.stringify({ agent_id: 'synapse-claude-8100', agent_type: 'claude', port: 8100, pid: process.pid }),
      );
      const listed = await run((c) => listAgents({ json: true }, c), { env: own.env });
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout)).toEqual([]);
      expect(listed.stderr).toContain(`skipped registry file ${path.join(dir, 'broken.json')}: not JSON`);
      expect(listed.stderr).toContain(
        `skipped registry file ${path.join(dir, 'synapse-claude-8100.json')}: not a Synapse registry entry: working_dir is missing`,
      );
      const table = await run((c) => listAgents({}, c), { env: own.env });
      expect(table.stdout).toContain('No agents running');
      expect(table.stderr.split('\n').filter((l) => l.startsWith('skipped registry file'))).toHaveLength(2);
      const status = await run((c) => agentStatus('claude', {}, c), { env: own.env });
      expect(status.code).toBe(3);
      expect(status.stderr).toContain(`no agent matches "claude"`);
      expect(status.stderr).toContain(`${path.join(dir, 'synapse-claude-8100.json')}: not a Synapse registry entry`);
      expect(fs.readdirSync(dir).sort()).toEqual(['broken.json', 'synapse-claude-8100.json']);
    } finally {
      own.cleanup();
    }
  });
});

describe('synapse logs, stop and kill', () => {
  it('prints the screen, refuses logs of an agent without a log file, and stops it', async () => {
    const a = await startHeadless('echo', { env: t.env, cwd: project, args: ['--name', 'screened'] });
    expect((await run((c) => agentLogs('screened', { lines: '200', screen: true }, c))).stdout).toContain('echo> ');
    const noLog = await run((c) => agentLogs('screened', { lines: '200' }, c));
    expect(noLog.code).toBe(1);
    expect(noLog.stderr).toContain(`${a.agentId} has no log file`);
    const stopped = await run((c) => stopCommand('screened', { timeout: '10' }, c));
    expect(stopped.stdout).toBe(`stopped ${a.agentId} (screened)\n`);
    await waitFor(() => a.child.exitCode !== null || a.child.signalCode !== null, 5000, 'the agent to exit');
    expect(fs.existsSync(entryFile(a.agentId))).toBe(false);
  });

  it('start runs an agent in the background with its role from a file; logs tail its log; kill -f ends it', async () => {
    fs.writeFileSync(path.join(project, 'role.md'), 'reviews every change\n');
    const port = await freePort();
    const started = await run((c) => startBackground('echo', [], { name: 'bg', role: '@role.md', port, host: '127.0.0.1', json: true }, c));
    expect(started.code, started.stderr).toBe(0);
    const entry = JSON.parse(started.stdout);
    try {
      expect(entry).toMatchObject({ name: 'bg', role: 'reviews every change', port, working_dir: project });
      expect(entry.log_file).toMatch(/\.synapse\/logs\//);
      await waitFor(async () => (await getJson(`${entry.endpoint}/status`)).body.ready_for_messages, 10_000, 'ready');
      const logs = await run((c) => agentLogs('bg', { lines: '200' }, c));
      expect(logs.stdout).toContain(`${entry.agent_id} listening on ${entry.endpoint}`);
      expect((await run((c) => agentLogs('bg', { lines: '1' }, c))).stdout.split('\n')).toHaveLength(2);
    } finally {
      const killed = await run((c) => killCommand('bg', { force: true, timeout: '5' }, c));
      expect(killed.stdout).toBe(`killed ${entry.agent_id} (bg)\n`);
    }
    expect(isPidAlive(entry.pid)).toBe(false);
    expect(fs.existsSync(entryFile(entry.agent_id))).toBe(false);
    const badRole = await run((c) => startBackground('echo', [], { role: '@missing.md' }, c));
    expect(badRole.code).toBe(1);
    expect(badRole.stderr).toContain('cannot read role file missing.md');
  });
});

describe('synapse profiles and doctor', () => {
  it('profiles says which CLIs are installed on this PATH', async () => {
    const rows = await json((c) => listProfilesCommand({ json: true }, c), { env: { ...t.env, PATH: '/nonexistent' } });
    expect(rows.find((r: { id: string }) => r.id === 'echo')).toMatchObject({ command: 'built-in', installed: true, version: null });
    expect(rows.find((r: { id: string }) => r.id === 'claude')).toMatchObject({ command: 'claude', installed: false, version: null });
    const table = await run((c) => listProfilesCommand({}, c), { env: { ...t.env, PATH: '/nonexistent' } });
    expect(table.stdout).toMatch(/^claude\s+\S+\s+\d+-\d+\s+claude\s+not installed\s+verified live$/m);
  });

  it('profiles lists every range, whether its CLI is installed, the version it reports and how the rules were verified', async () => {
    // A stand-in `codex` on PATH that reports a version; nothing else is installed.
    const bin = fs.mkdtempSync(path.join(t.home, 'bin-'));
    fs.writeFileSync(path.join(bin, 'codex'), '#!/bin/sh\necho "codex-cli 9.8.7"\n', { mode: 0o755 });
    const env = { ...t.env, PATH: `${bin}:/usr/bin:/bin` };
    const rows = await json<Array<{ id: string; ports: string; installed: boolean; version: string | null; available: boolean; verified_live: boolean }>>(
      (c) => listProfilesCommand({ json: true }, c),
      { env },
    );
    const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
    expect(Object.keys(byId).sort()).toEqual(['claude', 'codex', 'copilot', 'echo', 'gemini', 'opencode']);
    expect(byId.codex).toMatchObject({ ports: '8120-8129', installed: true, version: 'codex-cli 9.8.7', available: true, verified_live: true });
    expect(byId.claude).toMatchObject({ ports: '8100-8109', installed: false, version: null });
    expect(byId.echo).toMatchObject({ ports: '8190-8199', installed: true });
    expect(byId.copilot).toMatchObject({ ports: '8140-8149', installed: false, verified_live: true });
    const table = await run((c) => listProfilesCommand({}, c), { env });
    expect(table.stdout.split('\n')[0]).toMatch(/^PROFILE\s+ALIASES\s+PORTS\s+COMMAND\s+STATUS\s+RULES$/);
    expect(table.stdout).toMatch(/codex\s+codex-cli\s+8120-8129\s+codex\s+installed \(codex-cli 9\.8\.7\)\s+verified live/);
    expect(table.stdout).toMatch(/claude\s+claude-code\s+8100-8109\s+claude\s+not installed/);
  });

  it('doctor passes with a writable registry and fails (exit 1) naming the fix when it is not', async () => {
    const env = { ...t.env, PATH: '/nonexistent' };
    const checks = await json((c) => doctorCommand({ json: true }, c), { env });
    expect(checks.find((c: { check: string }) => c.check === 'registry')).toMatchObject({ ok: true, hard: true, detail: t.env.SYNAPSE_REGISTRY_DIR });
    expect(checks.find((c: { check: string }) => c.check === 'claude CLI')).toMatchObject({ ok: false, hard: false, detail: '"claude" not on PATH' });
    const blocker = path.join(t.home, 'not-a-dir');
    fs.writeFileSync(blocker, '');
    const broken = await run((c) => doctorCommand({}, c), { env: { ...env, SYNAPSE_REGISTRY_DIR: path.join(blocker, 'registry') } });
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/^registry\s+FAIL\s+\S+\s+make \S+ writable, or set SYNAPSE_REGISTRY_DIR$/m);
  });
});
