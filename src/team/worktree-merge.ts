import type { Env } from '../config/paths.js';
import { SynapseError } from '../errors.js';
import type { RegistryEntry } from '../registry/entry.js';
import { gitCheckout } from '../registry/project.js';
import { findTarget } from '../registry/targets.js';
import { BRANCH_PREFIX, branchOf, listWorktrees } from './worktree.js';
import { changedFiles, git, gitOrThrow } from './worktree-git.js';

/** What `synapse merge` did. */
export interface MergeResult {
  branch: string;
  into: string;
  /** The commit the current branch is at afterwards. */
  head: string;
  /** False when the branch had nothing the current branch lacks. */
  changed: boolean;
  /** Files changed in the agent's worktree but not committed there: not part of the merge. */
  uncommitted_in_worktree: string[];
}

/** The worktree branch of `target`: a live agent (by name, id, type-port) or a worktree name. */
function branchFor(target: string, cwd: string, live: RegistryEntry[], env: Env): { branch: string; path: string | null; who: string } {
  const agent = findTarget(live, target);
  if (agent) {
    const recorded = (agent as { worktree?: { branch?: unknown; path?: unknown } }).worktree;
    const dir = typeof recorded?.path === 'string' ? recorded.path : agent.working_dir;
    const checkout = gitCheckout(dir);
    const branch = typeof recorded?.branch === 'string' ? recorded.branch : checkout?.linked ? branchOf(checkout.top, env) : null;
    if (!branch)
      throw new SynapseError('usage', `${agent.agent_id} does not work in a worktree of its own (it was not started with --worktree); nothing to merge`);
    return { branch, path: checkout?.top ?? dir, who: agent.agent_id };
  }
  const known = listWorktrees(cwd, live, env).find((w) => w.name === target || w.branch === target);
  if (known) return { branch: known.branch, path: known.missing ? null : known.path, who: known.name };
  if (git(cwd, ['rev-parse', '--verify', '--quiet', `refs/heads/${BRANCH_PREFIX}${target}`], env).ok)
    return { branch: `${BRANCH_PREFIX}${target}`, path: null, who: target };
  throw new SynapseError('target_not_found', `no running agent and no worktree named "${target}"; \`synapse worktree list\` shows the worktrees`);
}

/**
 * `synapse merge <agent>`: merges the agent's worktree branch into the branch checked out in
 * `cwd`. Refuses when `cwd` has uncommitted changes to tracked files (an aborted merge could not
 * give them back). On a conflict it lists the conflicting files, aborts the merge (the tree is
 * as it was) and throws `conflict`.
 */
export function mergeAgentBranch(target: string, cwd: string, live: RegistryEntry[], env: Env): MergeResult {
  const here = gitCheckout(cwd);
  if (!here) throw new SynapseError('usage', `${cwd} is not in a git repository; run synapse merge in the checkout to merge into`);
  const { branch, path: wtPath, who } = branchFor(target, cwd, live, env);
  const into = branchOf(cwd, env);
  if (!into) throw new SynapseError('usage', `${here.top} is on a detached HEAD; check out the branch to merge into first`);
  if (into === branch) throw new SynapseError('usage', `${here.top} is ${who}'s own worktree (${branch}); run synapse merge from the checkout to merge into`);
  const dirty = changedFiles(cwd, env, true);
  if (dirty.length > 0)
    throw new SynapseError('conflict', `${here.top} has uncommitted changes (${dirty.slice(0, 5).join(', ')}); commit or stash them, then merge ${branch}`, {
      files: dirty,
    });
  const uncommittedThere = wtPath ? changedFiles(wtPath, env) : [];
  const before = gitOrThrow(cwd, ['rev-parse', 'HEAD'], env).trim();
  const merge = git(cwd, ['merge', '--no-edit', '-m', `Merge ${branch} (synapse merge ${who})`, branch], env);
  if (!merge.ok) {
    const files = git(cwd, ['diff', '--name-only', '--diff-filter=U'], env)
      .stdout.split('\n')
      .filter((f) => f.length > 0);
    git(cwd, ['merge', '--abort'], env);
    if (files.length === 0) throw new SynapseError('invalid_input', `git merge ${branch} failed: ${(merge.stderr || merge.stdout).trim()}`);
    throw new SynapseError(
      'conflict',
      `merging ${branch} into ${into} conflicts in ${files.length} file(s):\n  ${files.join('\n  ')}\nNothing was changed (the merge was aborted). ` +
        `Resolve it by hand (git merge ${branch}), or ask ${who} to rebase on ${into} first.`,
      { files, branch, into },
    );
  }
  const head = gitOrThrow(cwd, ['rev-parse', 'HEAD'], env).trim();
  return { branch, into, head, changed: head !== before, uncommitted_in_worktree: uncommittedThere };
}
