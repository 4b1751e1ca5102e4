import type { Command } from 'commander';
import { processIo } from '../io.js';
import { parsePort } from './agents.js';
import type { AddSavedFlags } from './saved-agents-cli.js';
import type { RenameFlags } from './rename.js';
import type { SpawnFlags } from './team-cli.js';

/*
 * Team operations: declarations only. spawn, team start, jump (team-cli.ts), rename (rename.ts),
 * and the saved agent definitions `synapse agents …` (saved-agents-cli.ts).
 */

const TERMINAL_HELP = 'tmux, zellij or background; auto (default): tmux inside tmux, zellij inside zellij, else background';

const teamCli = () => import('./team-cli.js');

function registerSpawn(program: Command): void {
  program
    .command('spawn')
    .description('Start one agent in a new terminal pane (or in the background) and return once it is ready')
    .argument('<profile>', 'a profile (claude, codex, echo …) or a saved agent id or name')
    .argument('[cliArgs...]', 'arguments passed to the CLI itself, after --')
    .option('-n, --name <name>', 'a custom name other agents can use as the target')
    .option('-r, --role <text>', 'what this agent does in the team (or @file)')
    .option('-S, --skill-set <set>', 'deploy this skill set for it and tell it to load it')
    .option('-p, --port <port>', "a fixed port instead of the first free one of the profile's range", parsePort)
    .option('--worktree [name]', 'start it in its own git worktree (.synapse/worktrees/<name>)')
    .option('--terminal <kind>', TERMINAL_HELP, 'auto')
    .option('--auto-approve', "turn on the CLI's own auto-approval flag")
    .option(
      '--keep-idle <duration>',
      'its lease: it ends by itself after this long READY with no task (600, 90s, 10m, 1h30m; 0 = none; default: settings spawn.keepIdle)',
    )
    .option('--keep-turns <n>', 'its lease: it ends by itself after n answered tasks (0 = no limit; default: settings spawn.keepTurns)')
    .option('--json', 'print the new agent as JSON')
    .addHelpText(
      'after',
      `
Returns once the agent's registry entry says its CLI is up; if it fails to start, exits non-zero
with the reason (the CLI's exit code and last screen lines). In tmux the pane opens beside yours;
\`synapse jump <name>\` focuses it and \`synapse kill <name>\` also closes it. Outside a multiplexer
the agent runs in the background: \`synapse logs <name> -f\` follows it.

A helper with a lease ends by itself, as \`synapse kill\` would end it, once the lease runs out
(\`synapse list\` shows it). An agent spawned by an agent is one level deeper; beyond
SYNAPSE_MAX_SPAWN_DEPTH (default 2) spawn refuses (exit 1, spawn_depth_exceeded).

Examples:
  synapse spawn claude --name reviewer --role "reviews every change"
  synapse spawn echo --name helper --terminal background --json
  synapse spawn codex --name fixer --keep-idle 10m --keep-turns 3   ends by itself
  synapse spawn sharp-checker                 a saved agent (synapse agents list)
  synapse spawn codex -- --model o3           pass flags to the CLI itself`,
    )
    .action(async (target: string, cliArgs: string[], flags: SpawnFlags) => (await teamCli()).spawnCommand(target, cliArgs, flags, processIo()));
}

