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

describe('synapse file-safety: directory-tree locks', () => {
  const run = (args: string[]) => synapse(ctx.project, ['file-safety', ...args]);

  it('a tree lock covers everything under it, overlapping locks are refused either way unless same owner', async () => {
    const tree = await run(['lock', 'src/auth/**', 'alice', '--pid', '0', '--json']);
    expect(tree.code, tree.stderr).toBe(0);
    expect(JSON.parse(tree.stdout).lock).toMatchObject({ kind: 'tree', agent_id: 'alice' });

    // A file inside the held tree, and a tree around it, are refused for another agent.
    const inside = await run(['lock', 'src/auth/deep/login.ts', 'bob', '--pid', '0']);
    expect(inside.code).toBe(1);
    expect(inside.stderr).toMatch(/src\/auth\/\*\* is locked by alice/);
    expect((await run(['lock', 'src/**', 'bob', '--pid', '0'])).code).toBe(1);
    // The owner may lock files in its own tree; a sibling directory is free.
    expect((await run(['lock', 'src/auth/login.ts', 'alice', '--pid', '0'])).code).toBe(0);
    expect((await run(['lock', 'src/authz/x.ts', 'bob', '--pid', '0'])).code).toBe(0);

    // validate denies writes under the tree to others, allows them to the owner.
    const denied = await run(['validate', 'src/auth/deep/new.ts', 'bob']);
    expect([denied.code, denied.stdout]).toEqual([1, expect.stringContaining('src/auth/** is locked by alice')]);
    expect((await run(['validate', 'src/auth/deep/new.ts', 'alice'])).code).toBe(0);
    expect((await run(['validate', 'src/authz/x.ts', 'carol'])).code).toBe(1);
    expect((await run(['validate', 'src/other.ts', 'bob'])).code).toBe(0);

    const listed = JSON.parse((await run(['locks', '--json'])).stdout) as { path: string; kind: string }[];
    expect(listed.map((l) => l.kind).sort()).toEqual(['file', 'file', 'tree']);
    expect((await run(['locks'])).stdout).toMatch(/src\/auth\/\*\*\s+alice/);

    expect((await run(['unlock', 'src/auth/**', 'alice'])).code).toBe(0);
    expect((await run(['unlock', 'src/auth/login.ts', 'alice'])).code).toBe(0);
    expect((await run(['validate', 'src/auth/deep/new.ts', 'bob'])).code).toBe(0);
  });

  it('a tree lock over a file another agent holds is refused', async () => {
    expect((await run(['lock', 'lib/db/pool.ts', 'alice', '--pid', '0'])).code).toBe(0);
    const over = await run(['lock', 'lib/**', 'bob', '--pid', '0']);
    expect(over.code).toBe(1);
    expect(over.stderr).toMatch(/lib\/db\/pool\.ts is locked by alice/);
    expect((await run(['lock', 'lib/db/**', 'alice', '--pid', '0'])).code).toBe(0);
  });

  it.each(['src/*.ts', '**', 'a/**/b', 'src/auth/*', 'src/{a,b}/**', '**/x.ts'])('refuses the ambiguous pattern %s', async (pattern) => {
    const out = await run(['lock', pattern, 'alice', '--pid', '0']);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('ambiguous lock pattern');
    expect(out.stderr).toContain('src/auth/**');
  });
});
