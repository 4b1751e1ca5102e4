import type { Command } from 'commander';
import { ExitRequest } from '../exit.js';
import { processIo } from '../io.js';

/** `config`, `init` and `reset` repair the settings files, so they read the raw environment (a bad file does not stop them). */
const rawIo = () => processIo({ rawEnv: true });

const CONFIG_HELP = `
Scopes (later wins): user ~/.synapse/settings.json < project .synapse/settings.json
  < local .synapse/settings.local.json < environment variables. Keys: guides/settings.md.

Examples:
  synapse config show                          merged view, with where each value came from
  synapse config show --scope project --json
  synapse config get a2a.flow
  synapse config set approvalMode required --scope project
  synapse config set env.SYNAPSE_REPLY_GRACE 10 --scope local
  synapse config set hooks.on_idle "" --scope project     (an empty value removes the key)`;

// eslint-disable-next-line max-lines-per-function -- commander declarations, no logic
export function registerSettingsCommands(program: Command): void {
  const config = program
    .command('config')
    .description('Show and change the settings (.synapse/settings.json); on a terminal without a subcommand, an interactive editor')
    .addHelpText('after', CONFIG_HELP)
    .action(async () => {
      const io = rawIo();
      if (!io.isTerminal('stdin') || !io.isTerminal('stdout')) {
        config.outputHelp({ error: true });
        throw new ExitRequest(2);
      }
      const { configInteractive } = await import('./config-interactive.js');
      await configInteractive(io);
    });
  config
    .command('show')
    .description('The merged settings with the source of each value, or one scope file')
    .option('--scope <scope>', 'user, project or local: that file only')
    .option('--json', 'print JSON ({key: {value, source, file}})')
    .addHelpText('after', '\nExamples:\n  synapse config show\n  synapse config show --scope user --json')
    .action(async (flags: { scope?: string; json?: boolean }) => (await import('./config-cli.js')).configShow(flags, rawIo()));
  config
    .command('get')
    .description('Print the merged value of one key')
    .argument('<key>', 'approvalMode, a2a.flow, list.columns, instructions.<default|profile>, hooks.<event>, env.SYNAPSE_*')
    .option('--json', 'print {key, value, source, file}')
    .addHelpText('after', '\nExamples:\n  synapse config get a2a.flow\n  synapse config get env.SYNAPSE_REPLY_GRACE --json')
    .action(async (key: string, flags: { json?: boolean }) => (await import('./config-cli.js')).configGet(key, flags, rawIo()));
  config
    .command('set')
    .description('Set one key in one scope file (checked before it is written; an empty value removes the key)')
    .argument('<key>', 'the key (see synapse config show)')
    .argument('<value>', 'the value; list.columns: comma-separated')
    .option('--scope <scope>', 'user, project or local', 'user')
    .option('--json', 'print {key, value, scope, file}')
    .addHelpText('after', '\nExamples:\n  synapse config set a2a.flow roundtrip --scope project\n  synapse config set list.columns ID,NAME,STATUS')
    .action(async (key: string, value: string, flags: { scope?: string; json?: boolean }) =>
      (await import('./config-cli.js')).configSet(key, value, flags, rawIo()),
    );

  program
    .command('init')
    .description('Copy the settings and instruction templates into .synapse/ (or ~/.synapse); existing files are kept')
    .option('--scope <scope>', 'project (./.synapse) or user (~/.synapse)', 'project')
    .option('--force', 'overwrite files that exist')
    .option('--json', 'print {dir, written, kept}')
    .addHelpText('after', '\nExamples:\n  synapse init\n  synapse init --scope user --force')
    .action(async (flags: { scope?: string; force?: boolean; json?: boolean }) => (await import('./init-cli.js')).initCommand(flags, rawIo()));

  program
    .command('reset')
    .description('Put the shipped templates back over the settings and instruction files (project: also removes settings.local.json)')
    .option('--scope <scope>', 'project or user', 'project')
    .option('-y, --yes', 'do not ask (needed without a terminal)')
    .option('--json', 'print {dir, written, removed}')
    .addHelpText('after', '\nExamples:\n  synapse reset\n  synapse reset --scope user --yes')
    .action(async (flags: { scope?: string; yes?: boolean; json?: boolean }) => (await import('./init-cli.js')).resetCommand(flags, rawIo()));

  program
    .command('trust')
    .description("Trust the env and hooks of this project's settings files (.synapse/settings.json, settings.local.json), or revoke that")
    .option('--show', 'only show what they hold and whether they are trusted')
    .option('--revoke', 'forget every decision about this project: its env and hooks are not applied until trusted again')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      `
A project's settings may set environment variables (env) and run shell commands (hooks). An agent
applies them only once you trust exactly what they hold now, per project (its git repository);
when they change they are asked about again. On a terminal \`synapse <profile>\`, \`start\`,
\`spawn\` and \`team start\` ask; without one the agent starts without them and says so.
The decisions live in ~/.synapse/trusted-projects.json.

Examples:
  synapse trust --show                 what the project's files ask for, and whether it applies
  synapse trust                        apply them (to agents started from now on)
  synapse trust --revoke --json`,
    )
    .action(async (flags: { show?: boolean; revoke?: boolean; json?: boolean }) => (await import('./trust.js')).trustCommand(flags, processIo()));

  const instructions = program.command('instructions').description('The start-up instructions agents get: show them, list their files, send them again');
  instructions
    .command('show')
    .description('Print the instruction an agent of this profile gets (default: the default instruction)')
    .argument('[profile]', 'claude, codex, gemini, opencode, copilot, echo, or default')
    .option('--json', 'print {profile, agent_id, port, text}')
    .addHelpText('after', '\nExamples:\n  synapse instructions show\n  synapse instructions show gemini')
    .action(async (profile: string | undefined, flags: { json?: boolean }) =>
      (await import('./instructions-cli.js')).instructionsShow(profile, flags, processIo()),
    );
  instructions
    .command('files')
    .description('Which files make up the instruction, and where each was found (project, user, package)')
    .argument('[profile]', 'a profile, or default')
    .option('--json', 'print [{reason, name, file, source}]')
    .addHelpText('after', '\nExample:\n  SYNAPSE_LEARNING_MODE_ENABLED=1 synapse instructions files claude')
    .action(async (profile: string | undefined, flags: { json?: boolean }) =>
      (await import('./instructions-cli.js')).instructionsFiles(profile, flags, processIo()),
    );
  instructions
    .command('send')
    .description('Send a running agent its start-up instruction again (rendered for it: id, port, name, role)')
    .argument('<target>', 'name, agent id, type-port or type')
    .option('--preview', 'print it instead of sending')
    .option('--force', 'send even though the target works in another directory')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExamples:\n  synapse instructions send alice --preview\n  synapse instructions send claude-8100')
    .action(async (target: string, flags: { preview?: boolean; force?: boolean; json?: boolean }) =>
      (await import('./instructions-cli.js')).instructionsSend(target, flags, processIo()),
    );
}
