import { SynapseError } from '../../errors.js';
import { inDelegateMode, type RegistryEntry } from '../../registry/entry.js';

/** A word the shell passes as it is, or the text in single quotes. */
function shellWord(text: string): string {
  return /^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

function label(e: Pick<RegistryEntry, 'agent_id' | 'name'>): string {
  return e.name ? `${e.name} (${e.agent_id})` : e.agent_id;
}

/** How `synapse send` ties a message to the shared board: nothing, a new linked task, or an existing one. */
export type BoardLink = { kind: 'none' } | { kind: 'create' } | { kind: 'existing'; id: string };

/**
 * The board link of a send: `--task` creates a task assigned to the target, `--task <id>` links
 * that task. A sender in delegate mode (a manager) hands out work only with a board task: `--task`,
 * `--task <id>`, or an open task already assigned to the target; otherwise the send is refused
 * with the command that would go through.
 */
export async function boardLinkFor(
  sender: RegistryEntry | null,
  target: Pick<RegistryEntry, 'agent_id' | 'name' | 'working_dir'>,
  task: string | boolean | undefined,
  text: string,
  targetArg: string,
): Promise<BoardLink> {
  if (typeof task === 'string') {
    const { withTaskBoard } = await import('../../store/board.js');
    const found = withTaskBoard(target.working_dir, (b) => b.get(task));
    if (found.status === 'completed' || found.status === 'failed')
      throw new SynapseError(
        'conflict',
        `board task ${found.id.slice(0, 8)} is ${found.status}; reopen it (\`synapse tasks reopen ${found.id.slice(0, 8)}\`) or link another`,
      );
    return { kind: 'existing', id: found.id };
  }
  if (task === true) return { kind: 'create' };
  if (!sender || !inDelegateMode(sender)) return { kind: 'none' };
  const { withTaskBoard } = await import('../../store/board.js');
  const assignees = [target.agent_id, ...(target.name ? [target.name] : [])];
  const open = withTaskBoard(target.working_dir, (b) => b.list({ status: ['pending', 'in_progress'], assignee: assignees }));
  if (open.length > 0) return { kind: 'none' };
  throw new SynapseError(
    'delegate_mode',
    `${label(sender)} runs in delegate mode: work goes out with a task on the board, and ${label(target)} has no open board task. Run:\n` +
      `  synapse send ${shellWord(targetArg)} ${shellWord(text)} --task\n` +
      `(--task creates a board task assigned to ${target.name ?? target.agent_id} and links the message to it; --task <id> links an existing one)`,
    { target: target.agent_id },
  );
}
