import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { projectSynapseDir, type Env } from '../config/paths.js';
import { SynapseError } from '../errors.js';
import type { RegistryEntry } from '../registry/entry.js';
import { gitCheckout, projectRoot } from '../registry/project.js';
import { git, gitOrThrow } from './worktree-git.js';

/**
 * Agent worktrees: `.synapse/worktrees/<name>` of the project's main checkout, each on its own
 * branch `synapse/<name>`, made with `git worktree add` from the current HEAD. An agent started
 * with `--worktree` works there, so two agents never edit one working tree; the project (board,
 * locks, memory) stays one, since every worktree shares the repository's common directory.
 */

/** What the registry entry of an agent in a worktree records (`worktree`), and what `create` returns. */
export interface AgentWorktree {
  name: string;
  path: string;
  branch: string;
}

export const BRANCH_PREFIX = 'synapse/';

/** A name git takes as a branch component and a directory name alike. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

function checkName(name: string): void {
  if (!NAME.test(name) || name.includes('..') || name.endsWith('.lock') || name.endsWith('.')) {
    throw new SynapseError('usage', `invalid worktree name "${name}": use letters, digits, '.', '_' and '-' (e.g. --worktree fix-login)`);
  }
}

/** `<main checkout>/.synapse/worktrees`: where every agent worktree of the project lives. */
function worktreesDir(cwd: string): string {
  return path.join(projectSynapseDir(projectRoot(cwd)), 'worktrees');
}

/** The checkout of `cwd`, or a clear error when it is not in a git repository with a commit. */
function requireRepo(cwd: string, env: Env) {
  const checkout = gitCheckout(cwd);
  if (!checkout)
    throw new SynapseError(
      'usage',
      `--worktree needs a git repository, and ${cwd} is not in one; run \`git init\` and commit first, or start without --worktree`,
    );
  if (!git(cwd, ['rev-parse', '--verify', '--quiet', 'HEAD'], env).ok)
    throw new SynapseError('usage', `--worktree starts from the current commit, and ${checkout.top} has none yet; commit first`);
  return checkout;
}

/** Keeps `.synapse/worktrees/` out of the main checkout's `git status`, in the repository's own exclude file (never a tracked file). */
function excludeWorktreesDir(commonDir: string): void {
  const file = path.join(commonDir, 'info', 'exclude');
  const line = '/.synapse/worktrees/';
  try {
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    if (text.split('\n').includes(line)) return;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.appendFileSync(file, `${text.length === 0 || text.endsWith('\n') ? '' : '\n'}# synapse agent worktrees\n${line}\n`);
  } catch {
    // Best effort: a read-only repository only shows the worktrees in `git status`.
  }
}

/** The branch a checkout is on (`synapse/<name>`), or null when it is detached. */
export function branchOf(dir: string, env: Env): string | null {
  const res = git(dir, ['symbolic-ref', '--quiet', '--short', 'HEAD'], env);
  return res.ok ? res.stdout.trim() : null;
}

/**
 * Makes (or, when it is there already, reuses) the worktree `name` for an agent: a new branch
 * `synapse/<name>` from the current HEAD, or the existing branch of that name. `name` defaults to
 * `<base>-<6 hex>`. Returns the worktree and the directory the agent should start in (the same
 * subdirectory as `cwd` when the worktree has it).
 */
export function createWorktree(
  cwd: string,
  name: string | undefined,
  base: string,
  live: RegistryEntry[],
  env: Env,
): AgentWorktree & { cwd: string; created: boolean } {
  const checkout = requireRepo(cwd, env);
  const wtName = name ?? `${base.replace(/[^A-Za-z0-9._-]/g, '-')}-${crypto.randomBytes(3).toString('hex')}`;
  checkName(wtName);
  const dir = path.join(worktreesDir(cwd), wtName);
  // One agent per worktree: two agents editing one working tree is what worktrees are for avoiding.
  const users = live.filter((e) => inside(realOrSame(e.working_dir), realOrSame(dir)));
  if (users.length > 0)
    throw new SynapseError(
      'conflict',
      `worktree ${wtName} is in use by ${users.map((e) => e.name ?? e.agent_id).join(', ')}; choose another name (or --worktree without one)`,
    );
  const branch = `${BRANCH_PREFIX}${wtName}`;
  let created = false;
  if (fs.existsSync(dir)) {
    const there = gitCheckout(dir);
    if (!there || there.top !== fs.realpathSync(dir) || there.commonDir !== checkout.commonDir)
      throw new SynapseError('conflict', `${dir} exists but is not a worktree of this repository; choose another name or move it away`);
  } else {
    const hasBranch = git(cwd, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], env).ok;
    gitOrThrow(cwd, ['worktree', 'add', ...(hasBranch ? [dir, branch] : ['-b', branch, dir, 'HEAD'])], env);
    created = true;
  }
  excludeWorktreesDir(checkout.commonDir);
  const real = fs.realpathSync(dir);
  const sub = path.join(real, path.relative(checkout.top, fs.realpathSync(cwd)));
  return { name: wtName, path: real, branch: branchOf(real, env) ?? branch, cwd: fs.existsSync(sub) ? sub : real, created };
}