function registerTeam(program: Command): void {
  const team = program.command('team').description('Start a team of agents in terminal panes');
  team
    .command('start')
    .description('Start several agents: the first takes over this terminal, the others open in new panes')
    .argument('<specs...>', 'profile[:name[:role[:skill_set[:port]]]] (a saved agent id or name works as profile); -- then CLI args')
    .option('--all-new', 'every member in a new pane; this terminal stays yours')
    .option('--worktree [name]', 'each member in its own git worktree')
    .option('--terminal <kind>', TERMINAL_HELP, 'auto')
    .option('--json', 'print the started and failed members as JSON')
    .addHelpText(
      'after',
      `
A member that fails to start is reported (exit 1) and the others keep running.

Examples:
  synapse team start claude gemini:reviewer codex::tester
  synapse team start echo:alice echo:bob echo:carol --all-new`,
    )
    .action(async (specs: string[], flags: { allNew?: boolean; worktree?: string | true; terminal?: string; json?: boolean }) => {
      // Everything after `--` is for the CLIs; commander leaves it among the specs.
      const cut = process.argv.indexOf('--');
      const cliArgs = cut >= 0 ? process.argv.slice(cut + 1) : [];
      const own = cut >= 0 ? specs.slice(0, specs.length - cliArgs.length) : specs;
      await (await teamCli()).teamStartCommand(own, cliArgs, flags, processIo());
    });
}

function registerPaneCommands(program: Command): void {
  program
    .command('jump')
    .description('Focus the terminal pane of an agent started by `synapse spawn` (tmux select-pane / switch-client, zellij)')
    .argument('<target>', 'name, agent id, type-port or type')
    .addHelpText('after', '\nExample:\n  synapse jump reviewer')
    .action(async (target: string) => (await teamCli()).jumpCommand(target, processIo()));

  program
    .command('rename')
    .description('Change the name and/or role of a running agent (its registry entry and the agent itself)')
    .argument('<target>', 'name, agent id, type-port or type')
    .option('-n, --name <name>', 'the new name')
    .option('-r, --role <text>', 'the new role (or @file)')
    .option('--clear', 'remove the name and role (then set what --name/--role give)')
    .option('--json', 'print the updated entry as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  synapse rename synapse-claude-8100 --name reviewer\n  synapse rename reviewer --role "architecture review"\n  synapse rename reviewer --clear',
    )
    .action(async (target: string, flags: RenameFlags) => (await import('./rename.js')).renameCommand(target, flags, processIo()));
}

function registerSavedAgents(program: Command): void {
  const saved = () => import('./saved-agents-cli.js');
  const agents = program
    .command('agents')
    .description('Saved agent definitions (name, profile, role, skill set, port) in .synapse/agents/ (project, wins) and ~/.synapse/agents/');
  agents
    .command('list')
    .description('List the saved agents')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }) => (await saved()).listSavedCommand(flags, processIo()));
  agents
    .command('show')
    .description('Show one saved agent')
    .argument('<id|name>', 'its id or name')
    .option('--json', 'print JSON')
    .action(async (query: string, flags: { json?: boolean }) => (await saved()).showSavedCommand(query, flags, processIo()));
  agents
    .command('add')
    .description('Save an agent definition (replaces one with the same id)')
    .argument('<id>', 'two lowercase words joined by a dash, e.g. sharp-checker')
    .requiredOption('--name <name>', 'the name the agent runs under')
    .requiredOption('--profile <profile>', 'claude, codex, gemini, opencode, copilot or echo')
    .option('--role <text>', 'its role (@file is kept as written and read at start)')
    .option('-S, --skill-set <set>', 'a skill set to deploy for it at start')
    .option('--port <port>', 'a fixed port', parsePort)
    .option('--scope <scope>', 'project (.synapse/agents/) or user (~/.synapse/agents/)', 'project')
    .option('--json', 'print the definition as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  synapse agents add sharp-checker --name Rex --profile codex --role "runs the tests"\n  synapse codex --agent sharp-checker\n  synapse spawn Rex',
    )
    .action(async (id: string, flags: AddSavedFlags) => (await saved()).addSavedCommand(id, flags, processIo()));
  agents
    .command('delete')
    .description('Delete a saved agent')
    .argument('<id|name>', 'its id or name')
    .option('--json', 'print the deleted definition as JSON')
    .action(async (query: string, flags: { json?: boolean }) => (await saved()).deleteSavedCommand(query, flags, processIo()));
}

export function registerTeamCommands(program: Command): void {
  registerSpawn(program);
  registerTeam(program);
  registerPaneCommands(program);
  registerSavedAgents(program);
}
