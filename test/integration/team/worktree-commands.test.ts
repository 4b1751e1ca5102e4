import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, runCli, startHeadless, tempHome, waitFor } from '../../support/synapse.js';
import { gitRepo } from '../../support/git-repo.js';

/*
 * Issue 16 worktrees with real git and real agents: `synapse start --worktree`, sends across
 * worktrees needing --force, `synapse merge` (clean, conflicting, refused on a dirty tree),
 * `synapse worktree list|prune` never losing uncommitted work, and `synapse cleanup` of agents
 * whose spawning parent is gone.
 */

const t = tempHome();
const repo = path.join(t.home, 'repo');
let git: (cwd: string, ...args: string[]) => string;
const fixDir = path.join(repo, '.synapse', 'worktrees', 'fix');
const cli = (args: string[], cwd = repo) => runCli(args, { env: t.env, cwd });

beforeAll(() => {
  git = gitRepo(repo, t.env, { 'a.txt': 'one\n', 'b.txt': 'b\n' });
});

afterAll(async () => {
  // The background agent of `start`, if a failed test left it running.
  await cli(['kill', 'fixer', '-f']).catch(() => undefined);
  await cleanupAll();
  t.cleanup();
});

describe('agent worktrees', () => {
  it('starts a background agent in .synapse/worktrees/<name> on branch synapse/<name>, recorded in its entry', async () => {
    const started = await cli(['start', 'echo', '--name', 'fixer', '--worktree', 'fix', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const entry = JSON.parse(started.stdout) as { working_dir: string; worktree: unknown };
    expect(entry.working_dir).toBe(fixDir);
    expect(entry.worktree).toEqual({ name: 'fix', path: fixDir, branch: 'synapse/fix' });
    expect(git(fixDir, 'symbolic-ref', '--short', 'HEAD')).toBe('synapse/fix');
    // The main checkout does not see the worktrees as untracked files.
    expect(git(repo, 'status', '--porcelain', '--untracked-files=all')).not.toContain('worktrees');
    const list = JSON.parse((await cli(['worktree', 'list', '--json'])).stdout) as { name: string; agents: string[] }[];
    expect(list).toEqual([expect.objectContaining({ name: 'fix', branch: 'synapse/fix', agents: [expect.stringMatching(/^synapse-echo-/)], uncommitted: [] })]);
    // One agent per worktree.
    const second = await cli(['start', 'echo', '--name', 'second', '--worktree', 'fix']);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('worktree fix is in use by fixer');
  }, 30_000);

  it('says what to do when --worktree is used outside a git repository, and starts nothing', async () => {
    const plain = path.join(t.home, 'plain');
    fs.mkdirSync(plain, { recursive: true });
    const refused = await cli(['start', 'echo', '--name', 'nowhere', '--worktree'], plain);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--worktree needs a git repository');
    expect(fs.existsSync(path.join(plain, '.synapse'))).toBe(false);
    expect((await cli(['list', '--json'])).stdout).not.toContain('nowhere');
  }, 20_000);

  it('refuses a send across worktrees without --force, and says that is why', async () => {
    const refused = await cli(['send', 'fixer', 'hello', '--silent']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('another worktree of this repository');
    expect(refused.stderr).toContain('--force');
    const forced = await cli(['send', 'fixer', 'hello', '--silent', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
  }, 20_000);

  it("merges the agent's branch into the current branch", async () => {
    fs.writeFileSync(path.join(fixDir, 'new.txt'), 'from the agent\n');
    git(fixDir, 'add', 'new.txt');
    git(fixDir, 'commit', '-qm', 'agent work');
    const merged = await cli(['merge', 'fixer', '--json']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(JSON.parse(merged.stdout)).toMatchObject({ branch: 'synapse/fix', into: 'main', changed: true, uncommitted_in_worktree: [] });
    expect(fs.readFileSync(path.join(repo, 'new.txt'), 'utf8')).toBe('from the agent\n');
  }, 20_000);

  it('refuses on conflicts, lists the files, and leaves the tree as it was', async () => {
    fs.writeFileSync(path.join(fixDir, 'a.txt'), 'agent\n');
    git(fixDir, 'commit', '-qam', 'agent edits a');
    fs.writeFileSync(path.join(repo, 'a.txt'), 'human\n');
    git(repo, 'commit', '-qam', 'human edits a');
    const head = git(repo, 'rev-parse', 'HEAD');
    const refused = await cli(['merge', 'fixer']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('conflicts in 1 file(s)');
    expect(refused.stderr).toMatch(/^ {2}a\.txt$/m);
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(repo, 'status', '--porcelain', '--untracked-files=no')).toBe('');
    expect(fs.existsSync(path.join(repo, '.git', 'MERGE_HEAD'))).toBe(false);
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('human\n');
  }, 20_000);

  it('refuses to merge into a checkout with uncommitted changes, and keeps them', async () => {
    fs.writeFileSync(path.join(repo, 'b.txt'), 'my unsaved work\n');
    const refused = await cli(['merge', 'fixer']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('uncommitted changes (b.txt)');
    expect(fs.readFileSync(path.join(repo, 'b.txt'), 'utf8')).toBe('my unsaved work\n');
    git(repo, 'checkout', '--', 'b.txt');
  }, 20_000);

  it('prunes only worktrees without agents and without uncommitted changes; a dirty one is listed, not removed', async () => {
    const inUse = JSON.parse((await cli(['worktree', 'prune', '--json'])).stdout) as { action: string; reason: string }[];
    expect(inUse).toEqual([expect.objectContaining({ name: 'fix', action: 'kept', reason: expect.stringContaining('in use by') })]);
    expect((await cli(['kill', 'fixer'])).code).toBe(0);

    fs.writeFileSync(path.join(fixDir, 'draft.txt'), 'not committed\n');
    fs.appendFileSync(path.join(fixDir, 'b.txt'), 'changed\n');
    const dirty = await cli(['worktree', 'prune']);
    expect(dirty.code).toBe(0);
    expect(dirty.stdout).toContain('kept fix: 2 uncommitted file(s)');
    expect(fs.readFileSync(path.join(fixDir, 'draft.txt'), 'utf8')).toBe('not committed\n');
    expect(fs.readFileSync(path.join(fixDir, 'b.txt'), 'utf8')).toBe('b\nchanged\n');

    git(fixDir, 'checkout', '--', 'b.txt');
    fs.rmSync(path.join(fixDir, 'draft.txt'));
    const clean = await cli(['worktree', 'prune']);
    expect(clean.stdout).toContain('removed fix');
    expect(fs.existsSync(fixDir)).toBe(false);
    // Its unmerged commit (the conflicting edit) is kept on its branch.
    expect(clean.stdout).toContain('branch synapse/fix kept');
    expect(git(repo, 'branch', '--list', 'synapse/fix')).toContain('synapse/fix');
    expect(JSON.parse((await cli(['worktree', 'list', '--json'])).stdout)).toEqual([]);
  }, 40_000);
});

describe('synapse cleanup', () => {
  /** A pid that has just exited: a spawning parent that is gone. */
  async function deadPid(): Promise<number> {
    const child = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => child.once('exit', r));
    return child.pid!;
  }

  function setSpawnedBy(agentId: string, pid: number): void {
    const file = path.join(t.env.SYNAPSE_REGISTRY_DIR!, `${agentId}.json`);
    const entry = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(file, JSON.stringify({ ...entry, spawned_by_pid: pid }));
  }

  it('lists and stops the agents whose spawning parent is gone, and no other', async () => {
    const [orphan, kept, own] = await Promise.all([
      startHeadless('echo', { env: t.env, cwd: repo, args: ['--name', 'orphan'] }),
      startHeadless('echo', { env: t.env, cwd: repo, args: ['--name', 'kept'] }),
      startHeadless('echo', { env: t.env, cwd: repo, args: ['--name', 'own'] }),
    ]);
    const gone = await deadPid();
    setSpawnedBy(orphan.agentId, gone);
    setSpawnedBy(kept.agentId, process.pid);

    const dry = await cli(['cleanup', '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ orphans: [{ agent_id: orphan.agentId, name: 'orphan', spawned_by_pid: gone }], stopped: [], dry_run: true });
    expect(orphan.child.exitCode).toBeNull();

    const done = await cli(['cleanup']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain(`${orphan.agentId} (orphan): pid`);
    expect(done.stdout).toContain(`spawned by pid ${gone}`);
    await waitFor(() => orphan.child.exitCode !== null || orphan.child.signalCode !== null, 10_000, 'the orphan to exit');
    expect(kept.child.exitCode).toBeNull();
    expect(own.child.exitCode).toBeNull();
    expect((await cli(['cleanup'])).stdout).toContain('no orphaned agents');
  }, 60_000);
});
