import type * as Commander from 'commander';
import type { Command } from 'commander';
import { requireCjs } from '../require-cjs.js';
import { registerAgentCommands } from './commands/agents.js';
import { registerAuthCommands } from './commands/auth.js';
import { registerCanvasCommands } from './commands/canvas.js';
import { registerExternalCommands } from './commands/external.js';
import { registerMcpCommands } from './commands/mcp.js';
import { registerMessagingCommands } from './commands/messaging.js';
import { registerHooksCommands } from './commands/hooks.js';
import { registerSkillCommands } from './commands/skills/register.js';
import { registerSettingsCommands } from './commands/settings.js';
import { registerStoreCommands } from './commands/team-store.js';
import { registerWorktreeCommands } from './commands/worktree.js';
import { registerWorkflowCommands } from './commands/workflow.js';
import { registerTeamCommands } from './commands/team.js';
import { registerSessionCommands } from './commands/session.js';
import { VERSION } from '../version.js';

const { Command: CommandClass } = requireCjs('commander') as typeof Commander;

const EXIT_HELP = `
Exit codes:
  0  success
  1  usage error, invalid input, working-directory mismatch, other errors
  2  unknown profile, or the agent CLI is not installed
  3  target agent not found or ambiguous
  4  target agent not ready in time, or its inbox already holds too many of your messages (429)
  5  delivery failed / agent unreachable, or a message queued for an absent agent expired
  6  answer timed out

Examples:
  synapse claude                      wrap Claude Code in this terminal
  synapse start echo --name alice     run the built-in echo agent in the background
  synapse list                        show running agents
  synapse demo                        two echo agents talk over A2A, then stop`;

/** `profiles`: the shipped profiles, named in the help of `run` and `start`. */
export function buildProgram(profiles?: string): Command {
  const program = new CommandClass('synapse')
    .description('Run CLI coding agents as a peer-to-peer A2A team. `synapse <profile>` wraps a CLI in this terminal.')
    .version(VERSION, '-v, --version')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', EXIT_HELP)
    .exitOverride();
  registerAgentCommands(program, profiles);
  registerMessagingCommands(program);
  registerStoreCommands(program);
  registerHooksCommands(program);
  registerExternalCommands(program);
  registerSkillCommands(program);
  registerMcpCommands(program);
  registerSettingsCommands(program);
  registerWorktreeCommands(program);
  registerWorkflowCommands(program);
  registerAuthCommands(program);
  registerTeamCommands(program);
  registerSessionCommands(program);
  registerCanvasCommands(program);
  return program;
}

/** `synapse claude …` is shorthand for `synapse run claude …`. */
export function withDefaultRun(program: Command, argv: string[]): string[] {
  const first = argv[2];
  if (first === undefined || first.startsWith('-')) return argv;
  const known = new Set(program.commands.flatMap((c) => [c.name(), ...c.aliases()]));
  if (known.has(first) || first === 'help') return argv;
  return [...argv.slice(0, 2), 'run', ...argv.slice(2)];
}
