import type { Command } from 'commander';
import { SynapseError } from '../../errors.js';
import { ExitRequest } from '../exit.js';
import { processIo } from '../io.js';
import type { RunFlags } from './run-agent.js';

/*
 * The agent commands: declarations only. Each action loads the module of its command function
 * (run-agent.ts, lifecycle.ts, doctor.ts: they import the runtime, the registry, the store) and
 * calls it with the parsed arguments, the options and the real process as its CommandIo.
 */

export function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new SynapseError('usage', `invalid port "${value}" (1-65535)`);
  return n;
}

function addAgentOptions(cmd: Command, profiles: string | undefined): Command {
  return cmd
    .argument('<profile>', profiles ? `which CLI to wrap: ${profiles}` : 'which CLI to wrap (`synapse profiles` lists them)')
    .argument('[cliArgs...]', 'arguments passed to the CLI itself, after --')
    .option('-n, --name <name>', 'a custom name other agents can use as the target')
    .option('-r, --role <text>', 'what this agent does in the team (or @file to read it from a file)')
    .option('-p, --port <port>', "a fixed port instead of the first free one of the profile's range", parsePort)
    .option(
      '--host <host>',
      'address to bind (default SYNAPSE_HOST, else 127.0.0.1; anything else exposes the agent: turn auth on). Other hosts reach it there, or at SYNAPSE_ADVERTISE_HOST',
    )
    .option('--auto-approve', "turn on the CLI's own auto-approval flag (off by default)")
    .option('--delegate-mode', 'a manager: it coordinates and does not edit (its sends of work need a board task; file locks are refused to it)')
    .option('--worktree [name]', 'work in a git worktree of its own: .synapse/worktrees/<name> on branch synapse/<name>, made from HEAD')
    .option('-A, --agent <id|name>', 'start a saved agent definition (`synapse agents list`); its profile must be this one, the flags win');
}

/**
 * Declarations only, one block per command: long, but there is no logic in it. `profiles`: the
 * shipped profiles for `<profile>`'s help (main loads them only for a help request).
 */