/** One agent worktree of the project, as `synapse worktree list` shows it. */
export interface WorktreeStatus extends AgentWorktree {
  /** Live agents working in it (agent ids). */
  agents: string[];
  /** Changed or untracked files (never removed by prune). */
  uncommitted: string[];
  /** Commits on its branch that the main checkout's HEAD does not have yet. */
  ahead: number;
  /** Its directory is gone (git still lists it until `git worktree prune`). */
  missing: boolean;
}

/** `git worktree list --porcelain` → path and branch of each worktree. */
function listedWorktrees(cwd: string, env: Env): { path: string; branch: string | null }[] {
  return gitOrThrow(cwd, ['worktree', 'list', '--porcelain'], env)
    .split('\n\n')
    .map((block) => ({ path: /^worktree (.+)$/m.exec(block)?.[1], branch: /^branch refs\/heads\/(.+)$/m.exec(block)?.[1] ?? null }))
    .filter((w): w is { path: string; branch: string | null } => w.path !== undefined);
}

function inside(dir: string, parent: string): boolean {
  const rel = path.relative(parent, dir);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function realOrSame(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    // A worktree whose directory was deleted: compared by the path git recorded.
    return p;
  }
}

/** Every worktree under `.synapse/worktrees/` of the project of `cwd`, with its agents and state. */
export function listWorktrees(cwd: string, live: RegistryEntry[], env: Env): WorktreeStatus[] {
  requireRepo(cwd, env);
  const root = realOrSame(worktreesDir(cwd));
  const main = projectRoot(cwd);
  return listedWorktrees(cwd, env)
    .map((w) => ({ ...w, path: realOrSame(w.path) }))
    .filter((w) => inside(w.path, root) && w.path !== root)
    .map((w) => {
      const missing = !fs.existsSync(w.path);
      const branch = w.branch ?? '(detached)';
      const ahead = w.branch ? Number(git(main, ['rev-list', '--count', `HEAD..refs/heads/${w.branch}`], env).stdout.trim() || 0) : 0;
      return {
        name: path.relative(root, w.path),
        path: w.path,
        branch,
        agents: live.filter((e) => inside(realOrSame(e.working_dir), w.path)).map((e) => e.agent_id),
        uncommitted: missing ? [] : uncommitted(w.path, env),
        ahead,
        missing,
      };
    });
}

function uncommitted(dir: string, env: Env): string[] {
  const res = git(dir, ['status', '--porcelain', '--untracked-files=all'], env);
  // A worktree git cannot read is reported as dirty: prune must never remove what it cannot see.
  if (!res.ok) return ['(git status failed)'];
  return res.stdout
    .split('\n')
    .filter((l) => l.length > 3)
    .map((l) => l.slice(3));
}

/** What `prune` did with each worktree. */
export interface PruneOutcome {
  name: string;
  path: string;
  branch: string;
  action: 'removed' | 'kept';
  reason: string;
}

/**
 * Removes the worktrees no live agent works in and that have no uncommitted change (git's own
 * `worktree remove`, without --force, checks again). A branch that is merged into HEAD goes too
 * (`git branch -d`); an unmerged one stays, so committed work is never lost. `dryRun` decides
 * without removing.
 */
export function pruneWorktrees(cwd: string, live: RegistryEntry[], env: Env, dryRun = false): PruneOutcome[] {
  const main = projectRoot(cwd);
  const outcomes = listWorktrees(cwd, live, env).map((w): PruneOutcome => {
    const base = { name: w.name, path: w.path, branch: w.branch };
    if (w.agents.length > 0) return { ...base, action: 'kept', reason: `in use by ${w.agents.join(', ')}` };
    if (w.uncommitted.length > 0)
      return { ...base, action: 'kept', reason: `${w.uncommitted.length} uncommitted file(s): ${w.uncommitted.slice(0, 5).join(', ')}` };
    if (dryRun) return { ...base, action: 'removed', reason: 'would be removed (dry run)' };
    if (!w.missing) {
      const res = git(main, ['worktree', 'remove', w.path], env);
      if (!res.ok) return { ...base, action: 'kept', reason: `git refused: ${res.stderr.trim()}` };
    }
    const dropped = w.branch.startsWith(BRANCH_PREFIX) && git(main, ['branch', '-d', w.branch], env).ok;
    return {
      ...base,
      action: 'removed',
      reason: dropped ? `branch ${w.branch} deleted (merged)` : `branch ${w.branch} kept (${w.ahead} commit(s) not merged)`,
    };
  });
  if (!dryRun) git(main, ['worktree', 'prune'], env);
  return outcomes;
}
