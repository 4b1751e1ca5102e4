import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { listLocks, lockFile } from '../../../src/cli/commands/file-safety.js';
import { runCommand, runJson } from '../../support/cli-io.js';
import { BIN, exited, helpShowsExamples, synapse, useTempProject, waitFor } from './harness.js';

/**
 * Spawn smoke tests: `bin/synapse.js file-safety …` parses, calls the command and exits with the
 * right code, and a lock taken from a shell belongs to that shell. What each command does is
 * tested in-process in test/integration/cli/file-safety.test.ts.
 */

const ctx = useTempProject();
const children = ctx.children;

type Lock = { path: string; agent_id: string; pid: number | null; intent: string | null };

/** Read in-process: only the command under test needs a process of its own. */
const locks = () => runJson<Lock[]>((c) => listLocks({ json: true }, c), { env: ctx.project.env, cwd: ctx.project.dir });
const lockAs = (agent: string) =>
  runCommand((c) => lockFile('held.ts', agent, { ttl: '600', waitTimeout: '60', waitInterval: '2' }, c), { env: ctx.project.env, cwd: ctx.project.dir });

describe('synapse file-safety (spawned)', () => {
  it('validate exits 1 when denied and 0 when allowed; --help shows examples', async () => {
    expect((await synapse(ctx.project, ['file-safety', 'lock', 'v.ts', 'alice', '--pid', '0', '--ttl', '10m'])).code).toBe(0);
    const denied = await synapse(ctx.project, ['file-safety', 'validate', 'v.ts', 'bob']);
    expect(denied.code).toBe(1);
    expect(denied.stdout).toContain('denied:');
    expect((await synapse(ctx.project, ['file-safety', 'validate', 'v.ts', 'alice'])).code).toBe(0);
    expect(await helpShowsExamples(ctx.project, 'file-safety', 'lock')).toBe(true);
  });

  it('reaps a lock as soon as the shell that took it is killed with SIGKILL', async () => {
    // The lock belongs to the CLI's parent: this shell, which then becomes `sleep` (same pid).
    const shell = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" file-safety lock held.ts worker --ttl 1h && exec sleep 60`], {
      cwd: ctx.project.dir,
      env: ctx.project.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(shell);
    let said = '';
    shell.stdout.on('data', (d) => (said += d));
    shell.stderr.on('data', (d) => (said += d));
    const [held] = await waitFor(
      async () => {
        const l = await locks();
        return l.length === 1 ? l : null;
        // A node start-up for the lock command on a loaded 2-core machine: a clean-clone CI run
        // once missed a 10 s deadline here.
      },
      20_000,
      'the lock of the shell',
    ).catch((err: Error) => {
      throw new Error(`${err.message}; the lock command said: ${said || '(nothing)'}; shell exit ${shell.exitCode}`);
    });
    expect(held!.pid).toBe(shell.pid);
    expect((await lockAs('thief')).code).toBe(1);
    shell.kill('SIGKILL');
    await exited(shell);
    const taken = await lockAs('thief');
    expect(taken.stdout).toContain('cleared stale lock of worker');
    expect((await locks())[0]).toMatchObject({ agent_id: 'thief' });
  }, 45_000);
});
