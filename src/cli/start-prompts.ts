import { sanitizeLabel } from '../runtime/sanitize.js';

/**
 * The questions `synapse <profile>` asks on a terminal before the CLI starts: the agent's name
 * and role (unless --name/--role/--no-setup), and, with `approvalMode: required`, whether to
 * start at all. Plain line input on stdin (the terminal's own echo and editing); the CLI gets the
 * terminal only afterwards.
 */
async function ask(question: string): Promise<string> {
  const readline = await import('node:readline/promises');
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: false });
  try {
    process.stderr.write(question);
    const answer = await new Promise<string>((resolve) => {
      rl.once('line', resolve);
      rl.once('close', () => resolve(''));
    });
    return answer.trim();
  } finally {
    rl.close();
  }
}

/** Asks for a name and a role; Enter skips each. */
export async function askNameRole(): Promise<{ name?: string; role?: string }> {
  process.stderr.write('[Synapse] Set up this agent (Enter skips; --no-setup or --name/--role skip the questions)\n');
  const name = await ask('[Synapse] Name (other agents can send to it): ');
  const role = await ask('[Synapse] Role (what it does in the team): ');
  return { ...(name ? { name } : {}), ...(role ? { role } : {}) };
}

export type Approval = 'proceed' | 'skip' | 'cancel';

/** `[Synapse] Agent: <id> | Port: <port>` … `Proceed? [Y/n/s(skip)]`; s = start without the start-up instruction. */
export async function askApproval(info: {
  agentId: string;
  port: number;
  name?: string | undefined;
  role?: string | undefined;
  instruction: string;
}): Promise<Approval> {
  const lines = [
    `[Synapse] Agent: ${info.agentId} | Port: ${info.port}`,
    `[Synapse] Name: ${sanitizeLabel(info.name ?? '-')} | Role: ${sanitizeLabel(info.role ?? '-')}`,
    `[Synapse] Start-up instruction: ${info.instruction}`,
  ];
  process.stderr.write(`${lines.join('\n')}\n`);
  for (;;) {
    const answer = (await ask('Proceed? [Y/n/s(skip)] ')).toLowerCase();
    if (answer === '' || answer === 'y' || answer === 'yes') return 'proceed';
    if (answer === 'n' || answer === 'no') return 'cancel';
    if (answer === 's' || answer === 'skip') return 'skip';
    process.stderr.write('[Synapse] Answer y (start), n (do not start) or s (start without the start-up instruction)\n');
  }
}

/**
 * On exit of an interactive named agent: `Save this agent definition for reuse? [y/N]:`, then
 * its id (a suggestion on Enter) and scope. Null when the answer is no.
 */
export async function askSaveAgent(suggestedId: string): Promise<{ id: string; scope: 'project' | 'user' } | null> {
  const save = (await ask('Save this agent definition for reuse? [y/N]: ')).toLowerCase();
  if (save !== 'y' && save !== 'yes') return null;
  const id = (await ask(`Saved agent ID [${suggestedId}]: `)) || suggestedId;
  const scope = (await ask('Scope [project/user] (default: project): ')).toLowerCase();
  return { id, scope: scope === 'user' ? 'user' : 'project' };
}
