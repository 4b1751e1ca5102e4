import type { Command } from 'commander';
import { processIo } from '../io.js';
import { examples } from './store-cli.js';

/*
 * `synapse worktree list|prune`, `synapse merge <agent>` and `synapse cleanup`: declarations only.
 * Each action loads worktree-actions.ts (git, the registry) when it runs.
 */

export function registerWorktreeCommands(program: Command): void {
  const worktree = program
    .command('worktree')
    .description("The agents' git worktrees (.synapse/worktrees/<name>, branch synapse/<name>; made by --worktree on run/start)");

  examples(
    worktree
      .command('list')
      .description('List the agent worktrees of this repository: branch, agents in it, uncommitted files, commits not merged yet')
      .option('--json', 'print JSON'),
    ['synapse worktree list', 'synapse worktree list --json'],
  ).action(async (flags: { json?: boolean }) => {
    const { worktreeListCommand } = await import('./worktree-actions.js');
    worktreeListCommand(flags, processIo());
  });

  examples(
    worktree
      .command('prune')
      .description('Remove the worktrees no running agent uses; never one with uncommitted changes (listed instead); unmerged branches are kept')
      .option('--dry-run', 'say what would be removed, remove nothing')
      .option('--json', 'print JSON'),
    ['synapse worktree prune --dry-run', 'synapse worktree prune'],
  ).action(async (flags: { json?: boolean; dryRun?: boolean }) => {
    const { worktreePruneCommand } = await import('./worktree-actions.js');
    worktreePruneCommand(flags, processIo());
  });

  examples(
    program
      .command('merge')
      .description("Merge an agent's worktree branch into the current branch; on a conflict, list the files and change nothing")
      .argument('<agent>', 'name, agent id, type-port or type of an agent started with --worktree, or a worktree name')
      .option('--json', 'print JSON {branch, into, head, changed, uncommitted_in_worktree}'),
    ['synapse merge fixer', 'synapse merge fix-login --json'],
  ).action(async (agent: string, flags: { json?: boolean }) => {
    const { mergeCommand } = await import('./worktree-actions.js');
    mergeCommand(agent, flags, processIo());
  });

  examples(
    program
      .command('cleanup')
      .description('Stop the agents whose spawning parent is gone (orphaned helpers), after listing them')
      .option('--dry-run', 'list them, stop nothing')
      .option('--json', 'print JSON {orphans, stopped, failed}'),
    ['synapse cleanup --dry-run', 'synapse cleanup'],
  ).action(async (flags: { json?: boolean; dryRun?: boolean }) => {
    const { cleanupCommand } = await import('./worktree-actions.js');
    await cleanupCommand(flags, processIo());
  });
}