// eslint-disable-next-line max-lines-per-function -- commander declarations, no logic
export function registerAgentCommands(program: Command, profiles?: string): void {
  addAgentOptions(program.command('run', { hidden: true }), profiles)
    .description('Run an agent CLI in this terminal (same as `synapse <profile>`)')
    .option('--headless', 'no user terminal: the CLI runs unseen, only the HTTP side is used')
    .option('--no-setup', 'on a terminal, do not ask for a name and role (--name or --role skip it too)')
    .addHelpText(
      'after',
      `
On a terminal, Synapse asks for the agent's name and role first, and with the setting
approvalMode "required" shows "[Synapse] Agent: <id> | Port: <port>" and asks
"Proceed? [Y/n/s(skip)]" (s = start without the start-up instruction). guides/settings.md.

Examples:
  synapse claude                         wrap Claude Code in this terminal
  synapse claude --name reviewer --role "reviews every change"
  synapse echo --headless                the built-in echo agent, no terminal
  synapse claude --worktree fix-login    work in .synapse/worktrees/fix-login (branch synapse/fix-login)
  synapse claude --name lead --delegate-mode   a manager that hands out work as board tasks
  synapse claude -- --model sonnet       pass flags to the CLI itself`,
    )
    .action(async (profileName: string, cliArgs: string[], flags: RunFlags) => {
      const { runForeground } = await import('./run-agent.js');
      const code = await runForeground(profileName, cliArgs, flags, processIo());
      // The PTY and server handles are closed, but native handles may linger: leave now.
      process.stdout.write('', () => process.exit(code));
      await new Promise(() => undefined);
    });

  addAgentOptions(program.command('start'), profiles)
    .description('Start an agent in the background (detached; output in ~/.synapse/logs/)')
    .option('--json', 'print the registry entry as JSON')
    .addHelpText(
      'after',
      '\nReturns once the CLI shows its first screen (its prompt, work or a question). If the CLI exits\n' +
        'first, exits 2 and prints its exit code and the last lines of its screen.\n\n' +
        'Examples:\n  synapse start echo --name alice\n  synapse start claude --role @roles/reviewer.md -- --model sonnet\n' +
        '  synapse start claude --name fixer --worktree   in a new worktree .synapse/worktrees/fixer-<hex>\n' +
        '  SYNAPSE_ADVERTISE_HOST=box1.lan synapse start claude --host 0.0.0.0   reachable from other hosts (auth on; guides/teams-across-machines.md)',
    )
    .action(async (profileName: string, cliArgs: string[], flags: RunFlags) => {
      const { startBackground } = await import('./run-agent.js');
      await startBackground(profileName, cliArgs, flags, processIo());
    });

  program
    .command('stop')
    .description("Ask an agent to shut down and wait until it has (the original Synapse's agents: SIGTERM, as its own stop)")
    .argument('<target>', 'name, agent id, type-port (echo-8190) or type')
    .option('-t, --timeout <seconds>', 'how long to wait', '10')
    .addHelpText('after', '\nExamples:\n  synapse stop alice\n  synapse stop synapse-echo-8190')
    .action(async (target: string, flags: { timeout: string }) => {
      const { stopCommand } = await import('./lifecycle.js');
      await stopCommand(target, flags, processIo());
    });

  program
    .command('kill')
    .description('Stop an agent: ask it to shut down, wait for it to exit (30 s, as the original), then SIGTERM and SIGKILL its process group')
    .argument('<target>', 'name, agent id, type-port or type')
    .option('-f, --force', 'SIGKILL now, without asking')
    .option('-t, --timeout <seconds>', 'grace time before SIGTERM (default: $SYNAPSE_KILL_TIMEOUT, else 30)')
    .addHelpText('after', '\nExamples:\n  synapse kill alice\n  synapse kill alice -t 5\n  synapse kill echo-8191 -f')
    .action(async (target: string, flags: { force?: boolean; timeout?: string }) => {
      const { killCommand } = await import('./lifecycle.js');
      await killCommand(target, flags, processIo());
    });

  program
    .command('list')
    .alias('ls')
    .description(
      "List running agents, the original Python Synapse's too (dead entries are pruned). On a terminal: a live, full-screen monitor; otherwise (or with --json/--plain) a table printed once, then those whose CLI exited in the last 10 minutes",
    )
    .option('--json', 'print JSON once (the running agents only, each with editing_file and waiting_messages)')
    .option('--plain', 'print the table once, even on a terminal')
    .option('--waiting', 'print only the messages waiting for agents that are not running (synapse send --queue), per target')
    .addHelpText(
      'after',
      '\nColumns: ID, HOST, NAME, TYPE, ROLE, STATUS, CURRENT (task preview; in the monitor with its elapsed time),\n' +
        'PORT, TRANSPORT, EDITING_FILE, WORKING_DIR, SKILL_SET. Choose and order them with settings list.columns\n' +
        '(synapse config set list.columns ID,NAME,STATUS); unset, the table shows ID NAME TYPE ROLE STATUS\n' +
        'CURRENT PORT EDITING_FILE WORKING_DIR and the monitor ID NAME TYPE ROLE STATUS CURRENT TRANSPORT\n' +
        'WORKING_DIR SKILL_SET EDITING_FILE. Below the table: messages waiting for agents that are not running\n' +
        '(how many, since when, the next expiry), then agents whose CLI quit by itself, with its exit code.\n\n' +
        'The monitor updates as statuses change. Keys: 1-9 select a row, ↑/↓ move, Enter or j jump to the\n' +
        "agent's pane (synapse jump), K kill it (asks y/n), / filter by type, name or directory, ESC clear, q quit.\n" +
        'guides/monitor.md.\n\n' +
        'With a PostgreSQL store (SYNAPSE_STORE_URL) the monitor, the table and --json also show the agents of every\n' +
        'other host that uses the store (from its registry table), with a HOST column (this host: SYNAPSE_HOST_NAME,\n' +
        "else the machine's name); a host's row expires 3 heartbeats after its agent last wrote it. JSON adds host and\n" +
        'remote. The monitor reads the table every heartbeat (SYNAPSE_HEARTBEAT_MS); a store it cannot reach leaves\n' +
        "this host's agents and a warning in its title. EDITING_FILE is then read from the store's lock rows, for\n" +
        "every host's agents.\n" +
        'guides/teams-across-machines.md.\n\n' +
        'Examples:\n  synapse list                              the live monitor (on a terminal)\n' +
        '  synapse list --plain                      the table, once\n' +
        '  synapse list --json | jq ".[].agent_id"\n' +
        '  synapse list --json | jq ".[] | select(.remote) | {agent_id, host, endpoint}"   agents on other hosts\n' +
        '  synapse list --waiting --json | jq ".[] | {target_key, waiting}"',
    )
    .action(async (flags: { json?: boolean; plain?: boolean; waiting?: boolean }) => {
      const { listCommand } = await import('./list-monitor.js');
      await listCommand(flags, processIo());
    });

  program
    .command('status')
    .description('Show one agent: live status, locks, board tasks and its last finished tasks from the history')
    .argument('<target>', 'name, agent id, type-port or type')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      '\nA target that is not running but has messages left for it here (synapse send --queue) shows them:\n' +
        'waiting, delivered, expired or refused, with why.\n\nExamples:\n  synapse status alice --json\n  synapse status reviewer        not running: its waiting messages',
    )
    .action(async (target: string, flags: { json?: boolean }) => {
      const { agentStatus } = await import('./lifecycle.js');
      await agentStatus(target, flags, processIo());
    });

  program
    .command('logs')
    .description("Print an agent's log (or its current screen with --screen); for an agent whose CLI exited, why")
    .argument('<target>', 'name, agent id, type-port or type')
    .option('-n, --lines <n>', 'only the last n lines', '200')
    .option('-f, --follow', 'keep printing new lines')
    .option('--screen', "print what the CLI's screen shows now, as text (the original Synapse's agents: their recent output)")
    .addHelpText('after', '\nExamples:\n  synapse logs alice -f\n  synapse logs alice --screen')
    .action(async (target: string, flags: { lines: string; follow?: boolean; screen?: boolean }) => {
      const { agentLogs } = await import('./lifecycle.js');
      await agentLogs(target, flags, processIo());
    });

  program
    .command('profiles')
    .description(
      'List the agent profiles, their port ranges, whether each CLI is installed (and its version) and whether the rules were verified against the live CLI',
    )
    .option('--json', 'print JSON (id, aliases, ports, command, available, installed, version, verified_live)')
    .action(async (flags: { json?: boolean }) => {
      const { listProfilesCommand } = await import('./run-agent.js');
      await listProfilesCommand(flags, processIo());
    });

  program
    .command('doctor')
    .description('Check Node, the agent CLIs, free ports, the registry and the codex network setting; say what to fix')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }) => {
      const { doctorCommand } = await import('./doctor.js');
      await doctorCommand(flags, processIo());
    });

  program
    .command('demo')
    .description('Start two echo agents in a temp registry, send a message between them, show the round trip, stop them')
    .option('--json', 'print the result as JSON')
    .action(async (flags: { json?: boolean }) => {
      const { runDemo } = await import('../../demo/demo.js');
      const ok = await runDemo({ json: flags.json === true });
      if (!ok) throw new ExitRequest(1);
    });
}
