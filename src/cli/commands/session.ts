import type { Command } from 'commander';
import { processIo } from '../io.js';
import type { RestoreFlags } from './session-cli.js';

/*
 * `synapse session save|list|show|restore|delete`: declarations only; session-cli.ts does the work
 * (loaded when a subcommand runs).
 */

const sessionCli = () => import('./session-cli.js');

export function registerSessionCommands(program: Command): void {
  const session = program
    .command('session')
    .description("Save the running agents of this project (with each CLI's conversation id) and bring them back later")
    .addHelpText(
      'after',
      `
Sessions live in .synapse/sessions/<name>.json (project, wins on a name) or, with --user, in
~/.synapse/sessions/. A name is letters, digits, "-" and "_".

Examples:
  synapse session save sprint-3
  synapse session list
  synapse session restore sprint-3 --resume
  synapse session delete sprint-3`,
    );

  session
    .command('save')
    .description('Record every running agent of this project: profile, name, role, skill set, port, worktree, working dir, conversation id')
    .argument('<name>', 'the session name (letters, digits, - and _)')
    .option('--user', 'save in ~/.synapse/sessions/ instead of the project')
    .option('--json', 'print the saved session as JSON')
    .addHelpText('after', '\nExamples:\n  synapse session save sprint-3\n  synapse session save nightly --user --json')
    .action(async (name: string, flags: { user?: boolean; json?: boolean }) => (await sessionCli()).saveSessionCommand(name, flags, processIo()));

  session
    .command('list')
    .description('List the saved sessions (project and user)')
    .option('--user', 'only the user sessions')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  synapse session list --json')
    .action(async (flags: { user?: boolean; json?: boolean }) => (await sessionCli()).listSessionsCommand(flags, processIo()));

  session
    .command('show')
    .description('Show the agents of one saved session')
    .argument('<name>', 'the session name')
    .option('--user', 'the user session of that name')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  synapse session show sprint-3')
    .action(async (name: string, flags: { user?: boolean; json?: boolean }) => (await sessionCli()).showSessionCommand(name, flags, processIo()));

  session
    .command('restore')
    .description('Start every agent of a saved session again, as `synapse spawn` does (same name, role, skill set, port, worktree, dir)')
    .argument('<name>', 'the session name')
    .option(
      '--resume',
      'start each CLI on its saved conversation (its resume flags); one that is not READY within SYNAPSE_RESUME_TIMEOUT seconds (10) is started fresh',
    )
    .option('--terminal <kind>', 'tmux, zellij or background; auto (default): tmux inside tmux, zellij inside zellij, else background', 'auto')
    .option('--user', 'the user session of that name')
    .option('--json', 'print the restored agents as JSON')
    .addHelpText(
      'after',
      `
A member that fails to start is reported (exit 1) and the others keep running. Conversations:
Claude Code and the echo agent are started with --session-id <uuid> (so their id is known),
Codex's id is read from its rollout files (~/.codex/sessions), Gemini CLI resumes "latest",
OpenCode and Copilot CLI --continue.

Examples:
  synapse session restore sprint-3
  synapse session restore sprint-3 --resume --terminal tmux`,
    )
    .action(async (name: string, flags: RestoreFlags) => (await sessionCli()).restoreSessionCommand(name, flags, processIo()));

  session
    .command('delete')
    .description('Delete a saved session (the agents are not touched)')
    .argument('<name>', 'the session name')
    .option('--user', 'the user session of that name')
    .option('--json', 'print the deleted session file as JSON')
    .addHelpText('after', '\nExample:\n  synapse session delete sprint-3')
    .action(async (name: string, flags: { user?: boolean; json?: boolean }) => (await sessionCli()).deleteSessionCommand(name, flags, processIo()));
}
