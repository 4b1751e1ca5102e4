import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, exited, json, killAll, registerAgent, synapse, tempProject, waitFor, type Project } from './harness.js';

let project: Project;
const children: ChildProcess[] = [];

beforeEach(() => {
  project = tempProject();
});

afterEach(async () => {
  await killAll(children);
  project.cleanup();
});

type Lock = { path: string; agent_id: string; pid: number | null; intent: string | null };

const locks = () => json<Lock[]>(project, ['file-safety', 'locks', '--json']);

describe('synapse file-safety', () => {
  it('locks, validates, unlocks and normalises paths to one lock', async () => {
    fs.mkdirSync(path.join(project.dir, 'src'));
    fs.symlinkSync(path.join(project.dir, 'src'), path.join(project.dir, 'alias'));
    const file = path.join(project.dir, 'src', 'a.ts');
    const lock = await synapse(project, ['file-safety', 'lock', './src/a.ts', 'alice', '--intent', 'refactor', '--ttl', '10m', '--pid', '0']);
    expect(lock.code).toBe(0);
    expect(lock.stdout).toContain(`locked ${file}  alice`);

    for (const spelling of [file, 'alias/a.ts', 'src/../src/a.ts']) {
      const other = await synapse(project, ['file-safety', 'lock', spelling, 'bob']);
      expect(other.code).toBe(1);
      expect(other.stderr).toContain(`${file} is locked by alice`);
    }
    const denied = await synapse(project, ['file-safety', 'validate', 'alias/a.ts', 'bob']);
    expect(denied.code).toBe(1);
    expect(denied.stdout).toContain('denied:');
    expect(denied.stdout).toContain('locked by alice');
    expect(denied.stdout).toContain('refactor');
    expect((await synapse(project, ['file-safety', 'validate', 'src/a.ts', 'alice'])).code).toBe(0);
    expect((await synapse(project, ['file-safety', 'validate', 'src/other.ts', 'bob'])).stdout).toContain('allowed');

    expect(await locks()).toEqual([expect.objectContaining({ path: file, agent_id: 'alice', pid: null, intent: 'refactor' })]);
    const st = await json(project, ['file-safety', 'status', '--json']);
    expect(st).toMatchObject({ active_locks: 1, stale_locks: 0, agents: { alice: 1 } });

    const refused = await synapse(project, ['file-safety', 'unlock', file, 'bob']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('only the owner can unlock it');
    expect((await synapse(project, ['file-safety', 'unlock', 'alias/a.ts', 'alice'])).stdout).toContain(`unlocked ${file}`);
    expect(await locks()).toEqual([]);
  });

  it('expires a lock at its TTL', async () => {
    await synapse(project, ['file-safety', 'lock', 'a.ts', 'alice', '--ttl', '1s', '--pid', '0']);
    expect((await synapse(project, ['file-safety', 'validate', 'a.ts', 'bob'])).code).toBe(1);
    await waitFor(async () => (await synapse(project, ['file-safety', 'validate', 'a.ts', 'bob'])).code === 0, 10_000, 'TTL expiry');
    expect((await synapse(project, ['file-safety', 'lock', 'a.ts', 'bob'])).code).toBe(0);
  });

  it('reaps a lock as soon as the shell that took it is killed with SIGKILL', async () => {
    // The lock belongs to the CLI's parent: this shell, which then becomes `sleep` (same pid).
    const shell = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" file-safety lock held.ts worker --ttl 1h && exec sleep 60`], {
      cwd: project.dir,
      env: project.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(shell);
    let said = '';
    shell.stdout!.on('data', (d) => (said += d));
    shell.stderr!.on('data', (d) => (said += d));
    const [held] = await waitFor(async () => {
      const l = await locks();
      return l.length === 1 ? l : null;
      // Two node start-ups (the lock command, then a `locks` poll) on a loaded 2-core machine: a
      // clean-clone CI run once missed a 10 s deadline here.
    }, 20_000, 'the lock of the shell').catch((err: Error) => {
      throw new Error(`${err.message}; the lock command said: ${said || '(nothing)'}; shell exit ${shell.exitCode}`);
    });
    expect(held!.pid).toBe(shell.pid);
    expect((await synapse(project, ['file-safety', 'lock', 'held.ts', 'thief'])).code).toBe(1);
    shell.kill('SIGKILL');
    await exited(shell);
    const taken = await synapse(project, ['file-safety', 'lock', 'held.ts', 'thief']);
    expect(taken.stdout).toContain('cleared stale lock of worker');
    expect((await locks())[0]).toMatchObject({ agent_id: 'thief' });
  }, 45_000);

  it('never lets a stale entry (live pid, silent heartbeat) lend its pid to a lock', async () => {
    const reused = spawn('sleep', ['60']);
    children.push(reused);
    const silentSince = new Date(Date.now() - 10 * 60_000).toISOString();
    registerAgent(project, { agent_id: 'synapse-claude-8100', name: 'alice', pid: reused.pid!, port: 8100, working_dir: project.dir, heartbeat_at: silentSince });
    await synapse(project, ['file-safety', 'lock', 'x.ts', 'alice']);
    expect(await locks()).toEqual([expect.objectContaining({ agent_id: 'alice', pid: process.pid })]);
  });

  it("records a registered agent's own pid, so its lock dies with the agent", async () => {
    const agent = spawn('sleep', ['60']);
    children.push(agent);
    registerAgent(project, { agent_id: 'synapse-claude-8100', name: 'alice', pid: agent.pid!, port: 8100, working_dir: project.dir });
    await synapse(project, ['file-safety', 'lock', 'x.ts', 'alice']);
    expect(await locks()).toEqual([expect.objectContaining({ agent_id: 'synapse-claude-8100', pid: agent.pid })]);
    expect((await synapse(project, ['file-safety', 'validate', 'x.ts', 'alice'])).code).toBe(0);
    expect((await synapse(project, ['file-safety', 'validate', 'x.ts', 'synapse-claude-8100'])).code).toBe(0);
    agent.kill('SIGKILL');
    await exited(agent);
    expect(await locks()).toEqual([]);
    expect((await synapse(project, ['file-safety', 'validate', 'x.ts', 'bob'])).code).toBe(0);
  });

  it('waits with --wait until the holder unlocks', async () => {
    await synapse(project, ['file-safety', 'lock', 'w.ts', 'alice', '--pid', '0']);
    const waiter = spawn(process.execPath, [BIN, 'file-safety', 'lock', 'w.ts', 'bob', '--pid', '0', '--wait', '--wait-timeout', '20', '--wait-interval', '0.1s'], {
      cwd: project.dir,
      env: project.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(waiter);
    let err = '';
    waiter.stderr!.on('data', (d) => (err += d));
    await waitFor(() => err.includes('waiting up to 20s for alice'), 10_000, 'the waiting notice');
    await synapse(project, ['file-safety', 'unlock', 'w.ts', 'alice']);
    const code = await new Promise<number | null>((r) => waiter.once('exit', r));
    expect(code).toBe(0);
    expect((await locks())[0]).toMatchObject({ agent_id: 'bob' });
    const gaveUp = await synapse(project, ['file-safety', 'lock', 'w.ts', 'carol', '--wait', '--wait-timeout', '0.3s', '--wait-interval', '0.1s']);
    expect(gaveUp.code).toBe(1);
    expect(gaveUp.stderr).toContain('gave up after waiting');
  });

  it('records changes and shows history, recent, task changes and cleanup', async () => {
    await synapse(project, ['file-safety', 'record', 'new/file.ts', 'alice', '--type', 'create', '--task', 'T-1', '--intent', 'scaffold']);
    await synapse(project, ['file-safety', 'record', './new/file.ts', 'bob', '--type', 'modify']);
    const history = await json(project, ['file-safety', 'history', 'new/file.ts', '--json']);
    expect(history.map((c: { agent_id: string }) => c.agent_id)).toEqual(['bob', 'alice']);
    expect((await synapse(project, ['file-safety', 'history', 'new/file.ts'])).stdout).toContain('scaffold');
    expect((await json(project, ['file-safety', 'recent', '--limit', '1', '--json'])).length).toBe(1);
    const badType = await synapse(project, ['file-safety', 'record', 'x', 'alice', '--type', 'rename']);
    expect(badType.code).toBe(1);
    expect(badType.stderr).toContain('--type must be one of create, modify, delete');
    const { changesForTask } = await import('../../../src/store/file-safety.js');
    expect(changesForTask(project.dir, 'T-1', project.env).map((c) => c.change_type)).toEqual(['create']);
    expect((await synapse(project, ['file-safety', 'cleanup', '--days', '1'])).stdout).toContain('deleted 0 change record(s)');
    expect((await json(project, ['file-safety', 'cleanup', '--days', '0', '--json'])).changes_deleted).toBe(2);
    const debug = await json(project, ['file-safety', 'debug']);
    expect(debug).toMatchObject({ enabled: true, schema_version: 2, journal_mode: 'wal', quick_check: 'ok', changes: 0 });
  });

  it('honours SYNAPSE_FILE_SAFETY_DB_PATH and SYNAPSE_FILE_SAFETY_ENABLED', async () => {
    const custom = path.join(project.home, 'locks.db');
    await synapse(project, ['file-safety', 'lock', 'a.ts', 'alice'], { env: { SYNAPSE_FILE_SAFETY_DB_PATH: custom } });
    expect(fs.existsSync(custom)).toBe(true);
    expect(fs.existsSync(path.join(project.dir, '.synapse', 'file_safety.db'))).toBe(false);
    const off = await synapse(project, ['file-safety', 'lock', 'a.ts', 'alice'], { env: { SYNAPSE_FILE_SAFETY_ENABLED: 'false' } });
    expect(off.code).toBe(1);
    expect(off.stderr).toContain('file safety is disabled');
    expect((await synapse(project, ['file-safety', 'validate', 'a.ts', 'bob'], { env: { SYNAPSE_FILE_SAFETY_ENABLED: 'false' } })).code).toBe(0);
  });

  it('fails closed: an unreadable database denies writes and names the file', async () => {
    const file = path.join(project.dir, '.synapse', 'file_safety.db');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'corrupt '.repeat(1000));
    const v = await synapse(project, ['file-safety', 'validate', 'a.ts', 'alice']);
    expect(v.code).toBe(1);
    expect(v.stdout).toContain(`denied: file-safety database unreadable, denying writes: cannot open database ${file}`);
    const l = await synapse(project, ['file-safety', 'locks']);
    expect(l.code).toBe(1);
    expect(l.stderr).toContain(file);
  });

  it('has --help with an example on every subcommand', async () => {
    for (const sub of ['lock', 'unlock', 'locks', 'status', 'validate', 'record', 'history', 'recent', 'cleanup', 'debug']) {
      const help = await synapse(project, ['file-safety', sub, '--help']);
      expect(help.stdout).toContain('Examples:');
      expect(help.stdout).toContain(`synapse file-safety ${sub}`);
    }
  });
});
