import { liveAgents } from '../../registry/lookup.js';
import { findOrphans } from '../../team/orphans.js';
import { listWorktrees, pruneWorktrees } from '../../team/worktree.js';
import { mergeAgentBranch } from '../../team/worktree-merge.js';
import { ExitRequest } from '../exit.js';
import { printJson, type CommandIo } from '../io.js';
import { renderTable } from '../table.js';
import { killCommand } from './lifecycle.js';

/** `synapse worktree list`. */
export function worktreeListCommand(flags: { json?: boolean }, io: CommandIo): void {
  const list = listWorktrees(io.cwd, liveAgents(io.env), io.env);
  if (flags.json) return printJson(io, list);
  if (list.length === 0) {
    io.out('no agent worktrees (start one with `synapse start <profile> --worktree [name]`)\n');
    return;
  }
  const rows = list.map((w) => [
    w.name,
    w.branch,
    w.agents.join(', ') || '-',
    w.missing ? 'directory gone' : w.uncommitted.length ? `${w.uncommitted.length} uncommitted` : 'clean',
    String(w.ahead),
    w.path,
  ]);
  io.out(`${renderTable(['NAME', 'BRANCH', 'AGENTS', 'CHANGES', 'UNMERGED', 'PATH'], rows)}\n`);
}

/** `synapse worktree prune [--dry-run]`. */
export function worktreePruneCommand(flags: { json?: boolean; dryRun?: boolean }, io: CommandIo): void {
  const outcomes = pruneWorktrees(io.cwd, liveAgents(io.env), io.env, flags.dryRun === true);
  if (flags.json) return printJson(io, outcomes);
  if (outcomes.length === 0) io.out('no agent worktrees to prune\n');
  for (const o of outcomes) io.out(`${o.action === 'removed' ? (flags.dryRun ? 'would remove' : 'removed') : 'kept'} ${o.name}: ${o.reason}\n`);
}

/** `synapse merge <agent>`. */
export function mergeCommand(agent: string, flags: { json?: boolean }, io: CommandIo): void {
  const result = mergeAgentBranch(agent, io.cwd, liveAgents(io.env), io.env);
  if (flags.json) return printJson(io, result);
  io.out(
    result.changed
      ? `merged ${result.branch} into ${result.into} (now ${result.head.slice(0, 10)})\n`
      : `${result.into} already has everything of ${result.branch}\n`,
  );
  if (result.uncommitted_in_worktree.length > 0)
    io.err(
      `note: ${result.uncommitted_in_worktree.length} uncommitted file(s) in the worktree were not part of the merge: ${result.uncommitted_in_worktree.slice(0, 5).join(', ')}\n`,
    );
}

/** `synapse cleanup [--dry-run]`: lists the orphaned agents, then stops each (as `synapse kill`). */
export async function cleanupCommand(flags: { json?: boolean; dryRun?: boolean }, io: CommandIo): Promise<void> {
  const orphans = findOrphans(liveAgents(io.env));
  const listed = orphans.map((o) => ({ agent_id: o.entry.agent_id, name: o.entry.name, pid: o.entry.pid, spawned_by_pid: o.parentPid }));
  const stopped: string[] = [];
  const failed: { agent_id: string; error: string }[] = [];
  if (!flags.json) {
    io.out(orphans.length === 0 ? 'no orphaned agents\n' : `${orphans.length} orphaned agent(s) (their spawning parent is gone):\n`);
    for (const o of listed) io.out(`  ${o.agent_id}${o.name ? ` (${o.name})` : ''}: pid ${o.pid}, spawned by pid ${o.spawned_by_pid}\n`);
  }
  if (!flags.dryRun) {
    // With --json, kill's own progress lines go to stderr so that stdout stays one JSON value.
    const killIo: CommandIo = flags.json ? { ...io, out: (text) => io.err(text) } : io;
    for (const o of orphans) {
      try {
        await killCommand(o.entry.agent_id, { timeout: '5' }, killIo);
        stopped.push(o.entry.agent_id);
      } catch (err) {
        failed.push({ agent_id: o.entry.agent_id, error: (err as Error).message });
        if (!flags.json) io.err(`could not stop ${o.entry.agent_id}: ${(err as Error).message}\n`);
      }
    }
  }
  if (flags.json) printJson(io, { orphans: listed, stopped, failed, dry_run: flags.dryRun === true });
  if (failed.length > 0) throw new ExitRequest(1);
}
