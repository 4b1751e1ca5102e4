import path from 'node:path';
import { iso, systemClock, type Clock } from '../clock.js';
import { logsDir, registryDir } from '../config/paths.js';
import { mergeArgs } from '../profiles/args.js';
import { deployCoreSkill } from '../skills/core.js';
import { FileRegistry } from '../registry/registry.js';
import type { AgentOptions, RunningAgent } from './agent.js';
import { agentSettings } from './agent-settings.js';
import { cliEnv } from './cli-env.js';
import { EarlyCli } from './early-cli.js';
import { OptimizerGate } from './optimizer-gate.js';
import { UserTerminal } from './passthrough.js';
import { claimPort, portRange } from './port-claim.js';
import type { AgentIdentity } from './presence.js';
import { envSetting } from '../config/env-setting.js';
import { bindHost, endpointHost } from './bind-host.js';

const HEADLESS_SIZE = { cols: 120, rows: 40 };

/**
 * In the foreground the agent waits this long at most for the CLI's first output before it loads
 * anything heavy (xterm, pino, better-sqlite3, Fastify: each load blocks the event loop for
 * 10-240 ms on a busy 2-core machine, and takes the CPU the CLI starts on): the CLI's first screen
 * reaches the person at once instead of after those blocks. Its output meanwhile is held for the
 * screen (early-cli.ts), so the emulator still sees every byte, in order.
 */
const FIRST_OUTPUT_WAIT_MS = 250;

/** Until the CLI has written something (or exited), at most `ms`. */
async function firstOutputOf(cli: EarlyCli, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([cli.firstOutput, cli.exited, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
  // One more turn: the output that came with it is written to the person's terminal first.
  await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Loads what the rest of the agent needs (heavy-modules.ts). Loading a module blocks the event
 * loop, so they are loaded one at a time with a turn of the loop between them: the CLI's output
 * reaches the person's terminal (and keys reach the CLI) between two of them, not only once all are in.
 */
async function loadInSlices(): Promise<void> {
  const { HEAVY_MODULES } = await import('./heavy-modules.js');
  for (const load of HEAVY_MODULES) {
    load();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function identityOf(opts: AgentOptions, port: number, host: string, clock: Clock, scheme: 'http' | 'https'): AgentIdentity {
  const agentId = `synapse-${opts.profile.id}-${port}`;
  return {
    agentId,
    type: opts.profile.id,
    name: opts.name ?? null,
    role: opts.role ?? null,
    port,
    workingDir: opts.cwd,
    // Where peers reach it: the advertised address (another host's view: NAT, a wildcard bind), else the bind address.
    endpoint: `${scheme}://${endpointHost(envSetting(opts.env, 'SYNAPSE_ADVERTISE_HOST')?.trim() || host)}:${port}`,
    startedAt: iso(clock.now()),
    // A background agent's stdout is its log file (`synapse start`); a foreground one logs to a file.
    logFile: opts.headless ? (envSetting(opts.env, 'SYNAPSE_LOG_FILE') ?? null) : path.join(logsDir(opts.env), `${agentId}.log`),
    headless: opts.headless,
    ...(opts.extras ? { extras: opts.extras } : {}),
  };
}

/**
 * Starts one agent, the CLI first: the settings are checked and the port claimed (the agent id
 * and the CLI's environment are made from it), then the CLI is spawned and, in the foreground,
 * the person's terminal attached, all before the HTTP server, the stores and the terminal
 * emulator are even loaded (agent.ts, imported here afterwards). The CLI starts as soon as it
 * would without Synapse, and loads on the other core while the agent loads on this one.
 */
export async function startAgent(opts: AgentOptions): Promise<RunningAgent> {
  const clock = opts.clock ?? systemClock;
  const host = bindHost(opts.host, opts.env);
  // Before anything is claimed or spawned: a setting that does not parse is an error here.
  const settings = agentSettings(opts.env);
  const registry = new FileRegistry(registryDir(opts.env));
  const claim = await claimPort({
    range: portRange(opts.profile, opts.env),
    host,
    registry,
    type: opts.profile.id,
    tls: settings.tls,
    ...(opts.port !== undefined ? { port: opts.port } : {}),
  });
  const identity = identityOf(opts, claim.port, host, clock, settings.tls ? 'https' : 'http');
  if (opts.approve) {
    try {
      if ((await opts.approve({ agentId: identity.agentId, port: identity.port })) === 'skip') opts = { ...opts, skipInstruction: true };
    } catch (err) {
      claim.server.close();
      throw err;
    }
  }
  const size = opts.headless || !process.stdout.columns ? HEADLESS_SIZE : { cols: process.stdout.columns, rows: process.stdout.rows };
  // The profile's args, then the user's (a flag passed by both, once); the environment a person's
  // terminal would give it.
  const { args, dropped: droppedArgs } = mergeArgs(opts.profile, opts.profile.args, opts.cliArgs);
  const { env, dropped: droppedEnv } = cliEnv(opts.env, opts.profile, { agentId: identity.agentId, port: identity.port });
  // Best effort, before the CLI starts so it sees the skill: never throws.
  deployCoreSkill(opts.profile.id, opts.env, opts.cwd);
  const optimizer = new OptimizerGate(settings.optimizeAfterChars);
  let cli: EarlyCli;
  try {
    cli = new EarlyCli({ command: opts.profile.command, args, cwd: opts.cwd, env, ...size }, (chars) => optimizer.output(chars));
  } catch (err) {
    // Nothing may keep the process alive after a failed start: the claimed port would.
    claim.server.close();
    throw err;
  }
  const user = opts.headless ? null : new UserTerminal(cli.terminal, opts.profile, clock);
  user?.start();
  try {
    // In the foreground nothing heavy is even read before the CLI's first screen is on the person's terminal.
    if (user) await firstOutputOf(cli, FIRST_OUTPUT_WAIT_MS);
    // What runs from here until the agent takes messages runs once: none of it is worth compiling (optimizer-gate.ts).
    optimizer.hold();
    await loadInSlices();
    const { composeAgent } = await import('./agent.js');
    const commandLine = [opts.profile.command, ...args].join(' ');
    return await composeAgent(opts, { identity, settings, claim, host, registry, clock, cli, optimizer, commandLine, droppedEnv, droppedArgs, size, user });
  } catch (err) {
    user?.stop();
    cli.terminal.kill('SIGKILL');
    claim.server.close();
    throw err;
  }
}
