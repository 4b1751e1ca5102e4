import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  cleanupFileSafety,
  fileHistory,
  fileSafetyDebug,
  fileSafetyStatus,
  listLocks,
  lockFile,
  recentChanges,
  recordChange,
  unlockFile,
  validateFile,
  type LockOptions,
} from '../../../src/cli/commands/file-safety.js';
import type { CommandIo } from '../../../src/cli/io.js';
import { changesForTask } from '../../../src/store/file-safety.js';
import { runCommand, runJson, testIo } from '../../support/cli-io.js';
import { exited, registerAgent, useTempProject, waitFor } from '../../support/project.js';

/** `synapse file-safety …` in-process, on a real database in a temp project. */

const ctx = useTempProject();
const children = ctx.children;

type Lock = { path: string; agent_id: string; pid: number | null; intent: string | null };

const io = (env: NodeJS.ProcessEnv = {}, parentPid?: number) => ({
  env: { ...ctx.project.env, ...env },
  cwd: ctx.project.dir,
  ...(parentPid ? { parentPid } : {}),
});
const run = (command: (io: CommandIo) => Promise<void>, env?: NodeJS.ProcessEnv) => runCommand(command, io(env));
const json = <T = any>(command: (io: CommandIo) => Promise<void>, env?: NodeJS.ProcessEnv) => runJson<T>(command, io(env));
/** What commander passes for `lock` when only these options are given. */
const lockOpts = (o: Partial<LockOptions> = {}): LockOptions => ({ ttl: '600', waitTimeout: '60', waitInterval: '2', ...o });
const lock = (file: string, agent: string, o: Partial<LockOptions> = {}, env?: NodeJS.ProcessEnv) => run((c) => lockFile(file, agent, lockOpts(o), c), env);
const validate = (file: string, agent: string, env?: NodeJS.ProcessEnv) => run((c) => validateFile(file, agent, {}, c), env);
const locks = () => json<Lock[]>((c) => listLocks({ json: true }, c));

