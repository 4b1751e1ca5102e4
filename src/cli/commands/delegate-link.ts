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
  env: NodeJS.ProcessEnv,
): Promise<BoardLink> {
  if (typeof task === 'string') {
    const { withBoard } = await import('../../store/board-store.js');
    const found = await withBoard(target.working_dir, (b) => b.get(task), { env });
    if (found.status === 'completed' || found.status === 'failed')
      throw new SynapseError(
        'conflict',
        `board task ${found.id.slice(0, 8)} is ${found.status}; reopen it (\`synapse tasks reopen ${found.id.slice(0, 8)}\`) or link another`,
      );
    return { kind: 'existing', id: found.id };
  }
  if (task === true) return { kind: 'create' };
  if (!sender || !inDelegateMode(sender)) return { kind: 'none' };
  const { withBoard } = await import('../../store/board-store.js');
  const assignees = [target.agent_id, ...(target.name ? [target.name] : [])];
  const open = await withBoard(target.working_dir, (b) => b.list({ status: ['pending', 'in_progress'], assignee: assignees }), { env });
  if (open.length > 0) return { kind: 'none' };
  throw new SynapseError(
    'delegate_mode',
    `${label(sender)} runs in delegate mode: work goes out with a task on the board, and ${label(target)} has no open board task. Run:\n` +
      `  synapse send ${shellWord(targetArg)} ${shellWord(text)} --task\n` +
      `(--task creates a board task assigned to ${target.name ?? target.agent_id} and links the message to it; --task <id> links an existing one)`,
    { target: target.agent_id },
  );
}

/**
 * Records a send's board link before the message goes out: `existing` links the board task to
 * the A2A task, `create` makes a task assigned to the target. The board keeps the text, so
 * credentials are redacted there (issue 21 §4); the message itself is not.
 */
export async function applyBoardLink(
  link: BoardLink,
  projectDir: string,
  task: { a2aTaskId: string; text: string; assignee: string; createdBy: string | null; priority?: number },
  env: NodeJS.ProcessEnv,
): Promise<void> {
  if (link.kind === 'none') return;
  const { createLinkedTask, withBoard } = await import('../../store/board-store.js');
  if (link.kind === 'existing') {
    await withBoard(projectDir, (b) => b.linkA2aTask(link.id, task.a2aTaskId), { env });
    return;
  }
  const redact = (await import('../../redact.js')).secretRedactor(env);
  await createLinkedTask(
    projectDir,
    {
      subject: redact(task.text.split('\n')[0]!.slice(0, 200)),
      description: redact(task.text),
      assignee: task.assignee,
      a2a_task_id: task.a2aTaskId,
      created_by: task.createdBy,
      priority: task.priority,
    },
    { env },
  );
}
