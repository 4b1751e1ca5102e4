import { DETACHED_AGENT, PANE_AGENT, TEAM_OP } from './detached.js';
import { exitFor } from './exit.js';
import { processIo } from './io.js';
import { plainAgentStart, runPlainAgent } from './fast-start.js';
import type * as Commander from 'commander';
import { requireCjs } from '../require-cjs.js';
import { restoreExtraCaCerts } from '../extra-ca-certs.js';

/** Commander and the command declarations load only here: a background agent never needs them. */
async function runProgram(argv: string[]): Promise<void> {
  const { CommanderError } = requireCjs('commander') as typeof Commander;
  const { buildProgram, withDefaultRun } = await import('./program.js');
  // Loading the profiles costs every command ~20 ms, so only a help request loads them up front.
  const wantsHelp = argv.slice(2).some((a) => a === '--help' || a === '-h' || a === 'help');
  const program = buildProgram(wantsHelp ? (await import('../profiles/index.js')).profileNames() : undefined);
  try {
    await program.parseAsync(withDefaultRun(program, argv));
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are successes; commander has printed everything else already.
      process.exitCode = err.exitCode === 0 || err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? 0 : 1;
      return;
    }
    throw err;
  }
}

/**
 * `synapse … | head` closes the pipe before we finish writing: stop quietly, as any Unix tool
 * does, instead of dying on an unhandled EPIPE with a stack trace.
 */
function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

export async function main(argv: string[]): Promise<void> {
  // Before anything can start a process: the CLI and the rest inherit NODE_EXTRA_CA_CERTS as set.
  restoreExtraCaCerts();
  quietOnClosedPipe(process.stdout);
  // `synapse <profile>` and nothing else: the agent starts without commander and the command tree.
  const plain = plainAgentStart(argv);
  try {
    if (plain) await runPlainAgent(plain);
    else if (argv[2] === DETACHED_AGENT) await (await import('./commands/run-agent.js')).runDetached(argv[3] ?? '', processIo());
    else if (argv[2] === PANE_AGENT) await (await import('./commands/pane-agent.js')).runPaneAgent(argv[3] ?? '', processIo());
    else if (argv[2] === TEAM_OP) await (await import('./commands/team-cli.js')).runTeamOpEntry(processIo());
    else await runProgram(argv);
  } catch (err) {
    const { code, message } = exitFor(err);
    if (message) process.stderr.write(message);
    process.exitCode = code;
  }
}