describe('synapse file-safety', () => {
  it('locks, validates, unlocks and normalises paths to one lock', async () => {
    fs.mkdirSync(path.join(ctx.project.dir, 'src'));
    fs.symlinkSync(path.join(ctx.project.dir, 'src'), path.join(ctx.project.dir, 'alias'));
    const file = path.join(ctx.project.dir, 'src', 'a.ts');
    const locked = await lock('./src/a.ts', 'alice', { intent: 'refactor', ttl: '10m', pid: '0' });
    expect(locked.code).toBe(0);
    expect(locked.stdout).toContain(`locked ${file}  alice`);
    expect((await lock('src/a.ts', 'alice', { pid: '0' })).stdout).toContain(`renewed ${file}  alice`);

    for (const spelling of [file, 'alias/a.ts', 'src/../src/a.ts']) {
      const other = await lock(spelling, 'bob');
      expect(other.code).toBe(1);
      expect(other.stderr).toContain(`${file} is locked by alice`);
    }
    const denied = await validate('alias/a.ts', 'bob');
    expect(denied.code).toBe(1);
    expect(denied.stdout).toContain('denied:');
    expect(denied.stdout).toContain('locked by alice');
    expect(denied.stdout).toContain('refactor');
    expect((await validate('src/a.ts', 'alice')).code).toBe(0);
    expect((await validate('src/other.ts', 'bob')).stdout).toContain('allowed');
    const verdict = await run((c) => validateFile('src/a.ts', 'bob', { json: true }, c));
    expect(verdict.code).toBe(1);
    expect(JSON.parse(verdict.stdout)).toMatchObject({ allowed: false });

    expect(await locks()).toEqual([expect.objectContaining({ path: file, agent_id: 'alice', pid: null, intent: 'refactor' })]);
    expect((await run((c) => listLocks({}, c))).stdout).toMatch(/PATH\s+AGENT\s+PID\s+EXPIRES\s+INTENT\n.*a\.ts\s+alice\s+-\s+\S+\s+refactor/);
    const st = await json((c) => fileSafetyStatus({ json: true }, c));
    expect(st).toMatchObject({ active_locks: 1, stale_locks: 0, agents: { alice: 1 } });
    expect((await run((c) => fileSafetyStatus({}, c))).stdout).toContain(
      'active locks:      1\nstale locks:       0 (removed by the next lock or cleanup)\n  alice: 1\n',
    );

    const refused = await run((c) => unlockFile(file, 'bob', {}, c));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('only the owner can unlock it');
    expect((await run((c) => unlockFile('alias/a.ts', 'alice', {}, c))).stdout).toContain(`unlocked ${file}`);
    expect(await locks()).toEqual([]);
    expect((await run((c) => listLocks({}, c))).stdout).toBe('No files are locked.\n');
  });

  it('expires a lock at its TTL', async () => {
    await lock('a.ts', 'alice', { ttl: '1s', pid: '0' });
    expect((await validate('a.ts', 'bob')).code).toBe(1);
    await waitFor(async () => (await validate('a.ts', 'bob')).code === 0, 10_000, 'TTL expiry');
    expect((await lock('a.ts', 'bob')).code).toBe(0);
  });

  it("without --pid the caller's parent process owns the lock, and its death frees it", async () => {
    const shell = spawn('sleep', ['60']);
    children.push(shell);
    const taken = await runCommand((c) => lockFile('held.ts', 'worker', lockOpts({ ttl: '1h' }), c), io({}, shell.pid));
    expect(taken.code).toBe(0);
    expect((await locks())[0]).toMatchObject({ agent_id: 'worker', pid: shell.pid });
    expect((await lock('held.ts', 'thief')).code).toBe(1);
    shell.kill('SIGKILL');
    await exited(shell);
    const stolen = await lock('held.ts', 'thief');
    expect(stolen.stdout).toContain('cleared stale lock of worker');
    expect((await locks())[0]).toMatchObject({ agent_id: 'thief' });
    expect((await lock('p.ts', 'x', { pid: 'abc' })).stderr).toContain("--pid must be a whole number from 1 to 2147483647, got 'abc'");
  });

  it('never lets a stale entry (live pid, silent heartbeat) lend its pid to a lock', async () => {
    const reused = spawn('sleep', ['60']);
    children.push(reused);
    const silentSince = new Date(Date.now() - 10 * 60_000).toISOString();
    registerAgent(ctx.project, {
      agent_id: 'synapse-claude-8100',
      name: 'alice',
      pid: reused.pid!,
      port: 8100,
      working_dir: ctx.project.dir,
      heartbeat_at: silentSince,
    });
    await lock('x.ts', 'alice');
    // Not the reused pid: the lock falls back to the caller's parent process, as for an unregistered name.
    expect(await locks()).toEqual([expect.objectContaining({ agent_id: 'alice', pid: process.ppid })]);
  });

  it("records a registered agent's own pid, so its lock dies with the agent", async () => {
    const agent = spawn('sleep', ['60']);
    children.push(agent);
    registerAgent(ctx.project, { agent_id: 'synapse-claude-8100', name: 'alice', pid: agent.pid!, port: 8100, working_dir: ctx.project.dir });
    await lock('x.ts', 'alice');
    expect(await locks()).toEqual([expect.objectContaining({ agent_id: 'synapse-claude-8100', pid: agent.pid })]);
    expect((await validate('x.ts', 'alice')).code).toBe(0);
    expect((await validate('x.ts', 'synapse-claude-8100')).code).toBe(0);
    agent.kill('SIGKILL');
    await exited(agent);
    expect(await locks()).toEqual([]);
    expect((await validate('x.ts', 'bob')).code).toBe(0);
  });

  it('waits with --wait until the holder unlocks', async () => {
    await lock('w.ts', 'alice', { pid: '0' });
    const waiter = testIo(io());
    const waiting = runCommand((c) => lockFile('w.ts', 'bob', lockOpts({ pid: '0', wait: true, waitTimeout: '20', waitInterval: '0.1s' }), c), waiter);
    await waitFor(() => waiter.stderr.includes('waiting up to 20s for alice'), 10_000, 'the waiting notice');
    expect(waiter.stderr.match(/waiting up to/g)).toHaveLength(1);
    await run((c) => unlockFile('w.ts', 'alice', {}, c));
    expect((await waiting).code).toBe(0);
    expect((await locks())[0]).toMatchObject({ agent_id: 'bob' });
    const gaveUp = await lock('w.ts', 'carol', { wait: true, waitTimeout: '0.3s', waitInterval: '0.1s' });
    expect(gaveUp.code).toBe(1);
    expect(gaveUp.stderr).toContain('gave up after waiting');
  });

  it('records changes and shows history, recent, task changes and cleanup', async () => {
    await run((c) => recordChange('new/file.ts', 'alice', { type: 'create', task: 'T-1', intent: 'scaffold' }, c));
    expect((await run((c) => recordChange('./new/file.ts', 'bob', { type: 'Modify' }, c))).stdout).toBe(
      `recorded modify of ${path.join(ctx.project.dir, 'new', 'file.ts')} by bob\n`,
    );
    const history = await json((c) => fileHistory('new/file.ts', { limit: '50', json: true }, c));
    expect(history.map((c: { agent_id: string }) => c.agent_id)).toEqual(['bob', 'alice']);
    expect((await run((c) => fileHistory('new/file.ts', { limit: '50' }, c))).stdout).toMatch(
      /WHEN\s+TYPE\s+AGENT\s+PATH\s+TASK\s+INTENT\n[\s\S]*T-1\s+scaffold/,
    );
    expect((await run((c) => fileHistory('other.ts', { limit: '50' }, c))).stdout).toBe('No changes recorded for this file.\n');
    expect((await json((c) => recentChanges({ limit: '1', json: true }, c))).length).toBe(1);
    expect((await run((c) => recentChanges({ limit: 'x' }, c))).stderr).toContain('--limit must be a whole number');
    const badType = await run((c) => recordChange('x', 'alice', { type: 'rename' }, c));
    expect(badType.code).toBe(1);
    expect(badType.stderr).toContain('--type must be one of create, modify, delete');
    expect(changesForTask(ctx.project.dir, 'T-1', ctx.project.env).map((c) => c.change_type)).toEqual(['create']);
    expect((await run((c) => cleanupFileSafety({ days: '1' }, c))).stdout).toContain('deleted 0 change record(s)');
    expect((await json((c) => cleanupFileSafety({ days: '0', json: true }, c))).changes_deleted).toBe(2);
    expect((await run((c) => recentChanges({ limit: '20' }, c))).stdout).toBe('No changes recorded yet.\n');
    const debug = await json((c) => fileSafetyDebug(c));
    expect(debug).toMatchObject({ enabled: true, schema_version: 3, journal_mode: 'wal', quick_check: 'ok', changes: 0 });
  });

  it('honours SYNAPSE_FILE_SAFETY_DB_PATH and SYNAPSE_FILE_SAFETY_ENABLED', async () => {
    const custom = path.join(ctx.project.home, 'locks.db');
    await lock('a.ts', 'alice', {}, { SYNAPSE_FILE_SAFETY_DB_PATH: custom });
    expect(fs.existsSync(custom)).toBe(true);
    expect(fs.existsSync(path.join(ctx.project.dir, '.synapse', 'file_safety.db'))).toBe(false);
    const off = await lock('a.ts', 'alice', {}, { SYNAPSE_FILE_SAFETY_ENABLED: 'false' });
    expect(off.code).toBe(1);
    expect(off.stderr).toContain('file safety is disabled');
    expect((await validate('a.ts', 'bob', { SYNAPSE_FILE_SAFETY_ENABLED: 'false' })).code).toBe(0);
    const debugOff = await json((c) => fileSafetyDebug(c), { SYNAPSE_FILE_SAFETY_ENABLED: 'false' });
    expect(debugOff).toEqual({
      enabled: false,
      file: path.join(ctx.project.dir, '.synapse', 'file_safety.db'),
      env: { SYNAPSE_FILE_SAFETY_ENABLED: 'false', SYNAPSE_FILE_SAFETY_DB_PATH: null },
    });
  });

  it('fails closed: an unreadable database denies writes and names the file', async () => {
    const file = path.join(ctx.project.dir, '.synapse', 'file_safety.db');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'corrupt '.repeat(1000));
    const v = await validate('a.ts', 'alice');
    expect(v.code).toBe(1);
    expect(v.stdout).toContain(`denied: file-safety database unreadable, denying writes: cannot open database ${file}`);
    const l = await run((c) => listLocks({}, c));
    expect(l.code).toBe(1);
    expect(l.stderr).toContain(file);
  });
});
